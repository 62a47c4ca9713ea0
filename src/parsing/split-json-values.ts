// Where each call is in a payload that lists several as JSON: a JSON array (Mistral before v11,
// Granite) or values separated by `;` (Llama 3's `{…}; {…}`, vLLM llama3_json). Phase 1 uses the
// spans to count candidates, so two calls in one array are `multiple_candidates` like two tags.
import { scanJsonValue, skipJsonWhitespace } from './json-scan.js';

export interface Span {
  start: number;
  end: number;
}

/**
 * The spans of the values when [start, end) is exactly such a list (whitespace around it
 * allowed), or null when it is not (broken JSON, text after it): then the payload is one
 * candidate and phase 2 refuses it with a precise reason.
 */
export function splitJsonValues({ text, start, end, form }: { text: string; start: number; end: number; form: 'array' | 'semicolon_list' }): Span[] | null {
  const spans: Span[] = [];
  let position = skipJsonWhitespace(text, start, end);
  if (form === 'array') {
    if (text.charCodeAt(position) !== 0x5b /* [ */) return null;
    position = skipJsonWhitespace(text, position + 1, end);
    if (text.charCodeAt(position) === 0x5d /* ] */) return skipJsonWhitespace(text, position + 1, end) === end ? spans : null;
  }
  const separator = form === 'array' ? 0x2c /* , */ : 0x3b; /* ; */
  for (;;) {
    const scan = scanJsonValue({ text, start: position, end });
    if (!scan.ok) return null;
    spans.push({ start: position, end: scan.end });
    position = skipJsonWhitespace(text, scan.end, end);
    if (position < end && text.charCodeAt(position) === separator) {
      position = skipJsonWhitespace(text, position + 1, end);
      continue;
    }
    if (form === 'array') {
      if (text.charCodeAt(position) !== 0x5d /* ] */) return null;
      position = skipJsonWhitespace(text, position + 1, end);
    }
    return position === end ? spans : null;
  }
}
