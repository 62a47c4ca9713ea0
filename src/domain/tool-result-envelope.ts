// How every tool_result reaches the model: wrapped in a tag that marks it as untrusted data —
// successful outputs and error results alike — so text a fetched page, a header, a redirect
// target or a written file contains reads as data, not as instructions; and escaped so that data
// can never close (or forge) the wrapper. In the domain because the tool worker (outputs, tool
// errors, refusals) and the turn (calls refused before they reach a worker, missing results)
// both answer tool_use blocks, and the turn may not import the tools.
//
// An error result keeps its readable form inside the wrapper, `Error (<code>): <message>`; the
// strings in the message that come from upstreams are quoted as data (quote-untrusted.ts).

const MAX_TOOL_RESULT_CHARACTERS = 32_000;
/** The cap inside the envelope, so the envelope (tag, attributes, closing tag) stays within 32,000. */
export const MAX_ENVELOPE_BODY_CHARACTERS = 31_800;
// A model-chosen tool name (a refused call) can be anything; the attribute keeps this much of it.
const MAX_TOOL_ATTRIBUTE_CHARACTERS = 100;

// `<` only ever appears inside JSON strings of an output, where \u003c is an equivalent escape:
// the JSON still parses to the same value, but no `<tool_output` or `</tool_output` survives in
// the text. An error's plain text gets the same escape, which reads as what it is.
const WRAPPER_TAG = /<(?=\s*\/?\s*tool_output)/gi;

function escapeAttribute(value: string): string {
  return value.slice(0, MAX_TOOL_ATTRIBUTE_CHARACTERS).replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

function envelope(toolName: string | null, body: string): string {
  const tool = toolName === null ? '' : ` tool="${escapeAttribute(toolName)}"`;
  return `<tool_output${tool} trust="untrusted">\n${body}\n</tool_output>`;
}

/** Serialises a tool's output inside an untrusted-data envelope. Cap the output with
 * maxCharacters rather than capping the envelope, which would cut off its closing tag. */
export function wrapToolOutput(toolName: string, output: unknown, options: { maxCharacters?: number } = {}): string {
  const json = (JSON.stringify(output) ?? 'null').replace(WRAPPER_TAG, '\\u003c');
  const body = options.maxCharacters === undefined ? json : capToolResultContent(json, options.maxCharacters);
  return envelope(toolName, body);
}

/** An error result inside the same envelope: `Error (<label>): <message>`, escaped, then capped
 * (the closing tag always survives). `label` is the stable code, with the reason where there is
 * one (`ToolOutputInvalid: invalid_json`); `toolName` is null where the call's tool is not known. */
export function wrapToolError({
  toolName,
  label,
  message,
  maxCharacters = MAX_ENVELOPE_BODY_CHARACTERS,
}: {
  toolName: string | null;
  label: string;
  message: string;
  maxCharacters?: number;
}): string {
  const text = `Error (${label}): ${message}`.replace(WRAPPER_TAG, '\\u003c');
  return envelope(toolName, capToolResultContent(text, maxCharacters));
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
