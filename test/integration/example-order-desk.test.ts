// The example agent (examples/order-desk, issue #33 item 5) end to end: loaded from its module by
// BUILDFLEET_AGENT_MODULES as an operator deploys it, submitted through POST /v1/runs with its own
// input, driven by a scripted conversation over the real SDK and queues, its tools remote only — a
// real MCP server (Streamable HTTP) and a real HTTP service, both on loopback. Its phases, its
// tiers, its finish gate and the fleet's guarantees for a remote write: one order per call, an
// HTML maintenance page failed closed, and the kill switch tripped for that service alone.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readConversationScript, type ConversationScript } from '../../src/sim/conversation-script.js';
import { startMenuServer, type MenuServer } from '../../examples/order-desk/menu-server.js';
import { startOrderService, type OrderService } from '../../examples/order-desk/order-service.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'order-desk');
const SCRIPT = readConversationScript(join(EXAMPLE, 'script.json'));
const FLEET_SECRET = 'o'.repeat(64);
const ORDER = { customer: 'Ada', items: [{ item: 'sourdough', quantity: 2 }, { item: 'croissant', quantity: 6 }] };

let menu: MenuServer;
let orders: OrderService;
let harness: InProcessFleet | undefined;

beforeAll(async () => {
  menu = await startMenuServer();
  orders = await startOrderService({ fleetSecret: FLEET_SECRET });
  process.env.ORDER_DESK_MENU_MCP_URL = menu.url;
  process.env.ORDER_DESK_ORDERS_URL = orders.url;
});
afterAll(async () => {
  await harness?.close();
  await menu?.close();
  await orders?.close();
  delete process.env.ORDER_DESK_MENU_MCP_URL;
  delete process.env.ORDER_DESK_ORDERS_URL;
});

async function fleetWith(script: ConversationScript, label: string, env: Record<string, string> = {}): Promise<InProcessFleet> {
  await harness?.close();
  harness = await startInProcessFleet({
    label,
    simulator: { script },
    env: {
      BUILDFLEET_AGENT_MODULES: join(EXAMPLE, 'agent.ts'),
      BUILDFLEET_FETCH_ALLOWLIST: `${menu.origin},${orders.origin}`,
      BUILDFLEET_WEBHOOK_SECRET: FLEET_SECRET,
      ...env,
    },
  });
  return harness;
}

