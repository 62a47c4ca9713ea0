// A metric heuristic, not a parser: does the text hold something shaped like a JSON tool call,
// i.e. a `"tool"` or `"name"` key (followed by a colon) after an opening brace? Counted when no
// call came out, it shows how often models write calls the parser cannot use. Linear.

export function looksLikeJsonToolCall(text: string): boolean {
  const firstBrace = text.indexOf('{');
  if (firstBrace < 0) return false;
  let position = firstBrace;
  for (;;) {
    const quote = text.indexOf('"', position);
    if (quote < 0) return false;
    if (text.startsWith('"name"', quote) || text.startsWith('"tool"', quote)) {
      let index = quote + 6;
      while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
      if (text[index] === ':') return true;
    }
    position = quote + 1;
  }
}
