import { describe, expect, it } from 'vitest';
import { parsePythonCallList } from './python-literal.js';

describe('parsePythonCallList', () => {
  it('parses keyword arguments holding every supported literal', () => {
    const result = parsePythonCallList(
      `[configure(name='a "b"', title="it's", count=3, ratio=-0.5, big=1e3, on=True, off=False, none=None, ` +
        `tags=['x', "y",], nested={'k': [1, {'deep': -2}]}, empty_list=[], empty_dict={})]`,
    );
    expect(result).toEqual({
      ok: true,
      calls: [
        {
          name: 'configure',
          arguments: {
            name: 'a "b"',
            title: "it's",
            count: 3,
            ratio: -0.5,
            big: 1000,
            on: true,
            off: false,
            none: null,
            tags: ['x', 'y'],
            nested: { k: [1, { deep: -2 }] },
            empty_list: [],
            empty_dict: {},
          },
        },
      ],
    });
  });

  it('decodes escapes', () => {
    const result = parsePythonCallList(String.raw`[f(a='tab\there', b="\u00e9\x41\101\U0001F600", c='back\\slash', d='q\'s')]`);
    expect(result).toEqual({
      ok: true,
      calls: [{ name: 'f', arguments: { a: 'tab\there', b: 'éAA😀', c: 'back\\slash', d: "q's" } }],
    });
  });

  it('keeps dotted names and returns every call of a list', () => {
    const result = parsePythonCallList('[math.hypot(x=4, y=5), noop()]');
    expect(result.ok && result.calls.map((call) => call.name)).toEqual(['math.hypot', 'noop']);
  });

  it('makes __proto__ an own key, not a prototype', () => {
    const result = parsePythonCallList(`[f(data={'__proto__': {'polluted': True}})]`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const data = result.calls[0]?.arguments.data as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__']);
  });

  it.each([
    ['[f(a=1+2)]', 'expression_not_allowed'],
    ['[f(a=-x)]', 'expression_not_allowed'],
    ['[f(a=1 if b else 2)]', 'unexpected_token'],
    ['[f("positional")]', 'positional_argument'],
    ['[f(x)]', 'positional_argument'],
    ['[f(a=g())]', 'call_not_allowed'],
    ['[f(a=True())]', 'call_not_allowed'],
    ['[f(a=os)]', 'name_not_allowed'],
    ['[f(a=(1, 2))]', 'tuple_not_allowed'],
    ['[f(a={1: 2})]', 'dict_key_not_string'],
    ["[f(a={'k': 1, 'k': 2})]", 'duplicate_key'],
    ['[f(a=1, a=2)]', 'duplicate_argument'],
    ["[f(a=r'raw')]", 'string_prefix_not_allowed'],
    ["[f(a='x' 'y')]", 'expression_not_allowed'],
    [String.raw`[f(a='\d')]`, 'bad_escape'],
    ["[f(a='unterminated)]", 'bad_string'],
    ['[f(a=0x1F)]', 'unsupported_number'],
    ['[f(a=1_000)]', 'unsupported_number'],
    ['[f(a=007)]', 'unsupported_number'],
    ['[f(a=1e999)]', 'unsupported_number'],
    ['[f(a=12345678901234567890)]', 'integer_out_of_range'],
    ['[f(a=[1, 2][0])]', 'expression_not_allowed'],
    ['[f(a=1)] trailing', 'trailing_text'],
    ['[]', 'empty_call_list'],
    ['[f(a=' + '['.repeat(70) + ']'.repeat(70) + ')]', 'too_deep'],
  ])('refuses %s as %s', (text, detail) => {
    expect(parsePythonCallList(text)).toEqual({ ok: false, detail });
  });
});
