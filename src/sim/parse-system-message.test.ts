// Mid-conversation system messages and tool changes through the real SDK (docs
// build-with-claude/mid-conversation-system-messages): where they may sit, on which models, what
// the model may call after them, and that appending one keeps the cached prefix.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseMessagesRequest } from './parse-messages-request.js';
import { lookupModel } from './model-catalog.js';
import { MID_CONVERSATION_TOOL_CHANGES_BETA, parseSystemMessage } from './parse-system-message.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());
beforeEach(() => simulator.promptCache.clear());

const OFF = { 'x-buildfleet-text-calls': 'off' };
const BETA = { ...OFF, 'anthropic-beta': MID_CONVERSATION_TOOL_CHANGES_BETA };
const MODEL = 'claude-sonnet-5-5';
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: `the ${name} tool`, input_schema: { type: 'object' as const, properties: {} }, ...extra });
const reference = (name: string) => ({ type: 'tool_reference', name });
const BRIEF = { role: 'user' as const, content: 'Build a site for Luna Bakery.' };

type Body = Record<string, unknown>;
function send(body: Body, headers: Record<string, string> = OFF) {
  return client.messages.create({ model: MODEL, max_tokens: 4000, ...body } as unknown as Anthropic.MessageCreateParamsNonStreaming, { headers });
}
async function refusal(body: Body, headers: Record<string, string> = OFF): Promise<string> {
  const error = await send(body, headers).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  return (error as InstanceType<typeof Anthropic.BadRequestError>).message;
}
const calledTools = (message: Anthropic.Message) => message.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : []));

