import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileAgent, AgentDefinitionError, type McpListing } from './compile-agent.js';
import { defineAgent, defineTool, httpTool, mcpTools, type AgentDefinition } from './define-agent.js';
import { after, atLeast, missingOf, planDone } from './finish-rules.js';

const lookup = defineTool({ name: 'lookup', description: 'Looks a thing up.', input: z.strictObject({ q: z.string() }), effect: 'read' });
const order = httpTool({
  name: 'order',
  description: 'Orders it.',
  input: z.strictObject({ what: z.string() }),
  effect: 'write',
  url: 'http://127.0.0.1:9/order',
  output: { schema: z.strictObject({ id: z.string() }), mode: 'fail_closed' },
});

function definition(overrides: Partial<AgentDefinition> = {}): AgentDefinition {
  return defineAgent({
    name: 'desk',
    description: 'A desk.',
    input: z.strictObject({ q: z.string() }),
    firstMessage: (input) => `Find ${(input as { q: string }).q}.`,
    phases: { looking: { tools: ['lookup'] }, ordering: { tools: ['lookup', 'order'] } },
    tools: [lookup, order],
    transitions: [{ from: 'looking', on: 'lookup', to: 'ordering' }],
    finishGate: (view) => missingOf(view, [atLeast(1, 'order')]),
    systemPrompt: 'You are a desk.',
    implementations: 'file:///nowhere.js',
    ...overrides,
  });
}

const fillers = (count: number) =>
  Array.from({ length: count }, (_, index) => defineTool({ name: `tool_${index}`, description: 'A tool.', input: z.strictObject({}), effect: 'read' }));

