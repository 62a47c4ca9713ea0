// Thinking blocks bound to their model and conversation, through the real SDK (screen-thinking-blocks.ts).
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_DEFAULT_MODEL } from './model-catalog.js';
import { runSimulatedConversation } from './simulated-conversation.js';
import type { RunningSimulator } from './simulator-server.js';
import { rawMessages } from './testing/raw-messages.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
let api: ReturnType<typeof rawMessages>;
beforeAll(async () => {
  ({ simulator, client } = await startSimulatorWithClient());
  api = rawMessages({ client });
});
afterAll(() => simulator.close());

const TOOLS = [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }];
const BRIEF = { role: 'user', content: 'Build a site for Luna Bakery.' };
const BETA = { 'anthropic-beta': 'thinking-binding-controls-2026-08-01' };
const DROP = { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } };
const MISMATCH =
  'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, ' +
  'or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".';

/** A first answer of `model` and the request that continues it with the tool results. */
async function firstTurn(model: string, extra: Record<string, unknown> = {}) {
  const answer = await api.send({ model, max_tokens: 4096, system: 'You build sites.', messages: [BRIEF], tools: TOOLS, ...extra });
  const toolUse = answer.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
  return {
    answer,
    continuation: (messages: unknown[] = [BRIEF]) => ({
      max_tokens: 4096,
      system: 'You build sites.',
      tools: TOOLS,
      messages: [...messages, { role: 'assistant', content: answer.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.id, content: 'ok' }] }],
    }),
  };
}

