// Cases adapted from other projects' public tool-parser test suites, re-expressed for this
// parser (reworded, not copied). Where our strict gates decide differently from the source
// project, the test says so: those differences are deliberate.
//
// Sources:
//   vLLM  tests/entrypoints/openai/tool_parsers/test_pythonic_tool_parser.py   (pythonic)
//   vLLM  tests/tool_parsers/test_hermes_tool_parser.py                        (hermes <tool_call>)
//   vLLM  tests/entrypoints/openai/tool_parsers/test_hermes_tool_parser.py     (hermes + reasoning)
//   vLLM  tests/entrypoints/openai/tool_parsers/test_llama3_json_tool_parser.py (bare JSON)
//   SGLang test/srt/test_function_call_parser.py         (PythonicDetector, Llama32Detector)
//   SGLang test/srt/function_call/test_unknown_tool_name.py
//   llama.cpp tests/test-chat.cpp                        (Hermes 2 Pro / QwQ parsing cases)
//   BFCL  berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_simple_python.json
import { describe, expect, it } from 'vitest';
import { createJsonSchemaValidator } from './create-json-schema-validator.js';
import { parseToolCallsFromText } from './parse-tool-calls.js';
import type { ParseOptions } from './parse-types.js';

const object = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const string = { type: 'string' };
const integer = { type: 'integer' };

const tools = [
  { name: 'get_weather', input_schema: object({ city: string, metric: string, location: string, unit: string, data: { type: 'array' } }) },
  {
    name: 'register_user',
    input_schema: object(
      {
        name: string,
        age: integer,
        address: object({ city: string, state: string }),
        role: { type: ['string', 'null'] },
        passed_test: { type: 'boolean' },
        aliases: { type: 'array', items: string },
      },
      ['name', 'age'],
    ),
  },
  { name: 'do_something_cool', input_schema: object({ additional_data: { type: 'object' }, steps: { type: 'array' } }) },
  { name: 'search', input_schema: object({ query: string, config: { type: 'object' } }, ['query']) },
  { name: 'final_answer', input_schema: object({ trigger: { type: 'boolean' } }, ['trigger']) },
  { name: 'get_db_config', input_schema: object({ param: string }, ['param']) },
  { name: 'do_thing', input_schema: { type: 'object' } },
  { name: 'internet_search', input_schema: object({ question: string }, ['question']) },
  { name: 'searchTool', input_schema: { type: 'object', properties: { query: string, limit: integer } } },
  { name: 'complexTool', input_schema: { type: 'object' } },
  { name: 'parserTool', input_schema: object({ text: string }, ['text']) },
  { name: 'special_function', input_schema: object({ arg1: integer }, ['arg1']) },
  { name: 'python', input_schema: object({ code: string }, ['code']) },
  { name: 'calculate_triangle_area', input_schema: object({ base: integer, height: integer, unit: string }, ['base', 'height']) },
  { name: 'math.hypot', input_schema: object({ x: integer, y: integer, z: integer }, ['x', 'y']) },
  { name: 'algebra.quadratic_roots', input_schema: object({ a: integer, b: integer, c: integer }, ['a', 'b', 'c']) },
];

const options: ParseOptions = {
  allowedTools: tools.map((tool) => tool.name),
  validate: createJsonSchemaValidator(tools),
  toolIntent: true,
};
const parse = (text: string, overrides: Partial<ParseOptions> = {}) => parseToolCallsFromText(text, { ...options, ...overrides });

describe('vLLM pythonic parser cases', () => {
  it('simple call with single-quoted strings', () => {
    expect(parse("[get_weather(city='San Francisco', metric='celsius')]").calls).toEqual([
      { name: 'get_weather', arguments: { city: 'San Francisco', metric: 'celsius' } },
    ]);
  });

  it('every literal type: dict, None, True, list', () => {
    const text =
      "[register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, " +
      "role=None, passed_test=True, aliases=['John', 'Johnny'])]";
    expect(parse(text).calls[0]?.arguments).toEqual({
      name: 'John Doe',
      age: 37,
      address: { city: 'San Francisco', state: 'CA' },
      role: null,
      passed_test: true,
      aliases: ['John', 'Johnny'],
    });
  });

  it('a call without parameters', () => {
    expect(parse('[get_weather()]').calls).toEqual([{ name: 'get_weather', arguments: {} }]);
  });

  it('an empty dict and an empty list as values', () => {
    expect(parse('[do_something_cool(additional_data={})]').calls[0]?.arguments).toEqual({ additional_data: {} });
    expect(parse('[do_something_cool(steps=[])]').calls[0]?.arguments).toEqual({ steps: [] });
  });

  it('escaped quotes inside single-quoted strings', () => {
    const text = String.raw`[get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]`;
    expect(parse(text).calls[0]?.arguments).toEqual({ city: "Martha's Vineyard", metric: '"cool units"' });
  });

  it('parallel calls: vLLM returns both; the exactly-one gate refuses them', () => {
    const text = "[get_weather(city='San Francisco', metric='celsius'), register_user(name='John Doe', age=37)]";
    expect(parse(text)).toMatchObject({ calls: [], candidate_count: 2, reason: 'multiple_candidates' });
  });

  it('plain prose is not a call', () => {
    expect(parse('How can I help you today?')).toMatchObject({ calls: [], reason: 'no_candidate' });
  });

  it('the input that made a pythonic regex time out parses instantly to nothing', () => {
    const text = 'hello world[A(A=' + '\t)A(A=,\t'.repeat(2);
    expect(parse(text).calls).toEqual([]);
  });
});

