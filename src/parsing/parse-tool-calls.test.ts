import { describe, expect, it } from 'vitest';
import { createJsonSchemaValidator } from './create-json-schema-validator.js';
import { parseToolCallsFromText } from './parse-tool-calls.js';
import type { ParseOptions } from './parse-types.js';

const tools = [
  {
    name: 'get_weather',
    input_schema: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
      additionalProperties: false,
    },
  },
  {
    name: 'write_file',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  {
    name: 'set_count',
    input_schema: {
      type: 'object',
      properties: { count: { type: 'integer', default: 1 } },
      required: ['count'],
      additionalProperties: false,
    },
  },
  {
    name: 'read_file',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  },
  { name: 'deploy', input_schema: { type: 'object', properties: {}, additionalProperties: false } },
];

// read_file is in the catalog but not in this tier.
const baseOptions: ParseOptions = {
  allowedTools: ['get_weather', 'write_file', 'set_count', 'deploy'],
  knownTools: tools.map((tool) => tool.name),
  validate: createJsonSchemaValidator(tools),
  toolIntent: true,
};

const parse = (text: string, overrides: Partial<ParseOptions> = {}) =>
  parseToolCallsFromText(text, { ...baseOptions, ...overrides });

const antwerp = { name: 'get_weather', arguments: { city: 'Antwerp' } };

describe('seed examples from issue #4', () => {
  it('a fenced write_file with a `tool` key and the arguments as sibling fields', () => {
    const text =
      'Here is the page:\n```json\n{"tool":"write_file","path":"index.html","content":"<h1>Hi</h1>"}\n```\nDone.';
    expect(parse(text)).toEqual({
      calls: [{ name: 'write_file', arguments: { path: 'index.html', content: '<h1>Hi</h1>' } }],
      parse_mode: 'fenced',
      candidate_count: 1,
      fallback_used: true,
      schema_validation: 'pass',
      reason: null,
      fence_only_stop: false,
      json_in_text: false,
    });
  });

  it('a <tool_use> tag', () => {
    const result = parse('<tool_use>{"name":"get_weather","input":{"city":"Antwerp"}}</tool_use>');
    expect(result).toMatchObject({ calls: [antwerp], parse_mode: 'tool_use_tag', fallback_used: false, reason: null });
  });

  it('a bracket call', () => {
    const result = parse('[get_weather(city="Antwerp")]');
    expect(result).toMatchObject({ calls: [antwerp], parse_mode: 'bracket', fallback_used: true, reason: null });
  });
});

