// The open-model chat-template formats, each through every gate, in the style of the public
// suites (shapes from vLLM's tool parsers and their tests, mistral-common, the model cards and
// chat templates cited in each extractor). Every format is checked for: a call, a malformed one,
// a wrong name, a name outside the tier, a schema failure, the call inside <think>, and several
// calls in one reply.
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
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  { name: 'deploy', input_schema: { type: 'object', properties: {}, additionalProperties: false } },
];

const options: ParseOptions = {
  allowedTools: ['get_weather', 'write_file'],
  knownTools: ['get_weather', 'write_file', 'deploy'],
  validate: createJsonSchemaValidator(tools),
  toolIntent: false,
};
const parse = (text: string, overrides: Partial<ParseOptions> = {}) => parseToolCallsFromText(text, { ...options, ...overrides });
const paris = [{ name: 'get_weather', arguments: { city: 'Paris' } }];

/** One format: how it writes a call with a given name and arguments JSON, and a broken one. */
interface FormatCase {
  mode: string;
  write: (name: string, argumentsJson: string) => string;
  malformed: string;
  /** Two calls in one reply, as the format writes them. */
  twoCalls: string;
  /** Needs tool intent (a plain-text marker). */
  fallback?: boolean;
  /** The name is written outside the JSON, which is the arguments object itself. */
  namedPayload?: boolean;
  /** No closing marker: the payload runs to the next marker or the end of the output. */
  openEnded?: boolean;
}

const MISTRAL = '[TOOL_CALLS]';
const DS_CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const DS_CALLS_END = '<｜tool▁calls▁end｜>';
const DS_CALL_BEGIN = '<｜tool▁call▁begin｜>';
const DS_CALL_END = '<｜tool▁call▁end｜>';
const DS_SEP = '<｜tool▁sep｜>';
const deepSeekV3Call = (name: string, argumentsJson: string) => `${DS_CALL_BEGIN}function${DS_SEP}${name}\n\`\`\`json\n${argumentsJson}\n\`\`\`${DS_CALL_END}`;
const deepSeekV31Call = (name: string, argumentsJson: string) => `${DS_CALL_BEGIN}${name}${DS_SEP}${argumentsJson}${DS_CALL_END}`;

const formats: Record<string, FormatCase> = {
  'mistral (JSON array, before v11)': {
    mode: 'mistral',
    openEnded: true,
    write: (name, args) => `${MISTRAL}[{"name": "${name}", "arguments": ${args}}]`,
    malformed: `${MISTRAL}[{"name": "get_weather", "arguments": {"city": "Paris"}`,
    twoCalls: `${MISTRAL}[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_weather", "arguments": {"city": "Bern"}}]`,
  },
  'mistral (v13+ NAME[ARGS])': {
    mode: 'mistral',
    openEnded: true,
    namedPayload: true,
    write: (name, args) => `${MISTRAL}${name}[ARGS]${args}`,
    malformed: `${MISTRAL}get_weather[ARGS]{"city": "Paris"`,
    twoCalls: `${MISTRAL}get_weather[ARGS]{"city": "Paris"}${MISTRAL}get_weather[ARGS]{"city": "Bern"}`,
  },
  'mistral (v11 NAME[CALL_ID]ID[ARGS])': {
    mode: 'mistral',
    openEnded: true,
    namedPayload: true,
    write: (name, args) => `${MISTRAL}${name}[CALL_ID]abcDEF123[ARGS]${args}`,
    malformed: `${MISTRAL}get_weather[CALL_ID]abcDEF123[ARGS]{"city": Paris}`,
    twoCalls: `${MISTRAL}get_weather[CALL_ID]abcDEF123[ARGS]{"city": "Paris"}${MISTRAL}get_weather[CALL_ID]xyzXYZ789[ARGS]{"city": "Bern"}`,
  },
  'llama <|python_tag|>': {
    mode: 'python_tag',
    openEnded: true,
    write: (name, args) => `<|python_tag|>{"name": "${name}", "parameters": ${args}}`,
    malformed: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}',
    twoCalls: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_weather", "parameters": {"city": "Bern"}}',
  },
  'deepseek V3 / R1': {
    mode: 'deepseek',
    namedPayload: true,
    write: (name, args) => `${DS_CALLS_BEGIN}${deepSeekV3Call(name, args)}${DS_CALLS_END}`,
    malformed: `${DS_CALLS_BEGIN}${deepSeekV3Call('get_weather', '{"city": "Paris",}')}${DS_CALLS_END}`,
    twoCalls: `${DS_CALLS_BEGIN}${deepSeekV3Call('get_weather', '{"city": "Paris"}')}\n${deepSeekV3Call('get_weather', '{"city": "Bern"}')}${DS_CALLS_END}`,
  },
  'deepseek V3.1': {
    mode: 'deepseek',
    namedPayload: true,
    write: (name, args) => `${DS_CALLS_BEGIN}${deepSeekV31Call(name, args)}${DS_CALLS_END}`,
    malformed: `${DS_CALLS_BEGIN}${deepSeekV31Call('get_weather', "{'city': 'Paris'}")}${DS_CALLS_END}`,
    twoCalls: `${DS_CALLS_BEGIN}${deepSeekV31Call('get_weather', '{"city": "Paris"}')}${deepSeekV31Call('get_weather', '{"city": "Bern"}')}${DS_CALLS_END}`,
  },
  'granite <|tool_call|>': {
    mode: 'granite',
    openEnded: true,
    write: (name, args) => `<|tool_call|>[{"name": "${name}", "arguments": ${args}}]`,
    malformed: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}',
    twoCalls: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_weather", "arguments": {"city": "Bern"}}]',
  },
  'functionary v3.1 / llama 3.1 <function=…>': {
    mode: 'function_tag',
    namedPayload: true,
    write: (name, args) => `<function=${name}>${args}</function>`,
    malformed: '<function=get_weather>{"city": "Paris"</function>',
    twoCalls: '<function=get_weather>{"city": "Paris"}</function><function=get_weather>{"city": "Bern"}</function>',
  },
  'functionary v3.2 >>>': {
    mode: 'functionary',
    openEnded: true,
    namedPayload: true,
    write: (name, args) => `>>>${name}\n${args}`,
    malformed: '>>>get_weather\n{"city": "Paris"',
    twoCalls: '>>>get_weather\n{"city": "Paris"}>>>get_weather\n{"city": "Bern"}',
    fallback: true,
  },
};

