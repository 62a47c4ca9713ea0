// Decodes the HTML character references that matter for reading attribute values and titles.
// Not the full named-entity table: anything unknown is left as written, which is harmless here.

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function fromCodePoint(codePoint: number, original: string): string {
  return Number.isInteger(codePoint) && codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : original;
}

/** Replaces &amp;, &#39;, &#x2F; and friends with the characters they stand for. */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (original, reference: string) => {
    if (reference[0] === '#') {
      const hex = reference[1] === 'x' || reference[1] === 'X';
      return fromCodePoint(Number.parseInt(reference.slice(hex ? 2 : 1), hex ? 16 : 10), original);
    }
    return NAMED[reference.toLowerCase()] ?? original;
  });
}
