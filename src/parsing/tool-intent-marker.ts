// The explicit tool-intent markers a model may write to say "what follows is a tool call", which
// unlock the fallback formats (strict JSON, fenced, bracket) when the runtime did not expect a
// call this turn:
//
//   - a line starting (after optional spaces or tabs) with `TOOL_CALL:`; the rest of the line
//     stays, so `TOOL_CALL: [get_weather(city="Antwerp")]` works;
//   - the self-closing tag `<tool_intent/>`, anywhere in the visible text.
//
// Markers are blanked (replaced by spaces of the same length) before the fallbacks look at the
// text, so offsets stay valid and "the whole trimmed output" means the output without them.
// Markers inside <think> do not count: the visible text is searched, nothing else.

export const TOOL_INTENT_LINE_MARKER = 'TOOL_CALL:';
export const TOOL_INTENT_TAG_MARKER = '<tool_intent/>';

export interface MaskedMarkers {
  found: boolean;
  /** The text with every marker replaced by spaces. */
  masked: string;
}

/** Finds and blanks the tool-intent markers. Linear in the text. */
export function maskToolIntentMarkers(text: string): MaskedMarkers {
  const tagParts = text.split(TOOL_INTENT_TAG_MARKER);
  let found = tagParts.length > 1;
  const withoutTags = found ? tagParts.join(' '.repeat(TOOL_INTENT_TAG_MARKER.length)) : text;

  const pieces: string[] = [];
  let copiedUpTo = 0;
  let lineStart = 0;
  while (lineStart <= withoutTags.length) {
    let index = lineStart;
    while (index < withoutTags.length && (withoutTags[index] === ' ' || withoutTags[index] === '\t')) index += 1;
    if (withoutTags.startsWith(TOOL_INTENT_LINE_MARKER, index)) {
      found = true;
      pieces.push(withoutTags.slice(copiedUpTo, index), ' '.repeat(TOOL_INTENT_LINE_MARKER.length));
      copiedUpTo = index + TOOL_INTENT_LINE_MARKER.length;
    }
    const lineEnd = withoutTags.indexOf('\n', index);
    if (lineEnd < 0) break;
    lineStart = lineEnd + 1;
  }
  if (copiedUpTo === 0) return { found, masked: withoutTags };
  pieces.push(withoutTags.slice(copiedUpTo));
  return { found, masked: pieces.join('') };
}