describe('thinking blocks bound to model and conversation', () => {
  it('a tampered signature is refused without a reason clause', async () => {
    const { answer, continuation } = await firstTurn('claude-opus-5-5');
    const request = continuation();
    const content = answer.content.map((block, index) => (index === 0 ? { ...block, signature: `${(block as Anthropic.ThinkingBlock).signature.slice(0, -8)}AAAAAAA=` } : block));
    (request.messages[1] as { content: unknown }).content = content;
    expect((await api.failure({ model: 'claude-opus-5-5', ...request })).message).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
  });

  it('an unchanged prefix passes; dropping leading thinking blocks, moving cache_control and changing effort do not invalidate', async () => {
    const { answer, continuation } = await firstTurn('claude-opus-5-5');
    expect((await api.send({ model: 'claude-opus-5-5', ...continuation() })).type).toBe('message');
    const withoutFirst = continuation();
    (withoutFirst.messages[1] as { content: unknown }).content = answer.content.slice(1);
    expect((await api.send({ model: 'claude-opus-5-5', ...withoutFirst, output_config: { effort: 'low' } })).type).toBe('message');
    const moved = continuation([{ role: 'user', content: [{ type: 'text', text: 'Build a site for Luna Bakery.', cache_control: { type: 'ephemeral' } }] }]);
    expect((await api.send({ model: 'claude-opus-5-5', ...moved })).type).toBe('message');
  });

  it('an edited prefix is refused on prefix-bound models, with the beta sentence when the header is absent', async () => {
    const { continuation } = await firstTurn('claude-sonnet-5-5');
    const beforeIt = { model: 'claude-sonnet-5-5', ...continuation([{ role: 'user', content: 'Build a site for Sol Bakery.' }]) };
    expect((await api.failure(beforeIt)).message).toBe(
      `${MISMATCH} That setting requires the \`thinking-binding-controls-2026-08-01\` value in the \`anthropic-beta\` header.`,
    );
    expect((await api.failure(beforeIt, BETA)).message).toBe(MISMATCH);
    expect((await api.failure({ model: 'claude-sonnet-5-5', ...continuation(), system: 'You build shops.' })).status).toBe(400);
    // Sonnet 4.6 binds no prefix: the same edit passes.
    const older = await firstTurn('claude-sonnet-4-6', { thinking: { type: 'adaptive' } });
    expect((await api.send({ model: 'claude-sonnet-4-6', thinking: { type: 'adaptive' }, ...older.continuation([{ role: 'user', content: 'Other.' }]) })).type).toBe('message');
  });

  it('drop_block drops the block and the consecutive thinking blocks after it, reports them, and does not count them as input', async () => {
    const { answer, continuation } = await firstTurn('claude-opus-5-5');
    // Opus 5.5's first answer: reasoning, the progress update, then the tool call.
    expect(answer.content.map((block) => block.type)).toEqual(['thinking', 'thinking', 'tool_use']);
    const edited = continuation([{ role: 'user', content: 'Build a site for Sol Bakery.' }]);
    const dropped = await api.send({ model: 'claude-opus-5-5', ...edited, thinking: DROP }, BETA);
    expect((dropped as unknown as { input_transformations: unknown }).input_transformations).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch' },
      { type: 'thinking_dropped', path: 'messages.1.content.1', reason: 'prefix_binding_mismatch' },
    ]);
    const stripped = { ...edited, messages: edited.messages.map((message, index) => (index === 1 ? { ...(message as object), content: answer.content.slice(2) } : message)) };
    const baseline = await api.send({ model: 'claude-opus-5-5', ...stripped, thinking: DROP }, BETA);
    expect(dropped.usage.input_tokens).toBe(baseline.usage.input_tokens);
    expect((baseline as unknown as { input_transformations: unknown }).input_transformations).toEqual([]);
  });

  it('a block the model may not read is dropped silently: 200, reported under the beta, not counted as input', async () => {
    const { answer, continuation } = await firstTurn('claude-opus-5-5');
    const request = { model: 'claude-sonnet-5-5', ...continuation() };
    const read = await api.send(request, BETA);
    expect((read as unknown as { input_transformations: unknown }).input_transformations).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'model_binding_mismatch' },
      { type: 'thinking_dropped', path: 'messages.1.content.1', reason: 'model_binding_mismatch' },
    ]);
    const stripped = { ...request, messages: request.messages.map((message, index) => (index === 1 ? { ...(message as object), content: answer.content.slice(2) } : message)) };
    expect((await api.send(stripped)).usage.input_tokens).toBe((await api.send(request)).usage.input_tokens);
    // Fable 5.1 reads Opus 5.5's blocks and keeps them.
    const fable = await api.send({ ...request, model: 'claude-fable-5-1' }, BETA);
    expect((fable as unknown as { input_transformations: unknown }).input_transformations).toEqual([]);
  });

  it('redacted thinking is bound the same way', async () => {
    const { continuation } = await firstTurn('claude-opus-5-5');
    const redacted = await api.send(
      { model: 'claude-opus-5-5', max_tokens: 4096, system: 'You build sites.', messages: [BRIEF], tools: TOOLS },
      { 'x-buildfleet-scenario': 'redacted_thinking', 'x-buildfleet-run-id': 'redacted-binding' },
    );
    expect(redacted.content[0]?.type).toBe('redacted_thinking');
    const request = continuation([{ role: 'user', content: 'Build a site for Sol Bakery.' }]);
    const toolUse = redacted.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    request.messages[1] = { role: 'assistant', content: redacted.content };
    request.messages[2] = { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.id, content: 'ok' }] };
    expect((await api.failure({ model: 'claude-opus-5-5', ...request })).message).toMatch(/^messages\.1\.content\.0: Invalid `signature` in `thinking` block\. The block is bound to a different conversation\./);
    request.messages[0] = BRIEF;
    expect((await api.send({ model: 'claude-opus-5-5', ...request })).type).toBe('message');
  });

  it('a build that changes its tools by phase breaks its own blocks on the default model, unless it drops them', async () => {
    const headers = { 'x-buildfleet-text-calls': 'off' };
    const plain = await runSimulatedConversation({ client, model: SIMULATOR_DEFAULT_MODEL, headers }).catch((error: unknown) => error);
    expect(plain).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((plain as Error).message)).toContain('The block is bound to a different conversation.');
    const dropping = await runSimulatedConversation({
      client,
      model: SIMULATOR_DEFAULT_MODEL,
      headers: { ...headers, ...BETA },
      thinking: DROP,
    });
    expect(dropping.endedBy).toBe('final-answer');
  });
});
