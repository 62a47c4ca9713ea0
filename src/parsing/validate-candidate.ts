// Phase 2: the gates one candidate must pass to become an executable call, in order: size (for
// fallbacks), decoding, the tier's allowlist, the arguments' type, then the tool's schema. Only
// this function produces a call, and only as {name, arguments} with the validator's value.
import { type Candidate, isFallbackMode } from './candidate.js';
import { decodeCandidate } from './decode-candidate.js';
import { isPlainObject } from './is-plain-object.js';
import { REASON_ARGUMENTS_AS_STRING, REASON_ARGUMENTS_NOT_OBJECT, REASON_CANDIDATE_TOO_LARGE, notInTierReason, unknownToolReason } from './parse-reasons.js';
import type { ParseOptions, ParsedToolCall, SchemaValidationOutcome } from './parse-types.js';

export const DEFAULT_MAX_FALLBACK_BYTES = 2048;

export interface CandidateVerdict {
  call: ParsedToolCall | null;
  reason: string | null;
  schemaValidation: SchemaValidationOutcome;
}

export function validateCandidate({ candidate, options }: { candidate: Candidate; options: ParseOptions }): CandidateVerdict {
  const refuse = (reason: string): CandidateVerdict => ({ call: null, reason, schemaValidation: 'not_run' });

  const maxFallbackBytes = options.maxFallbackBytes ?? DEFAULT_MAX_FALLBACK_BYTES;
  if (isFallbackMode(candidate.mode) && Buffer.byteLength(candidate.raw, 'utf8') > maxFallbackBytes) {
    return refuse(REASON_CANDIDATE_TOO_LARGE);
  }

  const decoded = decodeCandidate(candidate);
  if (!decoded.ok) return refuse(decoded.reason);
  const { name, toolArguments } = decoded;

  if (!options.allowedTools.includes(name)) {
    const knownTools = options.knownTools ?? options.allowedTools;
    return refuse(knownTools.includes(name) ? notInTierReason(name) : unknownToolReason(name));
  }
  // A model that serialises its arguments into a string has not produced an object; parsing it
  // again would accept a second, unchecked encoding.
  if (typeof toolArguments === 'string') return refuse(REASON_ARGUMENTS_AS_STRING);
  if (!isPlainObject(toolArguments)) return refuse(REASON_ARGUMENTS_NOT_OBJECT);

  const validation = options.validate(name, toolArguments);
  if (!validation.ok) return { call: null, reason: validation.reason, schemaValidation: 'fail' };
  return { call: { name, arguments: validation.value }, reason: null, schemaValidation: 'pass' };
}