describe.each(Object.entries(formats))('%s', (_label, format) => {
  const intent = { toolIntent: format.fallback === true };

  it('recovers the call, with its parse mode', () => {
    expect(parse(format.write('get_weather', '{"city": "Paris"}'), intent)).toEqual({
      calls: paris,
      parse_mode: format.mode,
      candidate_count: 1,
      fallback_used: format.fallback === true,
      schema_validation: 'pass',
      reason: null,
      fence_only_stop: false,
      json_in_text: false,
    });
  });

  it('after prose', () => {
    expect(parse(`Let me look that up.\n\n${format.write('get_weather', '{"city": "Paris"}')}`, intent).calls).toEqual(paris);
  });

  it('refuses malformed JSON as invalid_json', () => {
    expect(parse(format.malformed, intent)).toMatchObject({ calls: [], parse_mode: format.mode, reason: 'invalid_json' });
  });

  it('refuses a name no tool has', () => {
    expect(parse(format.write('get_wether', '{"city": "Paris"}'), intent)).toMatchObject({ calls: [], reason: 'unknown_tool:get_wether' });
  });

  it('refuses a known tool outside the tier', () => {
    expect(parse(format.write('deploy', '{}'), intent)).toMatchObject({ calls: [], reason: 'not_in_tier:deploy' });
  });

  it('refuses arguments that fail the schema, without coercion', () => {
    expect(parse(format.write('get_weather', '{"city": 12}'), intent)).toMatchObject({
      calls: [],
      schema_validation: 'fail',
      reason: 'schema_invalid:/city:must be string',
    });
  });

  it('refuses arguments given as a string, never decoding them again', () => {
    expect(parse(format.write('get_weather', '"{\\"city\\": \\"Paris\\"}"'), intent)).toMatchObject({
      calls: [],
      // functionary's recipient must be followed by an object to be a candidate at all.
      reason: format.fallback ? 'no_candidate' : format.namedPayload ? 'payload_not_object' : 'arguments_as_string',
    });
  });

  it('ignores the call inside <think>, and takes the one after it', () => {
    const drafted = format.write('get_weather', '{"city": "Bern"}');
    expect(parse(`<think>Maybe ${drafted}</think>`, intent)).toMatchObject({ calls: [], candidate_count: 0 });
    expect(parse(`<think>Maybe ${drafted}</think>\n${format.write('get_weather', '{"city": "Paris"}')}`, intent).calls).toEqual(paris);
  });

  it('refuses two calls in one reply as multiple candidates', () => {
    expect(parse(format.twoCalls, intent)).toMatchObject({ calls: [], candidate_count: 2, reason: 'multiple_candidates' });
  });

  it('a tag before the call makes two candidates', () => {
    const text = `<tool name="get_weather">{"city": "Bern"}</tool>\n${format.write('get_weather', '{"city": "Paris"}')}`;
    expect(parse(text, intent)).toMatchObject({ calls: [], candidate_count: 2, reason: 'multiple_candidates' });
  });

  it('a tag after the call: two candidates, or, after an open-ended call, text that is not exactly one call', () => {
    const text = `${format.write('get_weather', '{"city": "Paris"}')}\n<tool name="get_weather">{"city": "Bern"}</tool>`;
    expect(parse(text, intent)).toMatchObject(
      format.openEnded
        ? { calls: [], candidate_count: 1, parse_mode: format.mode, reason: 'invalid_json' }
        : { calls: [], candidate_count: 2, reason: 'multiple_candidates' },
    );
  });
});

