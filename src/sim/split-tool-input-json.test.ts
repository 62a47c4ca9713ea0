import { describe, expect, it } from 'vitest';
import { splitToolInputJson } from './split-tool-input-json.js';

describe('splitToolInputJson', () => {
  it('ends a piece after each top-level member, ignoring commas and braces inside strings and nested values', () => {
    const json = JSON.stringify({ path: 'a,b}"c', content: '<p class="x">{1, 2}</p>\\', todos: [{ id: 'a', done: false }, { id: 'b' }], n: 3 });
    const pieces = splitToolInputJson({ json });
    expect(pieces).toEqual([
      '{"path":"a,b}\\"c",',
      '"content":"<p class=\\"x\\">{1, 2}</p>\\\\",',
      '"todos":[{"id":"a","done":false},{"id":"b"}],',
      '"n":3}',
    ]);
    expect(pieces.join('')).toBe(json);
  });

  it('keeps a cut-off last member as its own piece, and an empty object whole', () => {
    expect(splitToolInputJson({ json: '{"path":"index.html","content":"<html><bo' })).toEqual(['{"path":"index.html",', '"content":"<html><bo']);
    expect(splitToolInputJson({ json: '{}' })).toEqual(['{}']);
    expect(splitToolInputJson({ json: '' })).toEqual([]);
  });
});
