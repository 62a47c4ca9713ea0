// Phase 1 for the bracket fallback: is the text shaped like `[name(…), name(…)]`, and where is
// each call? A linear, quote-aware bracket count; values are not parsed here (that is phase 2,
// python-literal.ts), so a malformed list still counts as one candidate and gets a precise
// refusal rather than silently being ignored.

export interface Span {
  start: number;
  end: number;
}

/**
 * The spans of the calls in `listText` (which starts with `[` and ends with `]`), or [] when it
 * does not open like a call list (`[` identifier `(`), e.g. a Markdown `[note]` or `[1, 2]`.
 */
export function splitBracketCalls(listText: string): Span[] {
  const whole: Span[] = [{ start: 0, end: listText.length }];
  if (!opensWithCall(listText, 1)) return [];

  const spans: Span[] = [];
  const closing = listText.length - 1;
  let depth = 0;
  let segmentStart = 1;
  let index = 1;
  while (index < closing) {
    const character = listText[index];
    if (character === '"' || character === "'") {
      const end = skipQuoted(listText, index, closing);
      if (end < 0) return whole;
      index = end;
      continue;
    }
    if (character === '(' || character === '[' || character === '{') depth += 1;
    else if (character === ')' || character === ']' || character === '}') {
      depth -= 1;
      if (depth < 0) return whole;
    } else if (character === ',' && depth === 0) {
      spans.push({ start: segmentStart, end: index });
      segmentStart = index + 1;
    }
    index += 1;
  }
  if (depth !== 0) return whole;
  if (listText.slice(segmentStart, closing).trim() !== '') spans.push({ start: segmentStart, end: closing });
  // Every segment must open like a call, or the list is malformed as a whole.
  for (const span of spans) {
    if (!opensWithCall(listText, span.start)) return whole;
  }
  return spans;
}

/** Whitespace, an identifier (dots allowed), whitespace, `(`. */
function opensWithCall(text: string, from: number): boolean {
  let index = skipSpaces(text, from);
  const nameStart = index;
  while (index < text.length && /[A-Za-z0-9_.]/.test(text[index] ?? '')) index += 1;
  if (index === nameStart || /[0-9.]/.test(text[nameStart] ?? '')) return false;
  index = skipSpaces(text, index);
  return text[index] === '(';
}

function skipSpaces(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
  return index;
}

/** The index after the closing quote, or -1 (unterminated before `limit` or at a line break). */
function skipQuoted(text: string, openAt: number, limit: number): number {
  const quote = text[openAt];
  let index = openAt + 1;
  while (index < limit) {
    const character = text[index];
    if (character === '\\') {
      index += 2;
      continue;
    }
    if (character === quote) return index + 1;
    if (character === '\n') return -1;
    index += 1;
  }
  return -1;
}