describe('formats', () => {
  it('primary tag: the payload is the arguments object', () => {
    const result = parse('I will check.\n<tool name="get_weather">{"city": "Antwerp", "unit": "celsius"}</tool>');
    expect(result).toMatchObject({
      calls: [{ name: 'get_weather', arguments: { city: 'Antwerp', unit: 'celsius' } }],
      parse_mode: 'tag',
      schema_validation: 'pass',
    });
  });

  it('primary tag: a payload that is JSON but not an object is refused', () => {
    expect(parse('<tool name="get_weather">["Antwerp"]</tool>')).toMatchObject({
      calls: [],
      parse_mode: 'tag',
      reason: 'payload_not_object',
    });
  });

  it('primary tag: a payload that is not JSON is refused', () => {
    expect(parse('<tool name="get_weather">city=Antwerp</tool>')).toMatchObject({ calls: [], reason: 'invalid_json' });
  });

  it('primary tag: a closing tag inside a JSON string does not cut the payload', () => {
    const content = 'Write </tool> to close a call.';
    const result = parse(`<tool name="write_file">{"path": "notes.md", "content": ${JSON.stringify(content)}}</tool>`);
    expect(result.calls).toEqual([{ name: 'write_file', arguments: { path: 'notes.md', content } }]);
  });

  it('<tool_use> needs `input`, not `arguments`', () => {
    expect(parse('<tool_use>{"name":"get_weather","arguments":{"city":"Antwerp"}}</tool_use>')).toMatchObject({
      calls: [],
      reason: 'missing_arguments',
    });
  });

  it('<tool_call> with name and arguments', () => {
    const result = parse('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Antwerp"}}\n</tool_call>');
    expect(result).toMatchObject({ calls: [antwerp], parse_mode: 'tool_call_tag' });
  });

  it('<tool_call> refuses envelope fields that are neither name nor arguments', () => {
    expect(parse('<tool_call>{"name":"get_weather","arguments":{"city":"A"},"id":"1"}</tool_call>')).toMatchObject({
      reason: 'envelope_unknown_field:id',
    });
  });

  it.each(['arguments', 'input', 'parameters'])('strict JSON: the whole output names the tool, arguments under `%s`', (key) => {
    const result = parse(`  {"name": "get_weather", "${key}": {"city": "Antwerp"}}\n`);
    expect(result).toMatchObject({ calls: [antwerp], parse_mode: 'json', fallback_used: true });
  });

  it('strict JSON: a `tool` key names the tool too', () => {
    expect(parse('{"tool": "get_weather", "arguments": {"city": "Antwerp"}}').calls).toEqual([antwerp]);
  });

  it('strict JSON: the arguments must be under an arguments key (siblings are a fenced-only form)', () => {
    expect(parse('{"tool": "get_weather", "city": "Antwerp"}')).toMatchObject({ calls: [], reason: 'missing_arguments' });
  });

  it('strict JSON: two arguments keys are ambiguous', () => {
    expect(parse('{"name": "get_weather", "arguments": {"city": "A"}, "input": {"city": "B"}}')).toMatchObject({
      reason: 'ambiguous_arguments',
    });
  });

  it('strict JSON: an object followed by prose is not the whole output', () => {
    expect(parse('{"name": "get_weather", "arguments": {"city": "Antwerp"}} Want more?')).toMatchObject({
      calls: [],
      candidate_count: 0,
      reason: 'no_candidate',
      json_in_text: true,
    });
  });

  it('fenced: a name/arguments object in a plain ``` fence inside prose', () => {
    const result = parse('Calling:\n```\n{"name": "get_weather", "arguments": {"city": "Antwerp"}}\n```\nThanks.');
    expect(result).toMatchObject({ calls: [antwerp], parse_mode: 'fenced' });
  });

  it('fenced: a JSON block that is not a tool call is not a candidate', () => {
    const result = parse('Use this config:\n```json\n{"port": 8080, "debug": true}\n```');
    expect(result).toMatchObject({ calls: [], candidate_count: 0, reason: 'no_candidate', json_in_text: false });
  });

  it('fenced: a block with another language is not a candidate', () => {
    const result = parse('```html\n{"tool":"write_file","path":"a.html","content":"x"}\n```');
    expect(result).toMatchObject({ calls: [], candidate_count: 0, reason: 'no_candidate' });
  });

  it('bracket: Python literals become JSON values', () => {
    const result = parse(`[write_file(path='a.txt', content="line\\nnext")]`);
    expect(result.calls).toEqual([{ name: 'write_file', arguments: { path: 'a.txt', content: 'line\nnext' } }]);
  });

  it('bracket: an expression is refused', () => {
    expect(parse('[set_count(count=1+2)]')).toMatchObject({
      calls: [],
      parse_mode: 'bracket',
      reason: 'bracket_invalid:expression_not_allowed',
      schema_validation: 'not_run',
    });
  });

  it('bracket: a positional argument is refused', () => {
    expect(parse('[get_weather("Antwerp")]')).toMatchObject({ calls: [], reason: 'bracket_invalid:positional_argument' });
  });

  it('bracket: a function call inside is refused', () => {
    expect(parse('[get_weather(city=input())]')).toMatchObject({ calls: [], reason: 'bracket_invalid:call_not_allowed' });
  });

  it('bracket: prose around the list means it is not the whole output', () => {
    expect(parse('Let me check [get_weather(city="Antwerp")] now')).toMatchObject({ calls: [], reason: 'no_candidate' });
  });

  it('never reports native: that mode belongs to the API tool_use path', () => {
    expect(parse('<tool_call>{"name":"get_weather","arguments":{"city":"A"}}</tool_call>').parse_mode).not.toBe('native');
  });
});

