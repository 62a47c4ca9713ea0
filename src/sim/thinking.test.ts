import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { END_STOP_SEQUENCE, USER_STOP_SEQUENCE } from './apply-scenario.js';
import { runSimulatedConversation } from './simulated-conversation.js';
import { startSimulator, type RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
const THINKING = { type: 'enabled', budget_tokens: 1024 } as const;
const TOOLS: Anthropic.Tool[] = [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }];
const BASE: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'claude-sim',
  max_tokens: 2048,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: TOOLS,
  thinking: THINKING,
};

async function rejection(body: Record<string, unknown>): Promise<string> {
  const error = await client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, { headers: OFF }).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  const body400 = (error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { type: string; message: string } };
  expect(body400.error.type).toBe('invalid_request_error');
  return body400.error.message;
}

/** The first answer and the follow-up request that answers its tool call. */
async function firstTurn(headers: Record<string, string> = OFF) {
  const first = await client.messages.create(BASE, { headers });
  const toolUse = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
  const assistant = first.content as unknown as Anthropic.ContentBlockParam[];
  const result: Anthropic.MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.id ?? '', content: 'ok' }] };
  return { first, assistant, result };
}

describe('the thinking request field, policed like the real API', () => {
  it('refuses a budget under 1024 or not under max_tokens', async () => {
    expect(await rejection({ ...BASE, thinking: { type: 'enabled', budget_tokens: 1000 } })).toBe(
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    );
    expect(await rejection({ ...BASE, max_tokens: 1024 })).toBe('`max_tokens` must be greater than `thinking.budget_tokens`.');
    expect(await rejection({ ...BASE, thinking: { type: 'sometimes' } })).toMatch(/^thinking: Input tag/);
  });

  it('refuses a forced tool_choice, temperature other than 1, top_k and top_p under 0.95', async () => {
    expect(await rejection({ ...BASE, tool_choice: { type: 'any' } })).toBe('Thinking may not be enabled when tool_choice forces tool use.');
    expect(await rejection({ ...BASE, tool_choice: { type: 'tool', name: 'todo_write' } })).toBe('Thinking may not be enabled when tool_choice forces tool use.');
    expect(await rejection({ ...BASE, temperature: 0.5 })).toMatch(/^`temperature` may only be set to 1 when thinking is enabled/);
    expect(await rejection({ ...BASE, top_k: 5 })).toMatch(/^`top_k` must be unset when thinking is enabled/);
    expect(await rejection({ ...BASE, top_p: 0.9 })).toMatch(/^`top_p` must be greater than or equal to 0.95/);
    const allowed = await client.messages.create({ ...BASE, temperature: 1, top_p: 0.95 }, { headers: OFF });
    expect(allowed.content[0]?.type).toBe('thinking');
    const disabled = await client.messages.create({ ...BASE, thinking: { type: 'disabled' }, tool_choice: { type: 'any' }, temperature: 0 }, { headers: OFF });
    expect(disabled.content.map((block) => block.type)).toEqual(['tool_use']);
  });
});