describe('vLLM hermes parser cases', () => {
  it('a tool call between tags with newlines', () => {
    expect(parse('<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>').calls).toEqual([
      { name: 'final_answer', arguments: { trigger: true } },
    ]);
  });

  it('a tool call running to end of output: vLLM accepts it; an unclosed tag is no candidate here', () => {
    expect(parse('<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}')).toMatchObject({
      calls: [],
      reason: 'no_candidate',
    });
  });

  it('a payload missing its closing brace gives no call', () => {
    expect(parse('<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}\n</tool_call>')).toMatchObject({
      calls: [],
      reason: 'invalid_json',
    });
  });

  it('arguments already serialised to a string: vLLM decodes them; they are refused here', () => {
    const text = '<tool_call>\n{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>';
    expect(parse(text)).toMatchObject({ calls: [], reason: 'arguments_as_string' });
  });

  it('a bare string as arguments is refused', () => {
    expect(parse('<tool_call>\n{"name": "do_thing", "arguments": "hello"}\n</tool_call>').reason).toBe('arguments_as_string');
  });

  it('content before the tool call', () => {
    expect(parse('Sure, let me check the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>').calls).toEqual([
      { name: 'get_weather', arguments: { city: 'NYC' } },
    ]);
  });

  it('two sequential tool calls are refused as multiple candidates', () => {
    const text =
      '<tool_call>{"name": "search", "arguments": {"query": "cats"}}</tool_call>' +
      '<tool_call>{"name": "search", "arguments": {"query": "dogs"}}</tool_call>';
    expect(parse(text)).toMatchObject({ calls: [], candidate_count: 2, reason: 'multiple_candidates' });
  });

  it('long reasoning closed by </think> (template-opened), then a call with non-ASCII arguments', () => {
    const text =
      '用户要设计一台5MW燃气轮机，需要空气流量、压比等参数。也许 <tool_call>{"name": "internet_search"}</tool_call> 有帮助。\n</think>\n\n' +
      '<tool_call>\n{"name": "internet_search", "arguments": {"question": "5MW燃气轮机设计参数 空气流量 压气机压比"}}\n</tool_call>\n\n ';
    expect(parse(text)).toMatchObject({
      calls: [{ name: 'internet_search', arguments: { question: '5MW燃气轮机设计参数 空气流量 压气机压比' } }],
      candidate_count: 1,
    });
  });
});

describe('vLLM llama3 JSON parser cases', () => {
  it('a bare JSON call with `parameters`', () => {
    expect(parse('{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}').calls).toEqual([
      { name: 'searchTool', arguments: { query: 'test query', limit: 10 } },
    ]);
  });

  it('JSON inside prose: vLLM extracts it; here it is not the whole output', () => {
    const text = 'Here is the result: {"name": "searchTool", "parameters": {}} Would you like to know more?';
    expect(parse(text)).toMatchObject({ calls: [], reason: 'no_candidate', json_in_text: true });
  });

  it('invalid JSON that names a tool is refused as invalid_json', () => {
    expect(parse('{"name": "searchTool", "parameters": {invalid json}')).toMatchObject({ calls: [], reason: 'invalid_json' });
  });

  it('several calls separated by semicolons are not one object', () => {
    const text = '{"name": "searchTool", "parameters": {"query": "test1"}}; {"name": "searchTool", "parameters": {}}';
    expect(parse(text)).toMatchObject({ calls: [], reason: 'no_candidate' });
  });

  it('five levels of nesting', () => {
    const text = '{"name": "complexTool", "parameters": {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}}}';
    expect(parse(text).calls[0]?.arguments).toEqual({ level1: { level2: { level3: { level4: { value: 'deep' } } } } });
  });

  it('quotes and brackets inside string values', () => {
    const text = '{"name": "searchTool", "parameters": {"query": "test {value} [complex]"}}';
    expect(parse(text).calls[0]?.arguments).toEqual({ query: 'test {value} [complex]' });
  });

  it('escaped quotes around braces', () => {
    const text = String.raw`{"name": "parserTool", "parameters": {"text": "He said \"Hello {world}\""}}`;
    expect(parse(text).calls[0]?.arguments).toEqual({ text: 'He said "Hello {world}"' });
  });
});