describe('mistral details', () => {
  it('a space between the token and the array (SentencePiece ▁ renders as one)', () => {
    expect(parse('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]').calls).toEqual(paris);
  });

  it('the call id mistral-common renders may come back; any other extra key is refused', () => {
    expect(parse('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcDEF123"}]').calls).toEqual(paris);
    expect(parse('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": 7}]').reason).toBe('envelope_unknown_field:id');
    expect(parse('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "type": "function"}]').reason).toBe(
      'envelope_unknown_field:type',
    );
  });

  it('vLLM tolerates text after the array; here it is not exactly one call', () => {
    expect(parse('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}] Done!')).toMatchObject({
      calls: [],
      reason: 'invalid_json',
    });
  });

  it('prose mentioning the token is no candidate', () => {
    expect(parse('Mistral models start a call with [TOOL_CALLS] and then the calls.')).toMatchObject({ calls: [], reason: 'no_candidate' });
  });

  it('an empty array is no candidate', () => {
    expect(parse('[TOOL_CALLS][]')).toMatchObject({ calls: [], reason: 'no_candidate' });
  });

  it('a token written inside a JSON string of another call does not start a call of its own', () => {
    const content = 'Mistral writes [TOOL_CALLS][{\\"name\\": \\"x\\"}] and stops.';
    expect(parse(`<tool name="write_file">{"path": "notes.md", "content": "${content}"}</tool>`).calls).toEqual([
      { name: 'write_file', arguments: { path: 'notes.md', content: 'Mistral writes [TOOL_CALLS][{"name": "x"}] and stops.' } },
    ]);
  });

  it('a token inside the arguments does not end them (v13+)', () => {
    expect(parse('[TOOL_CALLS]write_file[ARGS]{"path": "a.md", "content": "see [TOOL_CALLS] here"}').calls).toEqual([
      { name: 'write_file', arguments: { path: 'a.md', content: 'see [TOOL_CALLS] here' } },
    ]);
  });

  it('the v11 regex form without [ARGS] (vLLM accepts `NAME{…}`) is not documented: no candidate', () => {
    expect(parse('[TOOL_CALLS]get_weather{"city": "Paris"}')).toMatchObject({ calls: [], reason: 'no_candidate' });
  });
});

describe('llama details', () => {
  it('`arguments` instead of `parameters` (vLLM llama3_json takes both); both at once is ambiguous', () => {
    expect(parse('<|python_tag|>{"name": "get_weather", "arguments": {"city": "Paris"}}').calls).toEqual(paris);
    expect(parse('<|python_tag|>{"name": "get_weather", "arguments": {}, "parameters": {"city": "Paris"}}').reason).toBe('ambiguous_arguments');
  });

  it('the python tag before code (the built-in code interpreter) is no candidate', () => {
    expect(parse('<|python_tag|>brave_search.call(query="weather in Paris")')).toMatchObject({ calls: [], reason: 'no_candidate' });
  });

  it('plain {"name", "parameters"} without the tag is the json fallback: it needs intent', () => {
    const text = '{"name": "get_weather", "parameters": {"city": "Paris"}}';
    expect(parse(text)).toMatchObject({ calls: [], reason: 'no_tool_intent' });
    expect(parse(text, { toolIntent: true })).toMatchObject({ calls: paris, parse_mode: 'json', fallback_used: true });
  });
});

