import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsForPhase, type BuilderPhase as Phase } from '../domain/profile.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { parseTextToolCall } from './parse-text-tool-call.js';
import { startSimulator, type RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';
import { DEFAULT_TEXT_CALL_PROBABILITY, decideTextToolCall, textCallProbability } from './text-call-decision.js';
import { ANTHROPIC_DRIFT_FORMATS, formatTextToolCall } from './text-tool-call-format.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

function tools(phase: Phase): Anthropic.Tool[] {
  return toolsForPhase(phase).map((name) => ({ name, description: name, input_schema: z.toJSONSchema(toolInputSchemas[name]) as Anthropic.Tool.InputSchema }));
}

/** A building-tier request right after the plan was written: the policy wants set_colors + set_fonts. */
function buildingRequest(brief: string, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: 'claude-sim',
    max_tokens: 1000,
    tools: tools('building'),
    messages: [
      { role: 'user', content: brief },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_plan', name: 'todo_write', input: { todos: [] } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_plan', content: '{"todos":[]}' }] },
    ],
    ...extra,
  };
}

const textOf = (message: Anthropic.Message) => message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
const ALWAYS = { 'x-buildfleet-text-calls': 'always' };

describe('tool calls written as text', () => {
  it('with `always`, writes the intended call as text with stop_reason end_turn', async () => {
    const message = await client.messages.create(buildingRequest('Build a site for Luna Bakery.'), { headers: ALWAYS });
    expect(message.content.every((block) => block.type === 'text')).toBe(true);
    expect(['end_turn', 'stop_sequence']).toContain(message.stop_reason);
    expect(parseTextToolCall({ text: textOf(message) })).toEqual({
      name: 'set_colors',
      input: { primary: '#1f6feb', background: '#ffffff', text: '#1b1f24', accent: '#f78166' },
    });
  });

  it('rotates through every format a Claude model drifts into as the transcript changes, each carrying a valid call', async () => {
    const seen = new Map<string, number>();
    for (let index = 0; index < 35; index += 1) {
      const message = await client.messages.create(buildingRequest(`Build a site for shop number ${index}.`), { headers: ALWAYS });
      const text = textOf(message);
      const format =
        text.startsWith('<tool name=') ? 'tool_tag'
        : text.startsWith('<tool_use>') ? 'tool_use_tag'
        : text.startsWith('<tool_call>') ? 'tool_call_tag'
        : text.startsWith('{') ? 'bare_json'
        : text.startsWith('[') ? 'bracket_call'
        : text.trimEnd().endsWith('```') ? 'fenced_json'
        : 'open_fence';
      seen.set(format, (seen.get(format) ?? 0) + 1);
      const parsed = parseTextToolCall({ text });
      expect(parsed?.name).toBe('set_colors');
      expect(toolInputSchemas.set_colors.safeParse(parsed?.input).success).toBe(true);
    }
    expect([...seen.keys()].sort()).toEqual([...ANTHROPIC_DRIFT_FORMATS].sort());
  });

  it('is deterministic for a transcript and seed', async () => {
    const request = buildingRequest('Build a site for Luna Bakery.');
    const first = await client.messages.create(request, { headers: ALWAYS });
    const second = await client.messages.create(request, { headers: ALWAYS });
    expect(textOf(second)).toBe(textOf(first));
  });

  it('`off` never drifts, and forced tool_choice never drifts even with `always`', async () => {
    const off = await client.messages.create(buildingRequest('Build a site for Luna Bakery.'), { headers: { 'x-buildfleet-text-calls': 'off' } });
    expect(off.stop_reason).toBe('tool_use');
    const forced = await client.messages.create(buildingRequest('Build a site for Luna Bakery.', { tool_choice: { type: 'tool', name: 'deploy' } }), { headers: ALWAYS });
    expect(forced.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'deploy', input: {} })]);
    const any = await client.messages.create(buildingRequest('Build a site for Luna Bakery.', { tool_choice: { type: 'any' } }), { headers: ALWAYS });
    expect(any.stop_reason).toBe('tool_use');
  });

  it('an open fence stops at a "```" stop sequence the request asked for', async () => {
    let checked = 0;
    for (let index = 0; index < 60 && checked === 0; index += 1) {
      const message = await client.messages.create(buildingRequest(`Build a site for shop number ${index}.`, { stop_sequences: ['```'] }), { headers: ALWAYS });
      if (message.stop_reason !== 'stop_sequence') continue;
      expect(message.stop_sequence).toBe('```');
      expect(textOf(message)).toMatch(/```json\n\{[\s\S]*\}$/);
      checked += 1;
    }
    expect(checked).toBe(1);
  });

  it('uses the configured probability table with the default `on` mode', async () => {
    const certain = await startSimulator({ textCallProbability: [{ maxToolCount: Number.POSITIVE_INFINITY, probability: 1 }] });
    try {
      const sdk = new Anthropic({ apiKey: 'sim', baseURL: certain.url, maxRetries: 0 });
      const message = await sdk.messages.create(buildingRequest('Build a site for Luna Bakery.'));
      expect(message.content.every((block) => block.type === 'text')).toBe(true);
    } finally {
      await certain.close();
    }
  });
});

describe('the probability table', () => {
  it('has the default bands: ≤12 1%, 13–25 5%, 26–40 20%, >40 40%', () => {
    const probability = (toolCount: number) => textCallProbability({ table: DEFAULT_TEXT_CALL_PROBABILITY, toolCount });
    expect([12, 13, 25, 26, 40, 41, 500].map(probability)).toEqual([0.01, 0.05, 0.05, 0.2, 0.2, 0.4, 0.4]);
  });

  it('drifts at about the table rate over many transcripts', () => {
    for (const [toolCount, expected] of [[13, 0.05], [41, 0.4]] as const) {
      let drifted = 0;
      for (let index = 0; index < 4000; index += 1) {
        const format = decideTextToolCall({ mode: 'on', table: DEFAULT_TEXT_CALL_PROBABILITY, toolCount, seed: 1, transcriptHash: `transcript-${index}` });
        if (format) drifted += 1;
      }
      expect(Math.abs(drifted / 4000 - expected)).toBeLessThan(0.02);
    }
  });
});

describe('formats', () => {
  it('writes the bracket format Python-style', () => {
    expect(formatTextToolCall({ format: 'bracket_call', call: { name: 'set_fonts', input: { heading: 'Inter', body: 'Source Sans 3' } } })).toBe(
      '[set_fonts(heading="Inter", body="Source Sans 3")]',
    );
    const call = { name: 'screenshot', input: { url: 'https://x.test/', width: 1280, full: true, note: null, tags: ['a "b"'] } };
    expect(parseTextToolCall({ text: formatTextToolCall({ format: 'bracket_call', call }) })).toEqual(call);
  });
});