describe('SGLang detector cases', () => {
  it('pythonic call with a nested list', () => {
    expect(parse("[get_weather(location='New York', unit='celsius', data=[1, 2, 3])]").calls[0]?.arguments).toEqual({
      location: 'New York',
      unit: 'celsius',
      data: [1, 2, 3],
    });
  });

  it('pythonic call with a nested dict of lists and dicts', () => {
    const text = "[search(query='test', config={'options': [1, 2], 'nested': {'key': 'value'}})]";
    expect(parse(text).calls[0]?.arguments).toEqual({ query: 'test', config: { options: [1, 2], nested: { key: 'value' } } });
  });

  it('pythonic call after prose: SGLang extracts it; here the list must be the whole output', () => {
    expect(parse("Here's a tool call: [get_weather(location='New York', unit='celsius')]").calls).toEqual([]);
  });

  it('Llama 3.2 single JSON call', () => {
    expect(parse('{"name": "get_weather", "parameters": {"city": "Paris"}}').calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' } },
    ]);
  });

  it('an undefined function name is dropped with a reason', () => {
    expect(parse('{"name":"unknown_tool","parameters":{"city":"Paris"}}')).toMatchObject({
      calls: [],
      reason: 'unknown_tool:unknown_tool',
    });
  });
});

describe('llama.cpp Hermes 2 Pro cases', () => {
  const specialCall = [{ name: 'special_function', arguments: { arg1: 1 } }];

  it('<tool_call> with the JSON on its own line', () => {
    expect(parse('<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>').calls).toEqual(specialCall);
  });

  it('content, then the call', () => {
    expect(parse('Hello, world!\nWhat\'s up?<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>').calls).toEqual(
      specialCall,
    );
  });

  it('a ```json fence with leading spaces', () => {
    expect(parse('```json\n  {"name": "special_function", "arguments": {"arg1": 1}}\n```').calls).toEqual(specialCall);
  });

  it('a plain ``` fence', () => {
    expect(parse('```\n{"name": "special_function", "arguments": {"arg1": 1}}\n```').calls).toEqual(specialCall);
  });

  it('a ```xml fence: llama.cpp accepts it; only json and plain fences are fallbacks here', () => {
    expect(parse('```xml\n  {"name": "special_function", "arguments": {"arg1": 1}}\n```')).toMatchObject({
      calls: [],
      reason: 'no_candidate',
    });
  });

  it('bare JSON with a newline after the brace', () => {
    expect(parse('{\n  "name": "special_function", "arguments": {"arg1": 1}}').calls).toEqual(specialCall);
  });

  it('prose then bare JSON: llama.cpp calls it; here it is not the whole output', () => {
    expect(parse('This is not a tool call:\n{"name": "special_function", "arguments": {"arg1": 1}}').calls).toEqual([]);
  });

  it('two <tool_call> blocks are refused as multiple candidates', () => {
    const text =
      '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "python", "arguments": {"code":"print(\'hello\')"}}\n</tool_call>';
    expect(parse(text)).toMatchObject({ calls: [], candidate_count: 2, reason: 'multiple_candidates' });
  });

  it('a tag inside an unclosed <think> is reasoning, not a call', () => {
    expect(parse('<think><tool_call>nah uhg</tool_call>')).toMatchObject({ calls: [], candidate_count: 0 });
  });

  it('QwQ: thinking opened by the template, closed in the output, then the call', () => {
    expect(parse('I\'m\nthinking</think>\n<tool_call>{"name": "special_function", "arguments": {"arg1": 1}}</tool_call>').calls).toEqual(
      specialCall,
    );
  });

  it('a string escape inside code arguments', () => {
    const text = '<tool_call>\n{"name": "python", "arguments": {"code":"# This is a program:\\nprint(\'hey\')"}}\n</tool_call>';
    expect(parse(text).calls[0]?.arguments).toEqual({ code: "# This is a program:\nprint('hey')" });
  });
});

describe('BFCL simple_python cases', () => {
  it('simple_python_0: integers', () => {
    expect(parse('[calculate_triangle_area(base=10, height=5)]').calls).toEqual([
      { name: 'calculate_triangle_area', arguments: { base: 10, height: 5 } },
    ]);
  });

  it('simple_python_2: a dotted function name, optional parameter left out (no default filled)', () => {
    expect(parse('[math.hypot(x=4, y=5)]').calls).toEqual([{ name: 'math.hypot', arguments: { x: 4, y: 5 } }]);
  });

  it('simple_python_3: negative integers', () => {
    expect(parse('[algebra.quadratic_roots(a=1, b=-3, c=2)]').calls[0]?.arguments).toEqual({ a: 1, b: -3, c: 2 });
  });

  it('a string where the schema wants an integer is not coerced', () => {
    expect(parse('[calculate_triangle_area(base="10", height=5)]')).toMatchObject({
      calls: [],
      schema_validation: 'fail',
      reason: 'schema_invalid:/base:must be integer',
    });
  });

  it('a float where the schema wants an integer is refused', () => {
    expect(parse('[calculate_triangle_area(base=10.5, height=5)]').reason).toBe('schema_invalid:/base:must be integer');
  });
});
