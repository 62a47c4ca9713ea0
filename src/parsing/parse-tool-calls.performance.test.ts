// Behaviour guard: every adversarial megabyte parses to at most one call and finishes. A
// backtracking or quadratic scan takes minutes on these inputs, so the per-test timeout (5 s)
// catches it; the time itself is a figure `npm run bench` reports, not a test assertion
// (timed assertions flake on a loaded CI machine).
import { beforeAll, describe, expect, it } from 'vitest';
import { createJsonSchemaValidator } from './create-json-schema-validator.js';
import { parseToolCallsFromText } from './parse-tool-calls.js';
import type { ParseOptions } from './parse-types.js';

const ONE_MEGABYTE = 1024 * 1024;

const options: ParseOptions = {
  allowedTools: ['get_weather'],
  validate: createJsonSchemaValidator([
    { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } },
  ]),
  // Intent on, so every fallback scanner runs over the input too.
  toolIntent: true,
};

const repeatToMegabyte = (unit: string, prefix = '', suffix = ''): string =>
  prefix + unit.repeat(Math.ceil((ONE_MEGABYTE - prefix.length - suffix.length) / unit.length)) + suffix;

const shapes: Array<[string, string]> = [
  ['<tool name=" repeated', repeatToMegabyte('<tool name="')],
  ['<tool name="x"> repeated, never closed', repeatToMegabyte('<tool name="x">')],
  ['<tool_call>{ repeated, never closed', repeatToMegabyte('<tool_call>{')],
  ['<tool_call> with one open string', repeatToMegabyte('<tool_call>{"a":"', '', '')],
  ['complete tags repeated (many candidates)', repeatToMegabyte('<tool_call>{}</tool_call>')],
  ['{{{{', repeatToMegabyte('{')],
  ['{"name": repeated', repeatToMegabyte('{"name":')],
  ['deeply nested object naming a tool', repeatToMegabyte('{"name":{', '', '}')],
  ['unbalanced double quotes', repeatToMegabyte('"')],
  ['unbalanced single quotes in a bracket call', repeatToMegabyte("'", '[get_weather(city=', ')]')],
  ['[[[[', repeatToMegabyte('[')],
  ['[[[[ closed', repeatToMegabyte('[', '', ']')],
  ['bracket call with nested brackets', repeatToMegabyte('[', '[get_weather(city=', ')]')],
  ['``` repeated on one line', repeatToMegabyte('```')],
  ['``` repeated on separate lines', repeatToMegabyte('```\n')],
  ['```json blocks with broken JSON', repeatToMegabyte('```json\n{"tool": "x", \n```\n')],
  ['<think> without close', '<think>' + repeatToMegabyte('<tool name="get_weather">{"city": "A"}</tool>')],
  ['<think> repeated', repeatToMegabyte('<think>')],
  ['</think> repeated', repeatToMegabyte('</think>')],
  ['TOOL_CALL: lines', repeatToMegabyte('TOOL_CALL:\n')],
  ['<tool_intent/> repeated', repeatToMegabyte('<tool_intent/>')],
  ['backslashes in a string', repeatToMegabyte('\\', '<tool_call>{"a":"', '')],
  // The model-family formats (extract-family-candidates.ts, extract-functionary-candidates.ts).
  ['[TOOL_CALLS] repeated', repeatToMegabyte('[TOOL_CALLS]')],
  ['[TOOL_CALLS][ repeated', repeatToMegabyte('[TOOL_CALLS][')],
  ['[TOOL_CALLS] after one open string', repeatToMegabyte('[TOOL_CALLS]', '[TOOL_CALLS][{"a":"')],
  ['[TOOL_CALLS]NAME[ARGS]{ repeated', repeatToMegabyte('[TOOL_CALLS]get_weather[ARGS]{')],
  ['[TOOL_CALLS] and a megabyte of name', repeatToMegabyte('a', '[TOOL_CALLS]')],
  ['a Mistral array of many calls', repeatToMegabyte('{"name":"get_weather","arguments":{}},', '[TOOL_CALLS][', '{}]')],
  ['<|python_tag|>{ repeated', repeatToMegabyte('<|python_tag|>{')],
  ['<|python_tag|> with many ;-separated calls', repeatToMegabyte('{}; ', '<|python_tag|>', '{}')],
  ['<|tool_call|>[ repeated', repeatToMegabyte('<|tool_call|>[')],
  ['DeepSeek call blocks never closed', repeatToMegabyte('<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{', '<｜tool▁calls▁begin｜>')],
  ['DeepSeek call blocks with no separator', repeatToMegabyte('<｜tool▁call▁begin｜>', '<｜tool▁calls▁begin｜>', '<｜tool▁call▁end｜>')],
  ['DeepSeek complete blocks (many candidates)', repeatToMegabyte('<｜tool▁call▁begin｜>x<｜tool▁sep｜>{}<｜tool▁call▁end｜>', '<｜tool▁calls▁begin｜>')],
  ['<function= repeated', repeatToMegabyte('<function=')],
  ['<function=x>{ repeated, never closed', repeatToMegabyte('<function=x>{')],
  ['>>> repeated', repeatToMegabyte('>>>')],
  ['[THINK] repeated', repeatToMegabyte('[THINK]')],
  ['[/THINK] repeated', repeatToMegabyte('[/THINK]')],
  ['a bare JSON array of many calls', repeatToMegabyte('{"name":"get_weather","arguments":{}},', '[', '{}]')],
  ['[{ repeated', repeatToMegabyte('[{')],
  ['>>>NAME\n{ repeated', repeatToMegabyte('>>>get_weather\n{')],
];

describe('1 MB adversarial inputs parse in linear time', () => {
  beforeAll(() => {
    // Warm the JIT so the first shape is not charged for compilation.
    for (const [, text] of shapes) parseToolCallsFromText(text.slice(0, 128 * 1024), options);
  });

  it.each(shapes)('%s', (_label, text) => {
    expect(text.length).toBeGreaterThanOrEqual(ONE_MEGABYTE);
    const result = parseToolCallsFromText(text, options);
    expect(result.calls.length).toBeLessThanOrEqual(1);
  }, 5_000);
});
