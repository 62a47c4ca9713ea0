// Strings the fleet did not write — a redirect target, a Content-Type header, a parse error that
// repeats the start of a body, a DNS or socket error — are quoted as data wherever the fleet's own
// words mention them (tool errors, invalid-output messages, refusals). One helper, so every such
// string reaches the model the same way:
//   - as a JSON string literal, so it cannot end its quotes or start a new line of the message
//     (quotes, backslashes, line breaks and control characters are escaped);
//   - with `<` and `>` escaped as \u003c and \u003e, so no tag survives — not the untrusted-data
//     wrapper's own `</tool_output>`, nor a role tag or a chat-template token;
//   - with the Unicode line separators and the bidirectional controls escaped, so the text cannot
//     look like more lines than it is or reorder what is around it;
//   - capped, the cut said outside the quotes, so an upstream cannot fill the model's context.
// A JSON-aware reader gets the original string back (up to the cap) with JSON.parse.

/** How much of an upstream string a message quotes by default (a URL, a header, an excerpt). */
export const QUOTED_MAX_CHARACTERS = 300;

// U+2028/U+2029 break lines; U+200E/U+200F, U+061C, U+202A–U+202E and U+2066–U+2069 are the
// bidirectional marks, embeddings, overrides and isolates.
const ESCAPED_IN_QUOTES = /[<>\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g;

function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return '(unprintable value)';
  }
}

/** `value` as a quoted, escaped, capped JSON string literal, e.g. `"http://x/%3C…"…[+1200 characters]`. */
export function quoteUntrusted(value: unknown, { maxCharacters = QUOTED_MAX_CHARACTERS }: { maxCharacters?: number } = {}): string {
  const text = textOf(value);
  let shown = Math.max(0, Math.min(text.length, maxCharacters));
  // Never split a surrogate pair: half an emoji is not valid UTF-16.
  const last = text.charCodeAt(shown - 1);
  if (shown > 0 && shown < text.length && last >= 0xd800 && last <= 0xdbff) shown -= 1;
  // JSON.stringify escapes quotes, backslashes, control characters and lone surrogates.
  const quoted = JSON.stringify(text.slice(0, shown)).replace(ESCAPED_IN_QUOTES, unicodeEscape);
  return shown < text.length ? `${quoted}…[+${text.length - shown} characters]` : quoted;
}
