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
const INTERLEAVED = { ...OFF, 'anthropic-beta': 'interleaved-thinking-2025-05-14' };
const THINKING = { type: 'enabled', budget_tokens: 1024 } as const;
const TOOLS: Anthropic.Tool[] = ['todo_write', 'set_colors', 'set_fonts', 'write_file'].map((name) => ({ name, description: name, input_schema: { type: 'object', properties: {} } }));
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
  it('an answer that starts a turn starts with a signed thinking block, and thinking tokens are output tokens', async () => {
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
    expect(ok.content.some((block) => block.type === 'thinking')).toBe(false);

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

  it('answers that continue a tool-use loop think only with interleaved thinking (the beta header)', async () => {
    const { assistant, result } = await firstTurn();
    const messages: Anthropic.MessageParam[] = [...BASE.messages, { role: 'assistant', content: assistant }, result];
    const continued = await client.messages.create({ ...BASE, messages }, { headers: OFF });
    expect(continued.content.map((block) => block.type)).not.toContain('thinking');
    const interleaved = await client.messages.create({ ...BASE, messages }, { headers: INTERLEAVED });
    expect(interleaved.content[0]?.type).toBe('thinking');
    // A user message with more than tool results starts a new turn: the answer thinks again.
    const toolUse = assistant.find((block): block is Anthropic.ToolUseBlockParam => block.type === 'tool_use');
    const withText: Anthropic.MessageParam = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolUse?.id ?? '', content: 'ok' }, { type: 'text', text: 'Go on.' }],
    };
    const newTurn = await client.messages.create({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: assistant }, withText] }, { headers: OFF });
    expect(newTurn.content[0]?.type).toBe('thinking');
  });

  it('refuses a tool-use loop whose turn does not start with thinking; the answers after it in the loop and earlier turns may have none', async () => {
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

    // Deeper in the loop: the second answer carries no thinking (it continues the turn), and the
    // request after it is fine because the turn's first message starts with thinking…
    const second = await client.messages.create({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: assistant }, result] }, { headers: OFF });
    expect(second.content.map((block) => block.type)).not.toContain('thinking');
    const secondToolUses = second.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(secondToolUses.length, JSON.stringify(second.content)).toBeGreaterThan(0);
    const secondResult: Anthropic.MessageParam = {
      role: 'user',
      content: secondToolUses.map((block) => ({ type: 'tool_result' as const, tool_use_id: block.id, content: 'ok' })),
    };
    const loop = (first: Anthropic.ContentBlockParam[]): Anthropic.MessageParam[] => [
      ...BASE.messages,
      { role: 'assistant', content: first },
      result,
      { role: 'assistant', content: second.content as unknown as Anthropic.ContentBlockParam[] },
      secondResult,
    ];
    const third = await client.messages.create({ ...BASE, messages: loop(assistant) }, { headers: OFF });
    expect(third.content.map((block) => block.type)).not.toContain('thinking');
    // …and refused when the turn's first message lost it, although the last one never had any.
    expect(await rejection({ ...BASE, messages: loop(withoutThinking) })).toMatch(/^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`/);

    // An earlier, completed turn may drop its thinking: only the current turn's start needs it.
    const finalText: Anthropic.MessageParam = { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] };
    const nextTurn = await client.messages.create(
      { ...BASE, messages: [...BASE.messages, { role: 'assistant', content: withoutThinking }, result, finalText, { role: 'user', content: 'Now add a page.' }] },
      { headers: OFF },
    );
    expect(nextTurn.content[0]?.type).toBe('thinking');
    const nextToolUses = nextTurn.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    const accepted = await client.messages.create(
      {
        ...BASE,
        messages: [
          ...BASE.messages,
          { role: 'assistant', content: withoutThinking },
          result,
          finalText,
          { role: 'user', content: 'Now add a page.' },
          { role: 'assistant', content: nextTurn.content as unknown as Anthropic.ContentBlockParam[] },
          { role: 'user', content: nextToolUses.map((block) => ({ type: 'tool_result' as const, tool_use_id: block.id, content: 'ok' })) },
        ],
      },
      { headers: OFF },
    );
    expect(accepted.type).toBe('message');
  });

  it('a thinking block cut off by max_tokens has an empty signature, streamed (no signature_delta) or not', async () => {
    // With interleaved thinking the budget may exceed max_tokens, so the thinking itself can be cut.
    const request: Anthropic.MessageCreateParamsNonStreaming = { ...BASE, thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 8 };
    const created = await client.messages.create(request, { headers: INTERLEAVED });
    expect(created.stop_reason).toBe('max_tokens');
    expect(created.content).toHaveLength(1);
    const cut = created.content[0] as Anthropic.ThinkingBlock;
    expect(cut.type).toBe('thinking');
    expect(cut.thinking).toHaveLength(8 * 4);
    expect(cut.signature).toBe('');

    const stream = client.messages.stream(request, { headers: INTERLEAVED });
    const deltaTypes: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltaTypes.push(event.delta.type);
    });
    const streamed = await stream.finalMessage();
    expect(deltaTypes.length).toBeGreaterThan(0);
    expect(deltaTypes).not.toContain('signature_delta');
    expect(streamed.content).toEqual(created.content);

    // Sent back unsigned, it is refused like any block whose signature does not verify.
    const { assistant, result } = await firstTurn();
    expect(await rejection({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: [cut, ...assistant.slice(1)] }, result] })).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
  });

  it('redacted_thinking: the first answer carries a redacted_thinking block whose data must come back unchanged', async () => {
    const headers = { ...OFF, 'x-buildfleet-scenario': 'redacted_thinking' };
    const { first, assistant, result } = await firstTurn(headers);
    expect(first.content[0]?.type).toBe('redacted_thinking');
    const ok = await client.messages.create({ ...BASE, messages: [...BASE.messages, { role: 'assistant', content: assistant }, result] }, { headers });
    expect(ok.stop_reason).not.toBeNull();
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
        // Nor does one that continues the tool-use loop (the last user message holds only tool results).
        const last = (answered[index]?.body as { messages: Anthropic.MessageParam[] }).messages.at(-1);
        const continuesLoop = Array.isArray(last?.content) && last.content.length > 0 && last.content.every((block) => block.type === 'tool_result');
        const startsTurn = last?.role === 'user' && !continuesLoop;
        const types = response.content.map((block) => block.type);
        if (startsTurn) expect(['thinking', 'redacted_thinking'], `${scenario} response ${index}`).toContain(types[0]);
        if (continuesLoop) expect(types, `${scenario} response ${index}`).not.toContain('thinking');
      });
    });
  }

  it('with the interleaved-thinking beta, every fresh answer of a build starts with thinking', async () => {
    const result = await runSimulatedConversation({ client, headers: INTERLEAVED, thinkingBudgetTokens: 1024, maxTokens: 4096 });
    expect(result.endedBy).toBe('final-answer');
    expect(result.responses.length).toBeGreaterThan(3);
    for (const response of result.responses) expect(response.content[0]?.type).toBe('thinking');
  });

  it('refusal: the refusing answer starts with thinking too', async () => {
    const result = await runSimulatedConversation({ client, headers: { ...OFF, 'x-buildfleet-scenario': 'refusal' }, thinkingBudgetTokens: 1024 });
    expect(result.responses[0]?.stop_reason).toBe('refusal');
    expect(result.responses[0]?.content[0]?.type).toBe('thinking');
  });
});
