// One short line for a tool's input or output in a timeline: the JSON with long strings cut to
// their start and length, so a written page reads `content:"<!doctype html>…" (525 chars)` rather
// than scrolling the terminal.

const STRING_HEAD = 40;

function summarize(value: unknown, depth: number): string {
  if (typeof value === 'string') {
    const flat = value.replace(/\s+/g, ' ');
    return flat.length > STRING_HEAD ? `${JSON.stringify(flat.slice(0, STRING_HEAD))}… (${value.length} chars)` : JSON.stringify(flat);
  }
  if (value === null || typeof value !== 'object') return String(value);
  // Deep structures say how big they are instead of spelling themselves out.
  if (Array.isArray(value)) return depth >= 2 ? `[${value.length} items]` : `[${value.map((item) => summarize(item, depth + 1)).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (depth >= 2) return `{${entries.length} fields}`;
  return `{${entries.map(([key, field]) => `${key}: ${summarize(field, depth + 1)}`).join(', ')}}`;
}

/** The value as one line of at most `maxChars` characters. */
export function summarizeValue(value: unknown, maxChars = 160): string {
  const line = summarize(value, 0);
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}