describe('deepseek details', () => {
  const v3 = (name: string, args: string) => `${DS_CALLS_BEGIN}${deepSeekV3Call(name, args)}${DS_CALLS_END}`;

  it('the vLLM docstring example, end-of-sentence token and all', () => {
    const text = `${DS_CALLS_BEGIN}${deepSeekV3Call('get_weather', '{"city": "Beijing"}')}${DS_CALLS_END}<｜end▁of▁sentence｜>`;
    expect(parse(text).calls).toEqual([{ name: 'get_weather', arguments: { city: 'Beijing' } }]);
  });

  it('a V3 fence is not an unclosed code block, and the fallbacks do not see inside the call', () => {
    const text = v3('write_file', '{"path": "a.md", "content": "x"}');
    expect(parse(text, { toolIntent: true })).toMatchObject({ candidate_count: 1, parse_mode: 'deepseek', fence_only_stop: false });
  });

  it('calls without the wrapper token are not read (vLLM requires it)', () => {
    expect(parse(deepSeekV3Call('get_weather', '{"city": "Paris"}'))).toMatchObject({ calls: [], reason: 'no_candidate' });
  });

  it('an unclosed call block is no candidate, like an unclosed tag', () => {
    expect(parse(`${DS_CALLS_BEGIN}${DS_CALL_BEGIN}function${DS_SEP}get_weather\n\`\`\`json\n{"city": "Paris"}\n\`\`\``)).toMatchObject({
      calls: [],
      reason: 'no_candidate',
    });
  });

  it('an end token inside the arguments does not cut them short', () => {
    expect(parse(v3('write_file', `{"path": "t.md", "content": "ends with ${DS_CALL_END}"}`)).calls).toEqual([
      { name: 'write_file', arguments: { path: 't.md', content: `ends with ${DS_CALL_END}` } },
    ]);
  });

  it('V3 without the ```json fence, or without a separator, is refused precisely', () => {
    expect(parse(`${DS_CALLS_BEGIN}${DS_CALL_BEGIN}function${DS_SEP}get_weather\n{"city": "Paris"}${DS_CALL_END}`).reason).toBe('invalid_json');
    expect(parse(`${DS_CALLS_BEGIN}${DS_CALL_BEGIN}get_weather {"city": "Paris"}${DS_CALL_END}`).reason).toBe('missing_name');
  });

  it('R1: reasoning opened by the template, closed in the output, then the call', () => {
    const text = `The user wants Paris. ${v3('get_weather', '{"city": "Bern"}')}\n</think>\n\n${v3('get_weather', '{"city": "Paris"}')}`;
    expect(parse(text)).toMatchObject({ calls: paris, candidate_count: 1 });
  });
});

describe('granite details', () => {
  it('prose after the array is not exactly one call', () => {
    expect(parse('<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}] and more').reason).toBe('invalid_json');
  });

  it('an element that is not an object is refused', () => {
    expect(parse('<|tool_call|>["get_weather"]').reason).toBe('payload_not_object');
  });
});

describe('functionary details', () => {
  it('text for the user (`>>>all`) before the call is prose', () => {
    expect(parse('>>>all\nLet me check.>>>get_weather\n{"city": "Paris"}', { toolIntent: true }).calls).toEqual(paris);
  });

  it('without intent, `>>>` is plain text: no_tool_intent', () => {
    expect(parse('>>>get_weather\n{"city": "Paris"}')).toMatchObject({ calls: [], reason: 'no_tool_intent' });
  });

  it('a Python prompt or a quote is not a call', () => {
    expect(parse('>>> import json\n>>> json.loads("{}")\n{}', { toolIntent: true })).toMatchObject({ calls: [], reason: 'no_candidate' });
  });

  it('faces the fallback size cap', () => {
    expect(parse('>>>write_file\n' + JSON.stringify({ path: 'a', content: 'x'.repeat(3000) }), { toolIntent: true }).reason).toBe('candidate_too_large');
  });
});

describe('mistral: a repeated token', () => {
  it('`[TOOL_CALLS][TOOL_CALLS][…]` is one call, not an empty one and a call', () => {
    expect(parse('[TOOL_CALLS][TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]')).toMatchObject({ calls: paris, candidate_count: 1 });
  });
});

describe('servers that drop special tokens (vLLM skip_special_tokens: true)', () => {
  it("Mistral's and Granite's array without its token is the json fallback: one candidate per call", () => {
    const text = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]';
    expect(parse(text)).toMatchObject({ calls: [], reason: 'no_tool_intent' });
    expect(parse(text, { toolIntent: true })).toMatchObject({ calls: paris, parse_mode: 'json', fallback_used: true, candidate_count: 1 });
    expect(parse(' [ {"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_weather", "arguments": {}} ] ', { toolIntent: true })).toMatchObject({
      calls: [],
      candidate_count: 2,
      reason: 'multiple_candidates',
    });
  });

  it('a broken array, or one with other things in it, is refused', () => {
    expect(parse('[{"name": "get_weather", "arguments": {"city": "Paris"}]', { toolIntent: true }).reason).toBe('invalid_json');
    expect(parse('[{"name": "get_weather", "arguments": {"city": "Paris"}}, 5]', { toolIntent: true }).reason).toBe('payload_not_object');
  });

  it('a JSON array of other objects is no candidate', () => {
    expect(parse('[{"city": "Paris"}, {"city": "Bern"}]', { toolIntent: true })).toMatchObject({ calls: [], reason: 'no_candidate' });
  });
});

describe("Mistral's [THINK] blocks", () => {
  it('a call drafted in [THINK]…[/THINK] is not a candidate; the one after it is', () => {
    const text = '[THINK]Maybe [TOOL_CALLS]get_weather[ARGS]{"city": "Bern"}[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}';
    expect(parse(text)).toMatchObject({ calls: paris, candidate_count: 1 });
  });
});
