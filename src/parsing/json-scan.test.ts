import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, scanJsonValue } from './json-scan.js';

const scan = (text: string) => scanJsonValue({ text, start: 0 });

describe('scanJsonValue', () => {
  it.each([
    '{}',
    '[]',
    '{"a": 1, "b": [true, false, null], "c": {"d": -1.5e+3}}',
    '"plain"',
    '0',
    '-0.25',
    '{"braces": "{ not [ structure }", "quote": "say \\"hi\\""}',
    '{"unicode": "\\u00e9\\ud83d\\ude00", "slash": "\\/"}',
  ])('accepts %s and ends exactly after it', (text) => {
    const result = scan(text);
    expect(result.ok).toBe(true);
    expect(result.end).toBe(text.length);
  });

  it.each([
    ['{"a": 1,}', 'trailing comma'],
    ["{'a': 1}", 'single quotes'],
    ['{"a": 01}', 'leading zero'],
    ['{"a": "line\nbreak"}', 'raw control character in a string'],
    ['{"a": "\\q"}', 'unknown escape'],
    ['{"a": tru}', 'broken literal'],
    ['{"a" 1}', 'missing colon'],
    ['{"a": 1', 'unclosed object'],
    ['{a: 1}', 'unquoted key'],
    ['{"a": NaN}', 'NaN'],
  ])('refuses %j (%s)', (text) => {
    expect(scan(text).ok).toBe(false);
  });

  it('stops after the first value, leaving trailing text to the caller', () => {
    const result = scan('{"a": 1} tail');
    expect(result).toMatchObject({ ok: true, end: 8 });
  });

  it('records the root keys, decoded, even when the object breaks later', () => {
    const result = scan('{"n\\u0061me": "x", "arguments": {invalid}');
    expect(result.ok).toBe(false);
    expect(result.topLevelKeys).toEqual(['name', 'arguments']);
  });

  it('only records keys of the root object', () => {
    expect(scan('{"a": {"name": 1}, "b": 2}').topLevelKeys).toEqual(['a', 'b']);
  });

  it('refuses duplicate keys at any depth', () => {
    expect(scan('{"path": "a", "path": "b"}')).toMatchObject({ ok: false, error: 'duplicate_key' });
    expect(scan('{"x": {"k": 1, "k": 2}}')).toMatchObject({ ok: false, error: 'duplicate_key' });
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH}`, () => {
    const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
    expect(scan(deep)).toMatchObject({ ok: false, error: 'too_deep' });
    const limit = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(scan(limit).ok).toBe(true);
  });

  it('treats `end` as the end of the text', () => {
    const text = '{"a": 12}{"b": "x"}';
    expect(scanJsonValue({ text, start: 0, end: 9 })).toMatchObject({ ok: true, end: 9 });
    expect(scanJsonValue({ text, start: 0, end: 8 }).ok).toBe(false);
    expect(scanJsonValue({ text: '12345', start: 0, end: 3 })).toMatchObject({ ok: true, end: 3 });
    expect(scanJsonValue({ text: '"abc"', start: 0, end: 4 }).ok).toBe(false);
  });

  it('detects duplicates in objects with many keys', () => {
    const keys = Array.from({ length: 50 }, (_, index) => `"k${index}": ${index}`);
    expect(scan(`{${keys.join(', ')}}`).ok).toBe(true);
    expect(scan(`{${keys.join(', ')}, "k7": 0}`)).toMatchObject({ ok: false, error: 'duplicate_key' });
  });

  it('scans from a given start', () => {
    const text = 'xx{"a":1}';
    expect(scanJsonValue({ text, start: 2 })).toMatchObject({ ok: true, end: text.length });
  });
});
