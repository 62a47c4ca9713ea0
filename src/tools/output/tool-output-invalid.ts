// The one error a tool output that fails its contract becomes. Its code is stable
// ('ToolOutputInvalid'); its reason says which step of validate-tool-output.ts refused it, in the
// documented form below, so dashboards, the runbook and tests can branch on it.

/** Every reason a tool output can be refused for, by its stable prefix. A reason is the prefix
 * alone, or `prefix:detail` for the parametrised ones (the detail is documented beside it). */
export const TOOL_OUTPUT_INVALID_REASONS = {
  tool_output_too_large: 'The upstream body (bytes) or the serialised output (characters) is over the contract maxCharacters.',
  missing_content_type: 'An upstream response with a body carried no Content-Type.',
  unexpected_content_type:
    '`unexpected_content_type:<media type>`: the Content-Type is not one the tool expects here (e.g. ' +
    'a maintenance page, text/html, where an image was expected); `unexpected_content_type:malformed` ' +
    'when the header is not a media type (`type/subtype` of RFC 9110 tokens, at most 100 characters).',
  invalid_json: 'A body declared as JSON (or the output itself) does not parse strictly as JSON (truncated, trailing garbage, invalid UTF-8).',
  invalid_html: 'A body declared as text/html is not UTF-8 or holds no markup at all.',
  invalid_text: 'A body declared as text/plain is not valid UTF-8.',
  invalid_svg: 'A body declared as image/svg+xml does not parse as one well-formed <svg> document.',
  invalid_image: 'A raster image body does not start with the signature of its declared type (PNG, JPEG, GIF, WebP) or is empty.',
  error_in_success_wrapper:
    'A JSON body says success (`ok: true`, `success: true`, `status: "ok"`) but carries an error, or is GraphQL-style `{"data": null, "errors": [...]}`.',
  schema_invalid:
    '`schema_invalid:<path>`: the output (or an upstream JSON body with a known shape) fails its zod schema at that path (`(root)` for the whole value).',
  invariant: '`invariant:<name>`: the output passes its schema but breaks a named invariant of the tool contract.',
} as const satisfies Record<string, string>;

export type ToolOutputInvalidReasonCode = keyof typeof TOOL_OUTPUT_INVALID_REASONS;

/** The stable prefix of a reason (`unexpected_content_type:text/html` → `unexpected_content_type`). */
export function reasonCodeOf(reason: string): ToolOutputInvalidReasonCode {
  const prefix = reason.split(':')[0] ?? reason;
  if (Object.hasOwn(TOOL_OUTPUT_INVALID_REASONS, prefix)) return prefix as ToolOutputInvalidReasonCode;
  throw new Error(`Unknown tool output reason ${reason}`);
}

const MAX_REASON_DETAIL_CHARACTERS = 100;
/** What a reason's detail may hold: the characters of a media type (RFC 9110 tokens and `/`) and
 * of a schema path (`.`, `(root)`). */
const UNSAFE_DETAIL_CHARACTER = /[^A-Za-z0-9!#$%&'*+.^_`|~/()-]/g;

/** A reason whose detail is safe to show the model, store in events and the kill switch, and
 * count: at most 100 characters, each one a media type or a schema path could hold (others
 * become `_`). A detail comes from upstreams (a Content-Type header, a key of an upstream's
 * JSON), so it cannot carry a tag or a sentence past this point, into another run's refusal. */
export function safeReason(reason: string): string {
  const separator = reason.indexOf(':');
  if (separator === -1) return reason;
  const detail = reason
    .slice(separator + 1)
    .slice(0, MAX_REASON_DETAIL_CHARACTERS)
    .replace(UNSAFE_DETAIL_CHARACTER, '_');
  return `${reason.slice(0, separator)}:${detail}`;
}

/** A tool output (or the upstream response it was to be built from) that broke its contract. */
export class ToolOutputInvalid extends Error {
  readonly code = 'ToolOutputInvalid' as const;
  /** e.g. `unexpected_content_type:text/html`; see TOOL_OUTPUT_INVALID_REASONS. Made safe
   * (safeReason) from what the caller passed. */
  readonly reason: string;

  constructor(reason: string, message: string) {
    super(message);
    this.name = 'ToolOutputInvalid';
    reasonCodeOf(reason);
    this.reason = safeReason(reason);
  }

  /** Duck-typed so an error from another copy of this module is still recognised. */
  static isInstance(value: unknown): value is ToolOutputInvalid {
    return value instanceof Error && (value as { code?: unknown }).code === 'ToolOutputInvalid' && typeof (value as { reason?: unknown }).reason === 'string';
  }
}
