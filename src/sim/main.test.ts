import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseSimulatorArguments, runSimulatorCommand } from './main.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('buildfleet sim', () => {
  it('reads --port, --latency-ms MIN-MAX, --host and --seed', () => {
    expect(parseSimulatorArguments(['--port', '8787', '--latency-ms', '20-80', '--host', '0.0.0.0', '--seed', '7'])).toEqual({
      port: 8787,
      latencyMs: { min: 20, max: 80 },
      host: '0.0.0.0',
      seed: 7,
    });
    expect(parseSimulatorArguments(['--latency-ms', '15'])).toEqual({ latencyMs: { min: 15, max: 15 } });
    expect(() => parseSimulatorArguments(['--port', 'eighty'])).toThrow(/--port/);
    expect(() => parseSimulatorArguments(['--latency-ms', '50-10'])).toThrow(/MAX/);
    expect(() => parseSimulatorArguments(['--verbose'])).toThrow();
    expect(parseSimulatorArguments(['--profile', 'realistic'])).toEqual({ profile: 'realistic' });
    expect(() => parseSimulatorArguments(['--profile', 'leisurely'])).toThrow(/--profile expects one of instant, realistic, fast/);
  });

  it('reads --script FILE as a conversation script, and refuses to start on a bad one', () => {
    const directory = mkdtempSync(join(tmpdir(), 'sim-script-'));
    try {
      const good = join(directory, 'good.json');
      writeFileSync(good, JSON.stringify({ turns: [{ content: [{ type: 'text', text: 'Hello.' }] }] }));
      expect(parseSimulatorArguments(['--script', good])).toEqual({ script: { turns: [{ content: [{ type: 'text', text: 'Hello.' }] }] } });
      const bad = join(directory, 'bad.json');
      writeFileSync(bad, JSON.stringify({ turns: [{ content: [{ type: 'text', text: 'Hello.' }], stop_reason: 'tool_use' }] }));
      expect(() => parseSimulatorArguments(['--script', bad])).toThrow(`${bad}: not a conversation script: turns[0].stop_reason: tool_use needs a tool_use block in content`);
      expect(() => parseSimulatorArguments(['--script', join(directory, 'missing.json')])).toThrow(/ENOENT/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('reads --policy and --invalid-inputs SHARE', () => {
    expect(parseSimulatorArguments(['--policy', 'schema', '--invalid-inputs', '0.25'])).toEqual({ policy: 'schema', invalidInputShare: 0.25 });
    expect(() => parseSimulatorArguments(['--policy', 'random'])).toThrow(/--policy expects one of builder, schema, got "random"/);
    for (const share of ['1.5', '-0.1', 'half', '']) expect(() => parseSimulatorArguments([`--invalid-inputs=${share}`])).toThrow(/--invalid-inputs expects a share from 0 to 1/);
  });

  it('reads --rate-limits RPM,ITPM,OTPM', () => {
    expect(parseSimulatorArguments(['--rate-limits', '50,30000,8000'])).toEqual({
      rateLimits: { requestsPerMinute: 50, inputTokensPerMinute: 30_000, outputTokensPerMinute: 8000 },
    });
    expect(() => parseSimulatorArguments(['--rate-limits', '50,30000'])).toThrow(/RPM,ITPM,OTPM/);
    expect(() => parseSimulatorArguments(['--rate-limits', '0,1,1'])).toThrow(/at least 1/);
  });

  it('prints the listening line, serves until SIGTERM, then closes cleanly', async () => {
    const stopHandlers = new Map<string, () => void>();
    vi.spyOn(process, 'on').mockImplementation(((event: string, handler: () => void) => {
      stopHandlers.set(event, handler);
      return process;
    }) as typeof process.on);
    vi.spyOn(process, 'off').mockImplementation((() => process) as typeof process.off);
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => {
      printed.push(line);
    });

    const running = runSimulatorCommand(['--port', '0']);
    await vi.waitFor(() => expect(printed).toHaveLength(1));
    const url = /^simulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(printed[0] ?? '')?.[1];
    expect(url).toBeDefined();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect([...stopHandlers.keys()].sort()).toEqual(['SIGINT', 'SIGTERM']);

    stopHandlers.get('SIGTERM')?.();
    await running;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
