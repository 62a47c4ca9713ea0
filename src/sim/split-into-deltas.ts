// How both streamed APIs cut generated text into deltas: real deltas carry a token or a few, of
// varying size, so a client's accumulation is exercised across uneven boundaries.

/** Characters per delta, cycled. */
const DELTA_SIZES = [12, 20, 28, 16, 24, 36, 8, 32];

export function splitIntoDeltas({ text }: { text: string }): string[] {
  const parts: string[] = [];
  let offset = 0;
  for (let index = 0; offset < text.length; index += 1) {
    const size = DELTA_SIZES[index % DELTA_SIZES.length] ?? 16;
    parts.push(text.slice(offset, offset + size));
    offset += size;
  }
  return parts;
}