describe('mid-conversation system messages', () => {
  it('are accepted after a user turn, as a string or text blocks, with no beta header', async () => {
    for (const content of ['Use British spelling from now on.', [{ type: 'text', text: 'Use British spelling from now on.' }]]) {
      expect((await send({ messages: [BRIEF, { role: 'system', content }] })).type).toBe('message');
    }
  });

  it('are refused on a model without them', async () => {
    for (const model of ['claude-sonnet-5', 'claude-sonnet-4-6']) {
      expect(await refusal({ model, messages: [BRIEF, { role: 'system', content: 'Be brief.' }] })).toContain("messages.1: role 'system' is not supported on this model");
    }
  });

  it('are refused out of place: first, after an assistant turn, before a user turn, between a tool_use and its result', async () => {
    const toolUse = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'todo_write', input: {} }] };
    const toolResult = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] };
    const system = { role: 'system', content: 'Be brief.' };
    expect(await refusal({ messages: [system, BRIEF] })).toContain('messages.0: a system message cannot be the first message');
    expect(await refusal({ messages: [BRIEF, { role: 'assistant', content: 'Hello.' }, system] })).toContain('messages.2: a system message must follow a user turn');
    expect(await refusal({ messages: [BRIEF, system, { role: 'user', content: 'More.' }] })).toContain('messages.1: a system message must precede an assistant turn');
    expect(await refusal({ tools: [tool('todo_write')], messages: [BRIEF, toolUse, system, toolResult] })).toContain(
      'messages.2: a system message cannot come between a tool_use and its tool_result',
    );
    // After a tool_result turn and before the next assistant turn it is in place.
    const placed = await send({ tools: [tool('todo_write')], messages: [BRIEF, toolUse, toolResult, system, { role: 'assistant', content: 'Noted.' }, { role: 'user', content: 'Go on.' }] });
    expect(placed.type).toBe('message');
  });

  it('the latest system message is the instructions in force, over earlier ones and the top-level system', () => {
    const body = (messages: unknown[]) => ({ model: MODEL, max_tokens: 100, system: 'Top-level rules.', messages });
    const parsed = (messages: unknown[]) => {
      const result = parseMessagesRequest({ body: body(messages) });
      if (!result.ok) throw new Error(result.message);
      return result.request;
    };
    expect(parsed([BRIEF]).instructions).toBe('Top-level rules.');
    const later = parsed([BRIEF, { role: 'system', content: 'First.' }, { role: 'assistant', content: 'Ok.' }, { role: 'user', content: 'Next.' }, { role: 'system', content: 'Second.' }]);
    expect(later.instructions).toBe('Second.');
    // The turns alternate around the system messages, which the policy never sees as turns.
    expect(later.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('appending one after a cached prefix reads that prefix: it is part of the prompt in message order', async () => {
    const brief = { role: 'user', content: [{ type: 'text', text: 'Build a site for Luna Bakery. '.repeat(120), cache_control: { type: 'ephemeral' } }] };
    const first = await send({ messages: [brief] });
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(512);
    const appended = await send({ messages: [brief, { role: 'system', content: [{ type: 'text', text: 'Now switch to a dark theme.', cache_control: { type: 'ephemeral' } }] }] });
    expect(appended.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(appended.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });
});

describe('mid-conversation tool changes (beta)', () => {
  const tools = [tool('todo_write'), tool('set_colors'), tool('write_file'), tool('finish_turn')];

  it('a removed tool is never called, an added one may be, and the top-level tools stay the same', async () => {
    const removal = { role: 'system', content: [{ type: 'tool_removal', tool: reference('todo_write') }] };
    const withoutPlanning = await send({ tools, messages: [BRIEF, removal] }, BETA);
    expect(calledTools(withoutPlanning)).not.toContain('todo_write');
    expect(calledTools(withoutPlanning).length).toBeGreaterThan(0);

    const addedBack = await send({ tools, messages: [BRIEF, removal, { role: 'system', content: [{ type: 'tool_addition', tool: reference('todo_write') }] }] }, BETA);
    expect(calledTools(addedBack)).toEqual(['todo_write']);
  });

  it('a deferred tool is withheld until a tool_addition surfaces it', async () => {
    const deferred = [tool('todo_write', { defer_loading: true }), tool('finish_turn')];
    expect(calledTools(await send({ tools: deferred, messages: [BRIEF] }, BETA))).not.toContain('todo_write');
    const surfaced = await send({ tools: deferred, messages: [BRIEF, { role: 'system', content: [{ type: 'tool_addition', tool: reference('todo_write') }] }] }, BETA);
    expect(calledTools(surfaced)).toEqual(['todo_write']);
  });

  it('refuses an undeclared name, a missing beta header, a model without tool changes, and a change outside a system message', async () => {
    const change = (name: string) => ({ role: 'system', content: [{ type: 'tool_removal', tool: reference(name) }] });
    expect(await refusal({ tools, messages: [BRIEF, change('deploy')] }, BETA)).toContain("messages.1.content.0.tool.name: Tool 'deploy' not found in the provided tools");
    expect(await refusal({ tools, messages: [BRIEF, change('todo_write')] })).toContain(
      "messages.1.content.0: Input tag 'tool_removal' found using 'type' does not match any of the expected tags: 'text'",
    );
    // Haiku 4.5 has no system messages at all; none of the served models has system messages without tool changes.
    expect(await refusal({ model: 'claude-haiku-4-5', tools, messages: [BRIEF, change('todo_write')] }, BETA)).toContain("role 'system' is not supported on this model");
    expect(await refusal({ tools, messages: [{ role: 'user', content: [{ type: 'tool_addition', tool: reference('todo_write') }] }] }, BETA)).toContain(
      'tool_addition blocks are only allowed in system messages',
    );
  });

  it('on a model with system messages but not tool changes, a change is refused in the API’s words', () => {
    // No served model is like that today (model-catalog.ts), so the catalog entry is bent here.
    const model = { ...lookupModel({ model: MODEL })!, midConversationToolChanges: false };
    const messages = [BRIEF, { role: 'system', content: [{ type: 'tool_addition', tool: reference('todo_write') }] }];
    expect(() => parseSystemMessage({ messages, index: 1, model, betas: [MID_CONVERSATION_TOOL_CHANGES_BETA], declaredTools: ['todo_write'] })).toThrow(
      'messages.1.content.0: tool_addition/tool_removal is not supported on this model',
    );
  });
});