describe('compileAgent', () => {
  it('makes the agent: tiers with finish_turn, effects, the first phase, transitions and the input', () => {
    const agent = compileAgent(definition());
    expect(agent.phases).toEqual(['looking', 'ordering']);
    expect(agent.initialPhase).toBe('looking');
    expect(agent.tier('looking')).toEqual(['lookup', 'finish_turn']);
    expect(agent.tier('nowhere')).toEqual([]);
    expect(agent.isWrite('order')).toBe(true);
    expect(agent.isWrite('lookup')).toBe(false);
    expect(agent.tools.get('finish_turn')?.source).toBe('fleet');
    expect(agent.tools.get('order')?.source).toBe('http');
    expect(agent.tools.get('lookup')?.inputJsonSchema).toMatchObject({ type: 'object', required: ['q'], additionalProperties: false });
    expect(agent.transitionAfter({ phase: 'looking', tool: 'lookup', output: {}, todos: [] })).toBe('ordering');
    expect(agent.transitionAfter({ phase: 'ordering', tool: 'lookup', output: {}, todos: [] })).toBeNull();
    expect(agent.parseInput({ q: 'bread' })).toEqual({ ok: true, firstMessage: 'Find bread.' });
    expect(agent.parseInput({ q: 3 })).toMatchObject({ ok: false });
    expect(agent.systemPrompt({ phase: 'ordering' })).toMatch(/^You are a desk\.\n[\s\S]*untrusted[\s\S]*Current phase: ordering\.$/);
    // The same definition, the same fingerprint; another prompt, another.
    expect(compileAgent(definition()).fingerprint).toBe(agent.fingerprint);
    expect(compileAgent(definition({ systemPrompt: 'You are another desk.' })).fingerprint).not.toBe(agent.fingerprint);
  });

  it("refuses a TypeScript tool's output contract that is not one", () => {
    const withOutput = (output: unknown) =>
      defineTool({ name: 'lookup', description: 'Looks a thing up.', input: z.strictObject({ q: z.string() }), effect: 'read', output: output as never });
    expect(() => compileAgent(definition({ tools: [withOutput({ schema: z.string(), mode: 'maybe' }), order] }))).toThrow('output.mode must be one of fail_closed, degrade');
    expect(() => compileAgent(definition({ tools: [withOutput({ schema: {}, mode: 'degrade' }), order] }))).toThrow('output.schema must be a zod schema');
    expect(() => compileAgent(definition({ tools: [withOutput({ schema: z.string(), mode: 'degrade', invariants: [{ name: 'Bad Name', check: () => true }] }), order] }))).toThrow(
      'each output invariant needs a snake_case name',
    );
    const fine = compileAgent(definition({ tools: [withOutput({ schema: z.string(), mode: 'degrade' }), order] }));
    expect(fine.tools.get('lookup')!.typescript?.output?.mode).toBe('degrade');
  });

  it("refuses a TypeScript tool's timeout outside 1 s to 10 min, and keeps what the definition declares", () => {
    const timed = (timeoutMs: number) => defineTool({ name: 'lookup', description: 'Looks a thing up.', input: z.strictObject({ q: z.string() }), effect: 'read', timeoutMs });
    expect(() => compileAgent(definition({ tools: [timed(500), order] }))).toThrow('tool lookup: timeoutMs must be a whole number from 1000 to 600000, not 500');
    expect(() => compileAgent(definition({ tools: [timed(600_001), order] }))).toThrow(AgentDefinitionError);
    expect(compileAgent(definition({ tools: [timed(5000), order] })).tools.get('lookup')!.typescript).toEqual({ timeoutMs: 5000 });
    expect(compileAgent(definition()).tools.get('lookup')!.typescript).toEqual({});
  });

  it('gives an MCP tool another fingerprint on another server, so a tool job is not run against the wrong one', () => {
    const listing: McpListing = new Map([['lookup', { description: 'Looks a thing up.', inputJsonSchema: { type: 'object' }, validator: z.object({}) }]]);
    const fingerprintOn = (server: { url: string } | { command: string; args?: string[] }) => {
      const tools = mcpTools({ server, tools: { lookup: { effect: 'read' } } });
      return compileAgent(definition({ tools: [tools, order] }), new Map([[tools, listing]])).tools.get('lookup')!.fingerprint;
    };
    expect(fingerprintOn({ url: 'http://127.0.0.1:9/mcp' })).toBe(fingerprintOn({ url: 'http://127.0.0.1:9/mcp' }));
    expect(fingerprintOn({ url: 'http://127.0.0.1:9/mcp' })).not.toBe(fingerprintOn({ url: 'http://127.0.0.1:10/mcp' }));
    expect(fingerprintOn({ command: 'menu-server', args: ['--shop', 'a'] })).not.toBe(fingerprintOn({ command: 'menu-server', args: ['--shop', 'b'] }));
  });

  it('refuses a phase of more than 13 tools, citing why, unless the definition lifts the limit with a reason', () => {
    const many = fillers(13);
    const crowded = definition({ phases: { looking: { tools: many.map((tool) => tool.name) } }, tools: many, transitions: [] });
    expect(() => compileAgent(crowded)).toThrow(AgentDefinitionError);
    expect(() => compileAgent(crowded)).toThrow(/phase looking would offer 14 tools in one request; the limit is 13.*47 tools.*experiment tiers/);
    expect(compileAgent({ ...crowded, largeTiers: { maxTools: 14, reason: 'measured: our model keeps calling natively at 14' } }).tier('looking')).toHaveLength(14);
    expect(() => compileAgent({ ...crowded, largeTiers: { maxTools: 14, reason: '' } })).toThrow(/reason/);
  });

  it.each<[string, Partial<AgentDefinition>, RegExp]>([
    ['a bad name', { name: 'Desk!' }, /name must match/],
    ['a phase offering a tool nobody defines', { phases: { looking: { tools: ['lookup', 'ghost'] }, ordering: { tools: ['order'] } } }, /offers "ghost"/],
    ['a tool in no phase', { phases: { looking: { tools: ['lookup'] } }, transitions: [] }, /tool order is in no phase/],
    ['a phase no transition reaches', { transitions: [] }, /no transition reaches phase ordering/],
    ['a transition from a phase it lacks', { transitions: [{ from: 'paying', on: 'lookup', to: 'ordering' }] }, /starts from phase "paying"/],
    ['a transition on a tool its phase lacks', { transitions: [{ from: 'looking', on: 'order', to: 'ordering' }] }, /on order, which that phase does not offer/],
    ['two tools of one name', { tools: [lookup, lookup, order] }, /two tools are named lookup/],
    ['a tool named like a fleet tool', { tools: [lookup, order, defineTool({ ...lookup, name: 'finish_turn' })] }, /one of the fleet's own tools/],
    ['TypeScript tools without implementations', { implementations: undefined }, /must name the module of their implementations/],
    ['planFirst without todo_write first', { planFirst: true }, /planFirst needs todo_write/],
    ['a non-object input schema', { tools: [defineTool({ ...lookup, input: z.string() as never }), order] }, /must be an object schema/],
  ])('refuses %s, naming it', (_, overrides, message) => {
    expect(() => compileAgent(definition(overrides))).toThrow(message);
  });
});

describe('finish rules', () => {
  const view = (calls: Array<[string, boolean, string?]>, todos: Array<{ id: string; done: boolean }> = []) => ({
    trail: calls.map(([tool, ok, phase = 'p']) => ({ tool, ok, phase })),
    todos: todos.map((todo) => ({ ...todo, title: todo.id })),
    deployments: { latest: null, live: null },
  });

  it('counts successful calls, in a phase when asked', () => {
    expect(atLeast(2, 'write')(view([['write', true], ['write', false]]))).toMatch(/at least 2 times \(1 so far\)/);
    expect(atLeast(2, 'write')(view([['write', true], ['write', true]]))).toBeNull();
    expect(atLeast(1, 'write', { phase: 'b' })(view([['write', true, 'a']]))).toMatch(/while b/);
  });

  it('wants a call after the last change', () => {
    expect(after('deploy', ['write'])(view([['write', true]]))).toBe('Call deploy.');
    expect(after('deploy', ['write'])(view([['write', true], ['deploy', true]]))).toBeNull();
    expect(after('deploy', ['write'])(view([['deploy', true], ['write', true]]))).toMatch(/again: write/);
    expect(after('deploy', ['write'])(view([['deploy', true], ['write', false]]))).toBeNull();
  });

  it('wants a plan with every todo done', () => {
    expect(planDone(view([]))).toMatch(/plan first/);
    expect(planDone(view([], [{ id: 'a', done: true }, { id: 'b', done: false }]))).toMatch(/"b"/);
    expect(missingOf(view([], [{ id: 'a', done: true }]), [planDone, atLeast(1, 'x')])).toEqual(['Call x successfully at least 1 time (0 so far).']);
  });
});
