// A tool input's JSON text split where each top-level parameter ends, for streaming it the way the
// real API does without fine-grained tool streaming: it buffers and validates each parameter before
// sending it (docs agents-and-tools/tool-use/fine-grained-tool-streaming: "stream tool use
// parameters without buffering / JSON validation" is what the feature adds; without it you wait
// "for the entire parameter to buffer and validate"). See stream-message.ts.

/**
 * The pieces of `json` (an object's JSON text, possibly cut off) ending after each top-level member:
 * `{"path":"a","content":"…"}` → `{"path":"a",` and `"content":"…"}`. Concatenated they are `json`
 * again; a cut-off last member is its own, incomplete piece.
 */
export function splitToolInputJson({ json }: { json: string }): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = 0;
  for (let index = 0; index < json.length; index += 1) {
    const character = json[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === '{' || character === '[') depth += 1;
    else if (character === '}' || character === ']') depth -= 1;
    // A comma at the object's own level ends a member; the closing brace ends the last one.
    const endsMember = (character === ',' && depth === 1) || (character === '}' && depth === 0);
    if (endsMember) {
      pieces.push(json.slice(start, index + 1));
      start = index + 1;
    }
  }
  if (start < json.length) pieces.push(json.slice(start));
  return pieces;
}
