// Redis stream ids (`<milliseconds>-<sequence>`, both unsigned 64-bit) compared as numbers:
// compared as strings, `9-0` would come after `10-0`.

function partsOf(id: string): [bigint, bigint] {
  // '-' is XRANGE's "before everything", as readEvents takes it.
  if (id === '-') return [0n, 0n];
  const [milliseconds = '0', sequence = '0'] = id.split('-');
  return [BigInt(milliseconds), BigInt(sequence)];
}

/** Negative when `a` is before `b`, 0 when equal, positive when after. */
export function compareStreamIds(a: string, b: string): number {
  const [aMilliseconds, aSequence] = partsOf(a);
  const [bMilliseconds, bSequence] = partsOf(b);
  if (aMilliseconds !== bMilliseconds) return aMilliseconds < bMilliseconds ? -1 : 1;
  if (aSequence !== bSequence) return aSequence < bSequence ? -1 : 1;
  return 0;
}
