// `buildfleet agent check` (docs/agents.md#checking-an-agent) on the example agent, whose MCP server
// it lists for real, on the site builder with its scripted build, and on a careless module whose
// faults it must name: a schema strict tool use refuses, and a script that never passes the gate.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAgentCheckCommand } from '../../src/cli/agent-check-command.js';
import { startMenuServer, type MenuServer } from '../../examples/order-desk/menu-server.js';

const ROOT = join(import.meta.dirname, '..', '..');
let menu: MenuServer;
beforeAll(async () => {
  menu = await startMenuServer();
});
afterAll(async () => menu?.close());

async function check(argv: string[], environment: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  const error = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
  try {
    const code = await runAgentCheckCommand({ argv, environment });
    return { code, out: lines.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('buildfleet agent check', () => {
  it('passes the example agent, its MCP server listed and its script through the gate', async () => {
    // The module reads its services' addresses from the environment when it loads, as in a deploy.
    process.env.ORDER_DESK_MENU_MCP_URL = menu.url;
    process.env.ORDER_DESK_ORDERS_URL = 'http://127.0.0.1:9/orders';
    const { code, out } = await check(['check', join(ROOT, 'examples/order-desk/agent.ts'), '--script', join(ROOT, 'examples/order-desk/script.json')], {
      BUILDFLEET_FETCH_ALLOWLIST: menu.origin,
    });
    delete process.env.ORDER_DESK_MENU_MCP_URL;
    delete process.env.ORDER_DESK_ORDERS_URL;
    expect(out).toContain('quoting: 2 tool(s): lookup_price, finish_turn');
    expect(out).toContain('passes the finish gate');
    expect(code).toBe(0);
  });

  it('passes the site builder with its scripted build', async () => {
    const { code, out } = await check(['check', join(ROOT, 'src/agents/site-builder/agent.ts'), '--script', join(ROOT, 'test/fixtures/scripts/harbor-lights.json')]);
    expect(out).toContain('building: 13 tool(s)');
    expect(out).toContain('agent check passed');
    expect(code).toBe(0);
  });

  it('names each fault of a careless agent and fails', async () => {
    const { code, out } = await check(['check', join(ROOT, 'test/fixtures/agents/careless-agent.ts'), '--script', join(ROOT, 'test/fixtures/agents/careless-script.json')]);
    expect(out).toContain('FAIL careless script turn 1 (noting): the script expects the tools note; the phase offers note, finish_turn');
    expect(out).toMatch(/FAIL careless script turn 1 \(noting\): note's input is invalid: .*words/);
    expect(out).toContain('FAIL careless script turn 2 (noting): it calls erase, which the phase does not offer');
    // Its requests themselves are ones the API takes, strict or not.
    expect(out).not.toMatch(/would refuse its request/);
    expect(out).toContain('FAIL careless script the script never passes the finish gate');
    expect(code).toBe(1);
  });

  it('fails a module whose MCP server cannot be listed, saying so', async () => {
    const { code, out } = await check(['check', join(ROOT, 'test/fixtures/agents/unreachable-mcp-agent.ts')], { BUILDFLEET_FETCH_ALLOWLIST: 'http://127.0.0.1:9' });
    expect(code).toBe(1);
    expect(out).toMatch(/^buildfleet agent check: .*fetch failed|ECONNREFUSED/);
  });
});