describe('gate: tool intent', () => {
  const fenced = '```json\n{"tool": "get_weather", "city": "Antwerp"}\n```';

  it('fallbacks are refused without intent', () => {
    for (const text of [fenced, '{"name": "get_weather", "arguments": {"city": "Antwerp"}}', '[get_weather(city="Antwerp")]']) {
      expect(parse(text, { toolIntent: false })).toMatchObject({ calls: [], candidate_count: 0, reason: 'no_tool_intent' });
    }
  });

  it('fallbacks pass with the runtime intent option', () => {
    expect(parse(fenced, { toolIntent: true }).calls).toEqual([antwerp]);
  });

  it('a TOOL_CALL: line signals intent, and the marker is not part of the candidate', () => {
    expect(parse('TOOL_CALL:\n' + fenced, { toolIntent: false }).calls).toEqual([antwerp]);
    expect(parse('TOOL_CALL: [get_weather(city="Antwerp")]', { toolIntent: false }).calls).toEqual([antwerp]);
  });

  it('a <tool_intent/> marker signals intent', () => {
    expect(parse('<tool_intent/>{"name": "get_weather", "arguments": {"city": "Antwerp"}}', { toolIntent: false }).calls).toEqual([
      antwerp,
    ]);
  });

  it('a marker inside <think> does not count', () => {
    expect(parse('<think>TOOL_CALL:</think>\n' + fenced, { toolIntent: false }).reason).toBe('no_tool_intent');
  });

  it('tags are intent by themselves', () => {
    expect(parse('<tool name="get_weather">{"city": "Antwerp"}</tool>', { toolIntent: false }).calls).toEqual([antwerp]);
  });
});

describe('gate: fallback size', () => {
  const fencedWrite = (content: string) =>
    '```json\n' + JSON.stringify({ tool: 'write_file', path: 'big.txt', content }) + '\n```';

  it('a 3 KB fallback candidate is refused', () => {
    expect(parse(fencedWrite('x'.repeat(3 * 1024)))).toMatchObject({
      calls: [],
      parse_mode: 'fenced',
      candidate_count: 1,
      reason: 'candidate_too_large',
      schema_validation: 'not_run',
    });
  });

  it('a candidate of exactly the limit passes', () => {
    const overhead = JSON.stringify({ tool: 'write_file', path: 'big.txt', content: '' }).length;
    expect(parse(fencedWrite('x'.repeat(2048 - overhead))).calls).toHaveLength(1);
  });

  it('the limit counts UTF-8 bytes, not characters', () => {
    expect(parse(fencedWrite('é'.repeat(1100))).reason).toBe('candidate_too_large');
  });

  it('maxFallbackBytes raises the limit', () => {
    expect(parse(fencedWrite('x'.repeat(3 * 1024)), { maxFallbackBytes: 4096 }).calls).toHaveLength(1);
  });

  it('tags have no size limit', () => {
    const content = 'x'.repeat(3 * 1024);
    expect(parse(`<tool name="write_file">${JSON.stringify({ path: 'big.txt', content })}</tool>`).calls).toHaveLength(1);
  });
});

describe('gate: tier allowlist', () => {
  it('a name in the tier passes', () => {
    expect(parse('<tool name="deploy">{}</tool>').calls).toEqual([{ name: 'deploy', arguments: {} }]);
  });

  it('a known tool outside the tier is refused as not_in_tier', () => {
    expect(parse('<tool name="read_file">{"path": "a"}</tool>')).toMatchObject({
      calls: [],
      reason: 'not_in_tier:read_file',
      schema_validation: 'not_run',
    });
  });

  it('a name no tool has is refused as unknown_tool', () => {
    expect(parse('<tool_call>{"name": "launch", "arguments": {}}</tool_call>').reason).toBe('unknown_tool:launch');
  });

  it('without knownTools every name outside the tier is unknown', () => {
    expect(parse('<tool name="read_file">{"path": "a"}</tool>', { knownTools: undefined }).reason).toBe('unknown_tool:read_file');
  });

  it('a model-written name is made safe before it goes into the reason', () => {
    const reason = parse(`<tool_call>{"name": "a b\\n${'z'.repeat(100)}", "arguments": {}}</tool_call>`).reason ?? '';
    expect(reason).toMatch(/^unknown_tool:a_b_z+$/);
    expect(reason.length).toBe('unknown_tool:'.length + 64);
  });
});

