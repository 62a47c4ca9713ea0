// Every text tool-call format the simulator writes: read back by the simulator itself, recovered
// by the fleet's parser in the parse mode TEXT_FORMAT_PARSE_MODES names, and pinned per request
// with `x-buildfleet-text-format`.
import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsForPhase } from '../domain/profile.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { createJsonSchemaValidator, parseToolCallsFromText } from '../parsing/index.js';
import { parseTextToolCall } from './parse-text-tool-call.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';
import { pickTextCallFormat } from './text-call-decision.js';
import {
  ANTHROPIC_DRIFT_FORMATS,
  OPEN_MODEL_TEXT_FORMATS,
  TEXT_FORMAT_PARSE_MODES,
  TEXT_TOOL_CALL_FORMATS,
  formatTextToolCall,
} from './text-tool-call-format.js';

const calls = [
  { name: 'set_colors', input: { primary: '#1f6feb', background: '#ffffff', text: '#1b1f24', accent: '#f78166' } },
  // Quotes, a backslash, unicode, a closing tag and a family marker inside a string, nesting.
  {
    name: 'write_file',
    input: { path: 'notes/ünïcode.md', content: 'He said "hi" \\ </tool> [TOOL_CALLS] <｜tool▁call▁end｜> </function>\n>>>x', meta: { tags: ['a', 1, true, null] } },
  },
  { name: 'deploy', input: {} },
];

const parserTools = calls.map((call) => ({ name: call.name, input_schema: { type: 'object' } }));
const parse = (text: string) =>
  parseToolCallsFromText(text, {
    allowedTools: parserTools.map((tool) => tool.name),
    validate: createJsonSchemaValidator(parserTools),
    toolIntent: true,
  });

describe.each(TEXT_TOOL_CALL_FORMATS)('format %s', (format) => {
  it.each(calls)('reads back $name', (call) => {
    expect(parseTextToolCall({ text: formatTextToolCall({ format, call }) })).toEqual(call);
  });

  it.each(calls)('the fleet parser recovers $name in the mapped parse mode', (call) => {
    const result = parse(formatTextToolCall({ format, call }));
    if (format === 'open_fence') {
      expect(result).toMatchObject({ calls: [], parse_mode: 'none', fence_only_stop: true });
      return;
    }
    expect(result).toMatchObject({ parse_mode: TEXT_FORMAT_PARSE_MODES[format], reason: null, calls: [{ name: call.name, arguments: call.input }] });
  });
});

describe('format lists', () => {
  it('the Anthropic drift list and the open-model list are formats, and together cover every format', () => {
    const covered = new Set<string>([...ANTHROPIC_DRIFT_FORMATS, ...OPEN_MODEL_TEXT_FORMATS]);
    expect([...covered].sort()).toEqual([...TEXT_TOOL_CALL_FORMATS].sort());
  });

  it('rotation over the open-model list reaches each of its formats', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 400; index += 1) {
      seen.add(pickTextCallFormat({ seed: 1, transcriptHash: `t-${index}`, formats: OPEN_MODEL_TEXT_FORMATS }));
    }
    expect([...seen].sort()).toEqual([...OPEN_MODEL_TEXT_FORMATS].sort());
  });

  it('rotation defaults to the Anthropic drift list, and a pinned format wins', () => {
    for (let index = 0; index < 100; index += 1) {
      expect(ANTHROPIC_DRIFT_FORMATS).toContain(pickTextCallFormat({ seed: 1, transcriptHash: `t-${index}` }));
      expect(pickTextCallFormat({ seed: 1, transcriptHash: `t-${index}`, pinned: 'granite' })).toBe('granite');
    }
  });
});

describe('header x-buildfleet-text-format', () => {
  let simulator: RunningSimulator;
  let client: Anthropic;
  beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
  afterAll(() => simulator.close());

  const request: Anthropic.MessageCreateParamsNonStreaming = {
    model: 'claude-sim',
    max_tokens: 1000,
    tools: toolsForPhase('building').map((name) => ({
      name,
      description: name,
      input_schema: z.toJSONSchema(toolInputSchemas[name]) as Anthropic.Tool.InputSchema,
    })),
    messages: [
      { role: 'user', content: 'Build a site for Luna Bakery.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_plan', name: 'todo_write', input: { todos: [] } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_plan', content: '{"todos":[]}' }] },
    ],
  };
  const textOf = (message: Anthropic.Message) => message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const colors = { primary: '#1f6feb', background: '#ffffff', text: '#1b1f24', accent: '#f78166' };

  it.each(OPEN_MODEL_TEXT_FORMATS)('pins %s with `always`', async (format) => {
    const message = await client.messages.create(request, { headers: { 'x-buildfleet-text-calls': 'always', 'x-buildfleet-text-format': format } });
    const text = textOf(message);
    expect(text).toBe(formatTextToolCall({ format, call: { name: 'set_colors', input: colors } }));
    expect(parse(text)).toMatchObject({ parse_mode: TEXT_FORMAT_PARSE_MODES[format], calls: [{ name: 'set_colors', arguments: colors }] });
  });

  it('takes vLLM parser names as aliases, in any case', async () => {
    const message = await client.messages.create(request, { headers: { 'x-buildfleet-text-calls': 'always', 'x-buildfleet-text-format': ' Hermes ' } });
    expect(textOf(message)).toMatch(/^<tool_call>/);
  });

  it('pins the format of the text_tool_calls scenario too', async () => {
    const message = await client.messages.create(request, {
      headers: { 'x-buildfleet-scenario': 'text_tool_calls', 'x-buildfleet-text-format': 'deepseek_v31' },
    });
    expect(parse(textOf(message))).toMatchObject({ parse_mode: 'deepseek', calls: [{ name: 'set_colors' }] });
  });

  it('does not make a turn drift by itself: with `off` the call stays a tool_use block', async () => {
    const message = await client.messages.create(request, { headers: { 'x-buildfleet-text-calls': 'off', 'x-buildfleet-text-format': 'mistral' } });
    expect(message.stop_reason).toBe('tool_use');
  });

  it('refuses an unknown format with 400 invalid_request_error naming the known ones', async () => {
    const failure = await client.messages
      .create(request, { headers: { 'x-buildfleet-text-format': 'mistral_v99' } })
      .then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = failure as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.status).toBe(400);
    expect(apiError.error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('x-buildfleet-text-format: unknown text tool-call format "mistral_v99"; known: tool_tag,') },
    });
  });
});
