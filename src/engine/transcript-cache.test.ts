import { describe, expect, it } from 'vitest';
import { TranscriptCache } from './transcript-cache.js';

const raw = (text: string) => JSON.stringify({ role: 'user', content: [{ type: 'text', text }] });

describe('TranscriptCache', () => {
  it('keeps a run transcript parsed and extends it with what was appended after it', () => {
    const cache = new TranscriptCache(10_000);
    cache.replace('run_a', [raw('one'), raw('two')]);
    const entry = cache.appendAt('run_a', 2, [raw('three')]);
    expect(entry?.messages).toHaveLength(3);
    expect(cache.get('run_a')?.lastRaw).toBe(raw('three'));
    expect(cache.get('run_a')?.bytes).toBe(raw('one').length + raw('two').length + raw('three').length);
  });

  it('forgets a run when an append does not start where the cached transcript ends', () => {
    const cache = new TranscriptCache(10_000);
    cache.replace('run_a', [raw('one')]);
    cache.appendIfAt('run_a', 2, [raw('three')]);
    expect(cache.get('run_a')).toBeUndefined();
  });

  it('rewrites the last message in place (a pause_turn continuation)', () => {
    const cache = new TranscriptCache(10_000);
    cache.replace('run_a', [raw('one'), raw('two')]);
    cache.replaceLast('run_a', raw('two, continued'));
    expect(cache.get('run_a')?.messages.at(-1)).toEqual(JSON.parse(raw('two, continued')));
    expect(cache.get('run_a')?.bytes).toBe(raw('one').length + raw('two, continued').length);
  });

  it('stays within its bytes, evicting the least recently used run first', () => {
    const one = raw('x'.repeat(100));
    const cache = new TranscriptCache(one.length * 2);
    cache.replace('run_a', [one]);
    cache.replace('run_b', [one]);
    cache.get('run_a');
    cache.replace('run_c', [one]);
    expect(cache.get('run_b')).toBeUndefined();
    expect(cache.get('run_a')).toBeDefined();
    expect(cache.size).toEqual({ runs: 2, bytes: one.length * 2 });
    // A transcript larger than the whole cache is not kept at all.
    cache.replace('run_d', [one, one, one]);
    expect(cache.get('run_d')).toBeUndefined();
  });
});