describe('gate: strict schema validation', () => {
  it('valid arguments pass', () => {
    expect(parse('<tool name="set_count">{"count": 5}</tool>')).toMatchObject({
      calls: [{ name: 'set_count', arguments: { count: 5 } }],
      schema_validation: 'pass',
    });
  });

  it('an unknown field is refused', () => {
    expect(parse('<tool name="get_weather">{"city": "Antwerp", "country": "BE"}</tool>')).toMatchObject({
      calls: [],
      schema_validation: 'fail',
      reason: 'schema_invalid:/country:unknown_field',
    });
  });

  it('"5" for an integer is refused, not coerced', () => {
    expect(parse('<tool name="set_count">{"count": "5"}</tool>')).toMatchObject({
      calls: [],
      schema_validation: 'fail',
      reason: 'schema_invalid:/count:must be integer',
    });
  });

  it('a missing required field is refused, not filled from the default', () => {
    expect(parse('<tool name="set_count">{}</tool>')).toMatchObject({
      calls: [],
      reason: 'schema_invalid:/count:missing_required',
    });
    expect(parse('<tool name="write_file">{"path": "a.txt"}</tool>').reason).toBe('schema_invalid:/content:missing_required');
  });

  it('arguments given as a JSON string are refused', () => {
    expect(parse('<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Antwerp\\"}"}</tool_call>')).toMatchObject({
      calls: [],
      reason: 'arguments_as_string',
      schema_validation: 'not_run',
    });
  });

  it('arguments that are not an object are refused', () => {
    expect(parse('<tool_call>{"name": "deploy", "arguments": []}</tool_call>').reason).toBe('arguments_not_object');
    expect(parse('<tool_call>{"name": "deploy", "arguments": null}</tool_call>').reason).toBe('arguments_not_object');
  });
});

describe('gate: exactly one candidate', () => {
  const tag = '<tool name="get_weather">{"city": "Antwerp"}</tool>';

  it('two tags give no call and ask for a re-emit', () => {
    expect(parse(`${tag}\nand\n<tool name="get_weather">{"city": "Ghent"}</tool>`)).toMatchObject({
      calls: [],
      parse_mode: 'none',
      candidate_count: 2,
      reason: 'multiple_candidates',
    });
  });

  it('a tag and a fenced call count as two when intent is on', () => {
    const text = `${tag}\n\`\`\`json\n{"tool": "get_weather", "city": "Ghent"}\n\`\`\``;
    expect(parse(text)).toMatchObject({ calls: [], candidate_count: 2, reason: 'multiple_candidates' });
    expect(parse(text, { toolIntent: false })).toMatchObject({ calls: [antwerp], candidate_count: 1 });
  });

  it('two calls in one bracket list are two candidates', () => {
    expect(parse('[get_weather(city="Antwerp"), get_weather(city="Ghent")]')).toMatchObject({
      candidate_count: 2,
      reason: 'multiple_candidates',
    });
  });

  it('an invalid second tag still counts', () => {
    expect(parse(`${tag}<tool_call>not json</tool_call>`).reason).toBe('multiple_candidates');
  });

  it('a tag quoted inside the strict JSON call is content, not a second candidate', () => {
    const content = '<tool_call>{"name": "deploy", "arguments": {}}</tool_call>';
    const text = JSON.stringify({ name: 'write_file', arguments: { path: 'doc.md', content } });
    expect(parse(text)).toMatchObject({
      calls: [{ name: 'write_file', arguments: { path: 'doc.md', content } }],
      candidate_count: 1,
      parse_mode: 'json',
    });
  });
});

