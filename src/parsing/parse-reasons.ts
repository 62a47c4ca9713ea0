// The reason codes a parse can end with. Stable: consumers match on the part before the first
// colon; what follows it (a tool name, a path) is detail. Never reuse a code for a new meaning.
//
//   no_candidate            nothing shaped like a tool call (with intent), or an unclosed tag
//   no_tool_intent          a fallback shape was present but no intent was signalled
//   multiple_candidates     more than one candidate: ask the model to re-emit ONE call in the
//                           primary format (see REEMIT_IN_PRIMARY_FORMAT)
//   candidate_too_large     a fallback candidate above maxFallbackBytes
//   invalid_json            a JSON payload that does not parse strictly (duplicate keys and
//                           nesting deeper than 64 included)
//   payload_not_object      valid JSON, but not an object where one is required
//   missing_name            the envelope has no string tool name
//   missing_arguments       the envelope has no arguments key
//   ambiguous_arguments     the envelope has more than one of arguments / input / parameters
//   envelope_unknown_field:KEY  an envelope key that is neither the name nor the arguments
//   arguments_as_string     arguments given as a (JSON) string
//   arguments_not_object    arguments given as an array, number, boolean or null
//   bracket_invalid:DETAIL  a bracket call that is not `[name(key=literal, ...)]`
//   unknown_tool:NAME       a name no tool has
//   not_in_tier:NAME        a known tool outside the current tier
//   schema_invalid:PATH:MESSAGE  the arguments fail the tool's schema (from the validator)

export const REASON_NO_CANDIDATE = 'no_candidate';
export const REASON_NO_TOOL_INTENT = 'no_tool_intent';
export const REASON_MULTIPLE_CANDIDATES = 'multiple_candidates';
export const REASON_CANDIDATE_TOO_LARGE = 'candidate_too_large';
export const REASON_INVALID_JSON = 'invalid_json';
export const REASON_PAYLOAD_NOT_OBJECT = 'payload_not_object';
export const REASON_MISSING_NAME = 'missing_name';
export const REASON_MISSING_ARGUMENTS = 'missing_arguments';
export const REASON_AMBIGUOUS_ARGUMENTS = 'ambiguous_arguments';
export const REASON_ARGUMENTS_AS_STRING = 'arguments_as_string';
export const REASON_ARGUMENTS_NOT_OBJECT = 'arguments_not_object';

/** What the runtime can tell the model after `multiple_candidates`. */
export const REEMIT_IN_PRIMARY_FORMAT =
  'Your reply held more than one tool call. Reply again with exactly one call, written as ' + '<tool name="TOOL_NAME">{"argument": "value"}</tool>.';

const MAX_DETAIL_LENGTH = 64;

/** Model-written text in a reason is bounded and reduced to a safe alphabet, so a reason never
 * carries newlines or explodes metric cardinality. */
export function reasonDetail(text: string): string {
  const bounded = text.length > MAX_DETAIL_LENGTH ? text.slice(0, MAX_DETAIL_LENGTH) : text;
  return bounded.replace(/[^A-Za-z0-9_.\-]/g, '_');
}

export function unknownToolReason(name: string): string {
  return `unknown_tool:${reasonDetail(name)}`;
}

export function notInTierReason(name: string): string {
  return `not_in_tier:${reasonDetail(name)}`;
}

export function envelopeUnknownFieldReason(key: string): string {
  return `envelope_unknown_field:${reasonDetail(key)}`;
}

export function bracketInvalidReason(detail: string): string {
  return `bracket_invalid:${detail}`;
}

/** `schema_invalid:<json pointer>:<message>`; the root is `/`. */
export function schemaInvalidReason(path: readonly (string | number)[], message: string): string {
  const pointer = path.length === 0 ? '/' : path.map((segment) => '/' + reasonDetail(String(segment))).join('');
  return `schema_invalid:${pointer}:${message}`;
}
