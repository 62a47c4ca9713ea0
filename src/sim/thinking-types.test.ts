// Which `thinking.type` each model accepts (model-catalog.ts, docs build-with-claude/adaptive-thinking),
// through the real SDK: the adaptive-only models refuse manual thinking, the older ones refuse
// adaptive thinking, both with the real 400 wording; adaptive thinking answers with thinking blocks.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

const OFF = { 'x-buildfleet-text-calls': 'off' };
const TOOLS: Anthropic.Tool[] = [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }];
const MANUAL = { type: 'enabled', budget_tokens: 1024 } as const;
const ADAPTIVE = { type: 'adaptive' } as const;
const ENABLED_NOT_SUPPORTED =
  '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';

function send(model: string, thinking: Record<string, unknown>, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) {
  return client.messages.create(
    {
      model,
      max_tokens: 4096,
      messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
      tools: TOOLS,
      thinking: thinking as unknown as Anthropic.ThinkingConfigParam,
      ...extra,
    },
    { headers: OFF },
  );
}

async function rejection(model: string, thinking: Record<string, unknown>): Promise<string> {
  const error = await send(model, thinking).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  return ((error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { message: string } }).error.message;
}

describe('thinking types per model', () => {
  it('adaptive-only models (Opus 4.7, Opus 4.8, the Claude 5 families) refuse manual thinking and think adaptively', async () => {
    for (const model of ['claude-opus-4-7', 'claude-opus-4-8', 'claude-opus-5', 'claude-sonnet-5', 'claude-fable-5']) {
      expect(await rejection(model, MANUAL), model).toBe(ENABLED_NOT_SUPPORTED);
      const answer = await send(model, ADAPTIVE);
      expect(answer.content[0]?.type, model).toBe('thinking');
    }
  });

  it('models before 4.6 refuse adaptive thinking and take manual thinking', async () => {
    for (const model of ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-5']) {
      expect(await rejection(model, ADAPTIVE), model).toBe('adaptive thinking is not supported on this model');
      expect((await send(model, MANUAL)).content[0]?.type, model).toBe('thinking');
    }
  });

  it('Opus 4.6, Sonnet 4.6 and Mythos Preview take both forms', async () => {
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-mythos-preview']) {
      expect((await send(model, MANUAL)).content[0]?.type, model).toBe('thinking');
      expect((await send(model, ADAPTIVE)).content[0]?.type, model).toBe('thinking');
    }
  });

  it('accepts display summarized or omitted and refuses other values; an unknown type names adaptive among the tags', async () => {
    expect((await send('claude-opus-4-7', { type: 'adaptive', display: 'omitted' })).content[0]?.type).toBe('thinking');
    expect((await send('claude-sonnet-4-6', { ...MANUAL, display: 'summarized' })).content[0]?.type).toBe('thinking');
    expect(await rejection('claude-opus-4-7', { type: 'adaptive', display: 'verbose' })).toBe("thinking.adaptive.display: Input should be 'summarized' or 'omitted'");
    expect(await rejection('claude-opus-4-7', { type: 'sometimes' })).toBe(
      "thinking: Input tag \"sometimes\" found using 'type' does not match any of the expected tags: 'adaptive', 'between_tools', 'disabled', 'enabled'",
    );
  });

  it('adaptive thinking chooses its own budget below max_tokens, and a tool loop may continue without the thinking block', async () => {
    const small = await send('claude-opus-4-7', ADAPTIVE, { max_tokens: 1200 });
    expect(small.content[0]?.type).toBe('thinking');
    expect(small.usage.output_tokens).toBeLessThanOrEqual(1200);

    const first = await send('claude-opus-4-7', ADAPTIVE);
    const toolUse = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(toolUse).toBeDefined();
    const withoutThinking = (first.content as unknown as Anthropic.ContentBlockParam[]).filter((block) => block.type !== 'thinking');
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Build a site for Luna Bakery.' },
      { role: 'assistant', content: withoutThinking },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.id ?? '', content: 'ok' }] },
    ];
    // docs build-with-claude/adaptive-thinking, "Validation changes"; manual thinking refuses the same transcript.
    expect((await send('claude-opus-4-7', ADAPTIVE, { messages })).type).toBe('message');
    const manual = await send('claude-sonnet-4-6', MANUAL, { messages }).catch((thrown: unknown) => thrown);
    expect(manual).toBeInstanceOf(Anthropic.BadRequestError);
  });
});
