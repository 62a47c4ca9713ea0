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

const LINE_MARKER_BLANK = ' '.repeat(TOOL_INTENT_LINE_MARKER.length);
const TAG_MARKER_BLANK = ' '.repeat(TOOL_INTENT_TAG_MARKER.length);

export interface MaskedMarkers {
  found: boolean;
  /** The text with every marker replaced by spaces. */
  masked: string;
}

/** Finds and blanks the tool-intent markers. Linear in the text. */
export function maskToolIntentMarkers(text: string): MaskedMarkers {
  const tagParts = text.split(TOOL_INTENT_TAG_MARKER);
  let found = tagParts.length > 1;
  const withoutTags = found ? tagParts.join(TAG_MARKER_BLANK) : text;

  const pieces: string[] = [];
  let copiedUpTo = 0;
  let searchFrom = 0;
  for (;;) {
    const at = withoutTags.indexOf(TOOL_INTENT_LINE_MARKER, searchFrom);
    if (at < 0) break;
    searchFrom = at + TOOL_INTENT_LINE_MARKER.length;
    // Only spaces and tabs may stand between the line start and the marker. Walking back crosses
    // only those, and never past the previous marker, so the walks stay linear overall.
    let index = at - 1;
    let code = withoutTags.charCodeAt(index);
    while (index >= 0 && (code === 0x20 || code === 0x09)) {
      index -= 1;
      code = withoutTags.charCodeAt(index);
    }
    if (index >= 0 && code !== 0x0a) continue;
    found = true;
    pieces.push(withoutTags.slice(copiedUpTo, at), LINE_MARKER_BLANK);
    copiedUpTo = searchFrom;
  }
  if (copiedUpTo === 0) return { found, masked: withoutTags };
  pieces.push(withoutTags.slice(copiedUpTo));
  return { found, masked: pieces.join('') };
}
