// How a tool's output reaches the model: wrapped in a tag that marks it as untrusted data, so
// text a fetched page or a written file contains reads as data, not as instructions — and
// escaped so that data can never close (or forge) the wrapper.

const MAX_TOOL_RESULT_CHARACTERS = 32_000;

// `<` only ever appears inside JSON strings, where \u003c is an equivalent escape: the JSON
// still parses to the same value, but no `<tool_output` or `</tool_output` survives in the text.
const WRAPPER_TAG = /<(?=\s*\/?\s*tool_output)/gi;

function escapeAttribute(value: string): string {
  return value.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Serialises a tool's output inside an untrusted-data envelope. Cap the output with
 * maxCharacters rather than capping the envelope, which would cut off its closing tag. */
export function wrapToolOutput(toolName: string, output: unknown, options: { maxCharacters?: number } = {}): string {
  const json = (JSON.stringify(output) ?? 'null').replace(WRAPPER_TAG, '\\u003c');
  const body = options.maxCharacters === undefined ? json : capToolResultContent(json, options.maxCharacters);
  return `<tool_output tool="${escapeAttribute(toolName)}" trust="untrusted">\n${body}\n</tool_output>`;
}

function truncationMarker(shown: number, total: number): string {
  return `\n…[truncated: ${shown} of ${total} characters shown]`;
}

/** Truncates text to at most max characters (marker included), saying how much was cut. */
export function capToolResultContent(text: string, max = MAX_TOOL_RESULT_CHARACTERS): string {
  if (text.length <= max) return text;
  // The marker for `max` shown characters is at least as long as the real one, so the result
  // never exceeds max.
  let shown = Math.max(0, max - truncationMarker(max, text.length).length);
  // Never split a surrogate pair: half an emoji is not valid UTF-16.
  const last = text.charCodeAt(shown - 1);
  if (shown > 0 && last >= 0xd800 && last <= 0xdbff) shown -= 1;
  return text.slice(0, shown) + truncationMarker(shown, text.length);
}