describe('thinking blocks in answers', () => {
  it('every answer starts with a signed thinking block, and thinking tokens are output tokens', async () => {
    const { first } = await firstTurn();
    expect(first.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    const thinking = first.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.thinking).toContain('Luna Bakery');
    expect(thinking.signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const plain = await client.messages.create({ ...BASE, thinking: { type: 'disabled' } }, { headers: OFF });
    expect(first.usage.output_tokens).toBeGreaterThan(plain.usage.output_tokens);
  });

  it('accepts its blocks sent back unchanged and refuses altered ones with the real messages', async () => {
    const { assistant, result } = await firstTurn();
    const ok = await client.messages.create({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: assistant }, result] }, { headers: OFF });
    expect(ok.content[0]?.type).toBe('thinking');

    const thinking = assistant[0] as Anthropic.ThinkingBlockParam;
    const alteredText = [{ ...thinking, thinking: `${thinking.thinking} (edited)` }, ...assistant.slice(1)];
    expect(await rejection({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: alteredText }, result] })).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
    const alteredSignature = [{ ...thinking, signature: Buffer.from('forged').toString('base64') }, ...assistant.slice(1)];
    expect(await rejection({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: alteredSignature }, result] })).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
    // Another simulator (another secret) refuses them too.
    const other = await startSimulator();
    try {
      const otherClient = new Anthropic({ apiKey: 'sim', baseURL: other.url, maxRetries: 0 });
      const error = await otherClient.messages
        .create({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: assistant }, result] }, { headers: OFF })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    } finally {
      await other.close();
    }
  });

  it('refuses a tool-use loop whose last assistant message does not start with thinking, but lets earlier turns drop it', async () => {
    const { assistant, result } = await firstTurn();
    const withoutThinking = assistant.slice(1);
    expect(await rejection({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: withoutThinking }, result] })).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    );
    // Thinking off: no rule.
    const off = await client.messages.create(
      { ...BASE, thinking: { type: 'disabled' }, messages: [...BASE.messages, { role: 'assistant', content: withoutThinking }, result] },
      { headers: OFF },
    );
    expect(off.content[0]?.type).not.toBe('thinking');
    // An earlier, completed turn may drop its thinking; only the last one before the tool results needs it.
    const second = await client.messages.create({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: assistant }, result] }, { headers: OFF });
    const secondToolUse = second.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    const messages: Anthropic.MessageParam[] = [
      ...BASE.messages,
      { role: 'assistant', content: withoutThinking },
      result,
      { role: 'assistant', content: second.content as unknown as Anthropic.ContentBlockParam[] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: secondToolUse?.id ?? '', content: 'ok' }] },
    ];
    if (secondToolUse) expect((await client.messages.create({ ...BASE, messages }, { headers: OFF })).content[0]?.type).toBe('thinking');
  });

  it('redacted_thinking: the first answer carries a redacted_thinking block whose data must come back unchanged', async () => {
    const headers = { ...OFF, 'x-buildfleet-scenario': 'redacted_thinking' };
    const { first, assistant, result } = await firstTurn(headers);
    expect(first.content[0]?.type).toBe('redacted_thinking');
    const ok = await client.messages.create({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: assistant }, result] }, { headers });
    expect(ok.content[0]?.type).toBe('thinking');
    const redacted = assistant[0] as Anthropic.RedactedThinkingBlockParam;
    const tampered = [{ ...redacted, data: Buffer.from(`x${Buffer.from(redacted.data, 'base64').toString('binary')}`, 'binary').toString('base64') }, ...assistant.slice(1)];
    expect(await rejection({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: tampered }, result] })).toBe(
      'messages.1.content.0: Invalid `data` in `redacted_thinking` block',
    );
  });
});

describe('whole builds with thinking on, streamed and not', () => {
  const scenarios = [
    'happy',
    'redacted_thinking',
    'pause_turn',
    'max_tokens_text',
    'max_tokens_tool_use',
    'max_tokens_after_tool_use',
    'stop_sequence_user',
    'text_tool_calls',
    'premature_end_turn',
    'multi_block_text',
  ];
  for (const scenario of scenarios) {
    it(`${scenario}: every fresh answer starts with thinking, and the build finishes`, async () => {
      const before = simulator.requests.length;
      const result = await runSimulatedConversation({
        client,
        headers: { ...OFF, 'x-buildfleet-scenario': scenario },
        stopSequences: [END_STOP_SEQUENCE, USER_STOP_SEQUENCE],
        thinkingBudgetTokens: 1024,
        maxTokens: 4096,
        stream: scenario.startsWith('max_tokens') || scenario === 'happy',
      });
      expect(result.endedBy).toBe('final-answer');
      const answered = simulator.requests.slice(before).filter((request) => request.path === '/v1/messages' && request.status === 200);
      expect(answered).toHaveLength(result.responses.length);
      result.responses.forEach((response, index) => {
        // An answer that continues a trailing assistant message adds no thinking: that message starts with one.
        const continuation = (answered[index]?.body as { messages: Array<{ role: string }> }).messages.at(-1)?.role === 'assistant';
        if (!continuation) expect(['thinking', 'redacted_thinking'], `${scenario} response ${index}`).toContain(response.content[0]?.type);
      });
    });
  }

  it('refusal: the refusing answer starts with thinking too', async () => {
    const result = await runSimulatedConversation({ client, headers: { ...OFF, 'x-buildfleet-scenario': 'refusal' }, thinkingBudgetTokens: 1024 });
    expect(result.responses[0]?.stop_reason).toBe('refusal');
    expect(result.responses[0]?.content[0]?.type).toBe('thinking');
  });
});
