// `experiment crash --agent order-desk` (issue #33): the crash experiment's builds replaced by runs
// of the example agent (examples/order-desk), whose one write is an HTTP tool — so what is audited
// is an effect outside the fleet, at the service that makes it. The example's menu server (MCP)
// and order service run in this process (the workers are what gets killed); the simulator answers
// from the example's script; every role loads the agent from BUILDFLEET_AGENT_MODULES.
//
// The audit: for each run, the orders the service placed against the place_order calls the run
// recorded. A duplicated effect is more orders than recorded calls, or an order for a call the run
// never recorded (a turn made again under a new tool_use id: a second order from the customer's
// point of view); attempts the service received beyond the orders are retries it deduplicated by
// the idempotency key, the mechanism doing its work.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunEngine } from '../engine/index.js';
import { PROJECT_ROOT } from './spawn-role.js';

export const CRASH_AGENTS = ['order-desk'] as const;
export type CrashAgent = (typeof CRASH_AGENTS)[number];

const EXAMPLE = join(PROJECT_ROOT, 'examples', 'order-desk');

export interface AgentEffectAudit {
  placeOrderCalls: number;
  orders: number;
  /** Requests the order service received: attempts of the calls, repeats included. */
  serviceRequests: number;
  duplicates: string[];
}

export interface CrashAgentSetup {
  env: NodeJS.ProcessEnv;
  /** Arguments for the simulator role. */
  simulatorArgs: string[];
  runBody(index: number): Record<string, unknown>;
  audit(store: RunEngine, runIds: readonly string[]): Promise<AgentEffectAudit>;
  close(): Promise<void>;
}

interface OrderServiceModule {
  startOrderService(options: { fleetSecret: string }): Promise<{
    url: string;
    origin: string;
    orders(): Array<{ run_id: string; tool_use_id: string }>;
    requests(): number;
    close(): Promise<void>;
  }>;
}
interface MenuServerModule {
  startMenuServer(): Promise<{ url: string; origin: string; close(): Promise<void> }>;
}

/** Starts the example's services and says how the experiment's fleet runs and audits the agent.
 * The modules are imported by path at run time: the example is not part of the fleet's code. */
export async function setUpCrashAgent(agent: CrashAgent): Promise<CrashAgentSetup> {
  const fleetSecret = 'crash-experiment-'.padEnd(64, '0');
  const { startOrderService } = (await import(pathToFileURL(join(EXAMPLE, 'order-service.ts')).href)) as OrderServiceModule;
  const { startMenuServer } = (await import(pathToFileURL(join(EXAMPLE, 'menu-server.ts')).href)) as MenuServerModule;
  const orders = await startOrderService({ fleetSecret });
  const menu = await startMenuServer();
  return {
    env: {
      BUILDFLEET_AGENT_MODULES: join(EXAMPLE, 'agent.ts'),
      ORDER_DESK_MENU_MCP_URL: menu.url,
      ORDER_DESK_ORDERS_URL: orders.url,
      BUILDFLEET_FETCH_ALLOWLIST: `${menu.origin},${orders.origin}`,
      BUILDFLEET_WEBHOOK_SECRET: fleetSecret,
    },
    simulatorArgs: ['--script', join(EXAMPLE, 'script.json')],
    runBody: (index) => ({
      agent,
      input: {
        customer: `Customer ${index}`,
        items: [
          { item: 'sourdough', quantity: 2 },
          { item: 'croissant', quantity: 6 },
        ],
      },
    }),
    async audit(store, runIds) {
      const placed = orders.orders();
      const audit: AgentEffectAudit = { placeOrderCalls: 0, orders: placed.length, serviceRequests: orders.requests(), duplicates: [] };
      for (const runId of runIds) {
        const calls = (await store.getTrail(runId)).filter((entry) => entry.tool === 'place_order' && entry.ok).map((entry) => entry.toolUseId);
        audit.placeOrderCalls += calls.length;
        const ofRun = placed.filter((order) => order.run_id === runId);
        for (const order of ofRun) {
          if (!calls.includes(order.tool_use_id)) audit.duplicates.push(`${runId}: an order for ${order.tool_use_id}, a call the run did not record`);
        }
        // The service keys orders by the call's idempotency key, so one call cannot place two: a
        // second order of a run comes from a second call, which the count against its calls shows.
        if (ofRun.length > calls.length) audit.duplicates.push(`${runId}: ${ofRun.length} orders for ${calls.length} recorded call(s)`);
      }
      return audit;
    },
    async close() {
      await Promise.all([orders.close(), menu.close()]);
    },
  };
}
