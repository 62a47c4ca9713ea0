import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonHash } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('hashes equal values equally whatever the key order, and different values differently', () => {
    expect(canonicalJsonHash({ prompt: 'x', maxTurns: 3 })).toBe(canonicalJsonHash({ maxTurns: 3, prompt: 'x' }));
    expect(canonicalJsonHash({ prompt: 'x', model: undefined })).toBe(canonicalJsonHash({ prompt: 'x' }));
    expect(canonicalJsonHash({ prompt: 'x' })).not.toBe(canonicalJsonHash({ prompt: 'y' }));
    expect(canonicalJsonHash([1, 2])).not.toBe(canonicalJsonHash([2, 1]));
  });
});