describe('reasoning and unclosed tags', () => {
  it('a tag inside <think>…</think> is not searched', () => {
    expect(parse('<think>maybe <tool name="deploy">{}</tool>?</think>No call.')).toMatchObject({
      calls: [],
      candidate_count: 0,
      reason: 'no_candidate',
    });
  });

  it('a tag after the reasoning is found', () => {
    expect(parse('<think>weather?</think>\n<tool name="get_weather">{"city": "Antwerp"}</tool>').calls).toEqual([antwerp]);
  });

  it('an unclosed <think> hides everything after it', () => {
    expect(parse('<think>plan\n<tool name="get_weather">{"city": "Antwerp"}</tool>').calls).toEqual([]);
  });

  it('an unclosed tag is not a candidate', () => {
    expect(parse('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Antwerp"}}')).toMatchObject({
      calls: [],
      candidate_count: 0,
      reason: 'no_candidate',
      json_in_text: true,
    });
  });

  it('an unclosed tag does not swallow a complete one after it', () => {
    expect(parse('<tool_use>oops\n<tool name="get_weather">{"city": "Antwerp"}</tool>').calls).toEqual([antwerp]);
  });
});

describe('JSON details', () => {
  it('braces and brackets inside strings', () => {
    const content = 'function f() { return [1, "}"]; }';
    expect(parse(`<tool name="write_file">{"path": "f.js", "content": ${JSON.stringify(content)}}</tool>`).calls[0]?.arguments).toEqual({
      path: 'f.js',
      content,
    });
  });

  it('escaped quotes', () => {
    expect(parse(String.raw`<tool name="write_file">{"path": "q.txt", "content": "He said \"hi\""}</tool>`).calls[0]?.arguments).toEqual({
      path: 'q.txt',
      content: 'He said "hi"',
    });
  });

  it('unicode escapes', () => {
    expect(parse(String.raw`<tool name="get_weather">{"city": "Li\u00e8ge \ud83c\udf27"}</tool>`).calls[0]?.arguments).toEqual({
      city: 'Liège 🌧',
    });
  });

  it('nested objects reach the schema intact', () => {
    const nestedTools = [
      {
        name: 'configure',
        input_schema: {
          type: 'object',
          properties: { settings: { type: 'object', properties: { theme: { type: 'object' } }, additionalProperties: false } },
          required: ['settings'],
          additionalProperties: false,
        },
      },
    ];
    const options = { allowedTools: ['configure'], validate: createJsonSchemaValidator(nestedTools), toolIntent: false };
    const result = parseToolCallsFromText('<tool name="configure">{"settings": {"theme": {"dark": {"accent": "#fff"}}}}</tool>', options);
    expect(result.calls[0]?.arguments).toEqual({ settings: { theme: { dark: { accent: '#fff' } } } });
    expect(parseToolCallsFromText('<tool name="configure">{"settings": {"font": "x"}}</tool>', options).reason).toBe(
      'schema_invalid:/settings/font:unknown_field',
    );
  });

  it('trailing text after a tag is fine', () => {
    expect(parse('<tool name="get_weather">{"city": "Antwerp"}</tool>\nI will report back.').calls).toEqual([antwerp]);
  });

  it('duplicate keys are invalid JSON', () => {
    expect(parse('<tool name="get_weather">{"city": "Antwerp", "city": "Ghent"}</tool>').reason).toBe('invalid_json');
  });

  it('text after the JSON inside the tag is invalid JSON', () => {
    expect(parse('<tool name="get_weather">{"city": "Antwerp"} thanks</tool>').reason).toBe('invalid_json');
  });
});

describe('metrics', () => {
  it('fence_only_stop: the text ends inside an open code block', () => {
    expect(parse('Writing it:\n```json\n{"tool": "write_file", "path": "a"').fence_only_stop).toBe(true);
    expect(parse('```\ncode\n```').fence_only_stop).toBe(false);
  });

  it('json_in_text: a JSON tool call shape that produced no call', () => {
    expect(parse('Call: {"name": "get_weather", "arguments": {"city": "A"}} ok?').json_in_text).toBe(true);
    expect(parse('Plain prose with {braces} and "name" words.').json_in_text).toBe(false);
    expect(parse('{"name": "get_weather", "arguments": {"city": "A"}}').json_in_text).toBe(false);
  });

  it('empty text has no candidate', () => {
    expect(parse('')).toMatchObject({ calls: [], candidate_count: 0, reason: 'no_candidate', parse_mode: 'none' });
  });
});