async function api(fleet: InProcessFleet, method: string, path: string, body?: unknown) {
  const response = await fetch(`${fleet.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${fleet.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('the order desk, an agent of remote tools only', () => {
  it('runs end to end from POST /v1/runs: its phases and tiers, one order placed, its gate passed', async () => {
    const fleet = await fleetWith(SCRIPT, 'orderdesk');
    const agents = await api(fleet, 'GET', '/v1/agents');
    const desk = agents.body.agents.find((agent: { name: string }) => agent.name === 'order-desk');
    expect(desk).toMatchObject({
      default: false,
      phases: [
        { name: 'quoting', tools: ['lookup_price', 'finish_turn'] },
        { name: 'ordering', tools: ['lookup_price', 'place_order', 'finish_turn'] },
      ],
    });
    expect(desk.tools.map((tool: { name: string; kind: string; effect: string }) => `${tool.name}:${tool.kind}:${tool.effect}`)).toEqual([
      'lookup_price:mcp:read',
      'finish_turn:fleet:read',
      'place_order:http:write',
    ]);

    const created = await api(fleet, 'POST', '/v1/runs', { agent: 'order-desk', input: ORDER });
    expect(created.status).toBe(202);
    const run = await fleet.waitForRun(created.body.id, 60_000);
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded');
    expect(run.agent).toBe('order-desk');
    // The agent's default, as the request named no maxTurns.
    expect(run.maxTurns).toBe(12);
    const trail = await fleet.fleet.store.getTrail(run.id);
    expect(trail.map((entry) => `${entry.phase}:${entry.tool}:${entry.ok}`)).toEqual([
      'quoting:lookup_price:true',
      'quoting:lookup_price:true',
      'ordering:place_order:true',
      'ordering:finish_turn:true',
    ]);
    // One order, priced from the menu, made by this run's one place_order call.
    const placed = orders.orders().filter((order) => order.run_id === run.id);
    expect(placed).toHaveLength(1);
    expect(placed[0]).toMatchObject({ customer: 'Ada', total: 27.4, lines: 2 });
    expect(orders.refused()).toBe(0);
    expect(menu.calls()).toBeGreaterThanOrEqual(2);
    // The view names the agent and its phase; every model request was the script's.
    const view = await api(fleet, 'GET', `/v1/runs/${run.id}`);
    expect(view.body).toMatchObject({ agent: 'order-desk', phase: 'ordering', status: 'succeeded' });
    expect(fleet.simulator.requests.filter((request) => request.path === '/v1/messages' && request.status === 200).map((request) => request.source)).toEqual(
      SCRIPT.turns.map(() => 'script'),
    );

    // A rerun with no edits starts the agent again from the original's input, kept on the record.
    expect((await fleet.fleet.store.getRun(run.id))?.input).toEqual(ORDER);
    const rerun = await api(fleet, 'POST', `/v1/runs/${run.id}/rerun`, {});
    expect(rerun.status, JSON.stringify(rerun.body)).toBe(202);
    const again = await fleet.waitForRun(rerun.body.id, 60_000);
    expect(again.status, JSON.stringify(again.error)).toBe('succeeded');
    expect(again).toMatchObject({ agent: 'order-desk', rerunOf: run.id, input: ORDER, prompt: run.prompt });
    expect(orders.orders().filter((order) => order.run_id === again.id)).toHaveLength(1);
  }, 120_000);

  it('holds the run to its own finish gate: a finish before the order is refused with what is missing', async () => {
    const early = { content: [{ type: 'tool_use' as const, name: 'finish_turn', input: { summary: 'Done already.' } }] };
    const script = { turns: [SCRIPT.turns[0]!, early, ...SCRIPT.turns.slice(1)] };
    const fleet = await fleetWith(script, 'orderdeskgate');
    const created = await api(fleet, 'POST', '/v1/runs', { agent: 'order-desk', input: ORDER });
    const run = await fleet.waitForRun(created.body.id, 60_000);
    expect(run.status).toBe('succeeded');
    const trail = await fleet.fleet.store.getTrail(run.id);
    const finishes = trail.filter((entry) => entry.tool === 'finish_turn');
    expect(finishes.map((entry) => entry.ok)).toEqual([false, true]);
    const refused = await fleet.fleet.store.getStoredToolResult(run.id, finishes[0]!.toolUseId);
    expect(JSON.stringify(refused)).toContain('Place the order with place_order.');
  }, 90_000);

  it('refuses an unknown agent and an input off its schema, creating nothing', async () => {
    const fleet = await fleetWith(SCRIPT, 'orderdeskinput');
    const unknown = await api(fleet, 'POST', '/v1/runs', { agent: 'bread-oven', input: ORDER });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('unknown_agent');
    expect(unknown.body.error.message).toContain('order-desk');
    const invalid = await api(fleet, 'POST', '/v1/runs', { agent: 'order-desk', input: { customer: 'Ada', items: [] } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('agent_input_invalid');
    expect(invalid.body.error.message).toContain('items');
    const both = await api(fleet, 'POST', '/v1/runs', { agent: 'order-desk', input: ORDER, prompt: 'two loaves' });
    expect(both.body.error).toMatchObject({ code: 'invalid_body', message: expect.stringContaining('not both') });
    // The builder is the default agent, and `prompt` is its input's shorthand.
    const builder = await api(fleet, 'POST', '/v1/runs', { input: { prompt: 'A bakery site.' } });
    expect(builder.status).toBe(202);
    expect((await api(fleet, 'GET', `/v1/runs/${builder.body.id}`)).body.agent).toBe('site-builder');
    const listed = await api(fleet, 'GET', '/v1/runs?limit=10');
    expect(listed.body.runs).toHaveLength(1);
  }, 90_000);

  it('fails an HTML maintenance page from the order service closed, and two tenants of them trip that service alone', async () => {
    const fleet = await fleetWith(SCRIPT, 'orderdeskkill', {
      BUILDFLEET_KILLSWITCH_MIN_VOLUME: '2',
      BUILDFLEET_KILLSWITCH_THRESHOLD: '0.5',
      BUILDFLEET_KILLSWITCH_UPSTREAM_MIN_TENANTS: '2',
      BUILDFLEET_KILLSWITCH_FLEET_MIN_TENANTS: '3',
    });
    orders.setMaintenance(true);
    try {
      for (const tenant of ['tenant-b', 'tenant-c']) {
        const created = await fleet.submit({ tenant, agent: 'order-desk', prompt: 'Order for Ada: 2 sourdough, 6 croissants.' });
        const run = await fleet.waitForRun(created.id, 60_000);
        expect(run.status).toBe('failed');
        expect(run.error?.code).toBe('invalid_tool_output');
        // The run ends first and the call's ledger entry lands after (answer-invalid-output.ts).
        await vi.waitFor(async () => {
          const trail = await fleet.fleet.store.getTrail(run.id);
          expect(trail.map((entry) => `${entry.tool}:${entry.ok}`)).toEqual(['lookup_price:true', 'lookup_price:true', 'place_order:false']);
        }, { timeout: 10_000 });
      }
    } finally {
      orders.setMaintenance(false);
    }
    const state = await api(fleet, 'GET', '/v1/admin/killswitch');
    expect(state.body.mode).toBe('read_write');
    const tripped = state.body.scopes.map((scope: { scope: string; mode: string }) => `${scope.scope}:${scope.mode}`);
    expect(tripped).toContain(`upstream:place_order:${new URL(orders.origin).host}:read_only`);
    // The menu server, whose answers were valid, is not tripped, nor is the fleet.
    expect(tripped.filter((scope: string) => scope.includes(new URL(menu.origin).host))).toEqual([]);
    expect(tripped.filter((scope: string) => scope.startsWith('fleet'))).toEqual([]);
  }, 120_000);
});
