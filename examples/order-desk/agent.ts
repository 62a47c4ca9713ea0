// An example agent of another shape than the site builder (issue #33 item 5; docs/agents.md): an
// order desk for a bakery that takes a customer's list of items, looks their prices up on the
// bakery's menu server (an MCP server) and places the order with the bakery's order service (an
// HTTP tool). It has no TypeScript tool at all — every tool is remote — its own two phases and its
// own finish gate. Deployed like any agent: BUILDFLEET_AGENT_MODULES=examples/order-desk/agent.ts
// in every role, with the two services' addresses in ORDER_DESK_MENU_MCP_URL and
// ORDER_DESK_ORDERS_URL, and both origins on BUILDFLEET_FETCH_ALLOWLIST when they are private.
import { z } from 'zod';
import { after, atLeast, defineAgent, httpTool, mcpTools, missingOf } from '../../src/agents/index.js';

function requiredUrl(variable: string): string {
  const value = process.env[variable];
  if (!value) throw new Error(`the order desk agent needs ${variable}: the address of its service (docs/agents.md#the-example-agent)`);
  return value;
}

/** What the order service answers for a placed order. */
export const placedOrderSchema = z.strictObject({
  order_id: z.string().regex(/^ord_[a-z0-9]{8,40}$/),
  total: z.number().positive(),
  lines: z.int().min(1),
});

const orderLine = z.strictObject({
  item: z.string().min(1).max(60),
  quantity: z.int().min(1).max(50),
  unit_price: z.number().positive().describe('The price lookup_price gave for the item'),
});

export default defineAgent({
  name: 'order-desk',
  description: "Prices a customer's bakery order on the menu server and places it with the order service.",
  input: z.strictObject({
    customer: z.string().min(1).max(100),
    items: z.array(z.strictObject({ item: z.string().min(1).max(60), quantity: z.int().min(1).max(50) })).min(1).max(10),
  }),
  firstMessage: ({ customer, items }) =>
    `Order for ${customer}:\n${items.map(({ item, quantity }) => `- ${quantity} × ${item}`).join('\n')}\n` +
    'Look up the price of every item, then place the order once with all its lines.',
  phases: {
    quoting: { tools: ['lookup_price'], instructions: 'Look up the price of every item of the order with lookup_price.' },
    ordering: { tools: ['lookup_price', 'place_order'], instructions: 'Place the order once, with every line and the prices you looked up.' },
  },
  tools: [
    mcpTools({ server: { url: requiredUrl('ORDER_DESK_MENU_MCP_URL') }, tools: { lookup_price: { effect: 'read' } } }),
    httpTool({
      name: 'place_order',
      description: "Places the customer's order with the bakery, all lines at once. Call it once per order.",
      input: z.strictObject({ customer: z.string().min(1).max(100), lines: z.array(orderLine).min(1).max(10) }),
      effect: 'write',
      url: requiredUrl('ORDER_DESK_ORDERS_URL'),
      output: {
        schema: placedOrderSchema,
        invariants: [{ name: 'every_line_ordered', check: (output, { input }) => output.lines === (input as { lines: unknown[] }).lines.length }],
        mode: 'fail_closed',
      },
    }),
  ],
  transitions: [{ from: 'quoting', on: 'lookup_price', to: 'ordering' }],
  finishGate: (view) =>
    missingOf(view, [
      atLeast(1, 'place_order', { phase: 'ordering', say: 'Place the order with place_order.' }),
      after('place_order', ['lookup_price'], { say: 'A price was looked up after the order was placed: place the order with every price.' }),
    ]),
  systemPrompt: [
    'You are the order desk of a bakery. You price a customer order on the menu and place it.',
    'Use lookup_price for every item, then place_order once with every line; then call finish_turn.',
  ].join('\n'),
  defaults: { maxTurns: 12 },
});
