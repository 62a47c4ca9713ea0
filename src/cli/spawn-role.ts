// Spawns one role of the fleet as its own Node process (the CLI entry with tsx), so `dev`, the
// demo and the tests run the same separate processes that production runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI_ENTRY = join(PROJECT_ROOT, 'src', 'cli.ts');

export interface SpawnedRole {
  name: string;
  child: ChildProcess;
  /** Resolves with the first stdout line matching the pattern (e.g. "listening on URL"). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  output(): string;
}

export function spawnRole(input: {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Where the child's log lines go besides the in-memory tail (default: nowhere). */
  echo?: NodeJS.WritableStream | null;
  /** A compiled CLI (dist/src/cli.js, what the image runs) instead of the sources through tsx. */
  cliEntry?: string | undefined;
}): SpawnedRole {
  const entry = input.cliEntry ? [input.cliEntry] : ['--import', 'tsx', CLI_ENTRY];
  const child = spawn(process.execPath, [...entry, ...input.args], {
    cwd: PROJECT_ROOT,
    env: input.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const listeners = new Set<(line: string) => void>();
  let buffered = '';
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-64_000);
    input.echo?.write(text);
    buffered += text;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) for (const listener of listeners) listener(line);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    name: input.name,
    child,
    output: () => tail,
    // Generous on purpose: a role that exits fails the wait at once (below), so the bound only
    // catches a role that hangs, and a loaded 2-core machine (tsx compiling every role at once)
    // can take well over 30 s to start one.
    waitForLine(pattern, timeoutMs = 180_000) {
      return new Promise((resolve, reject) => {
        const existing = tail
          .split('\n')
          .map((line) => line.match(pattern))
          .find(Boolean);
        if (existing) return resolve(existing);
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`${input.name} did not print ${pattern} within ${timeoutMs} ms. Output:\n${tail.slice(-4000)}`));
        }, timeoutMs);
        const listener = (line: string) => {
          const match = line.match(pattern);
          if (!match) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(match);
        };
        listeners.add(listener);
        child.once('exit', (code) => {
          if (!listeners.has(listener)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          reject(new Error(`${input.name} exited with ${code} before printing ${pattern}. Output:\n${tail.slice(-4000)}`));
        });
      });
    },
    async stop(signal = 'SIGTERM', timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
