// Phase 2, first step: turn one candidate's raw text into a tool name and its (not yet trusted)
// arguments, per format. Strict: the JSON must be exactly one object, envelopes hold exactly a
// name and one arguments key (Mistral's may add its call `id`), and the arguments are never
// re-parsed from a string.
import { assertNever } from '../domain/assert-never.js';
import type { Candidate } from './candidate.js';
import { splitDeepSeekCall } from './decode-deepseek-call.js';
import { isPlainObject } from './is-plain-object.js';
import { scanJsonValue, skipJsonWhitespace } from './json-scan.js';
import {
  REASON_AMBIGUOUS_ARGUMENTS,
  REASON_INVALID_JSON,
  REASON_MISSING_ARGUMENTS,
  REASON_MISSING_NAME,
  REASON_MULTIPLE_CANDIDATES,
  REASON_PAYLOAD_NOT_OBJECT,
  bracketInvalidReason,
  envelopeUnknownFieldReason,
} from './parse-reasons.js';
import { parsePythonCallList } from './python-literal.js';

export type DecodedCandidate = { ok: true; name: string; toolArguments: unknown } | { ok: false; reason: string };

interface EnvelopeShape {
  nameKeys: readonly string[];
  argumentKeys: readonly string[];
  /** `{"tool": NAME, ...arguments}`: with a `tool` key, the other fields may be the arguments. */
  argumentsAsSiblings: boolean;
  /** Keys the envelope may also hold, each a string, that carry nothing the call needs. */
  optionalStringKeys?: readonly string[];
}

const TOOL_USE_ENVELOPE: EnvelopeShape = { nameKeys: ['name'], argumentKeys: ['input'], argumentsAsSiblings: false };
const TOOL_CALL_ENVELOPE: EnvelopeShape = { nameKeys: ['name'], argumentKeys: ['arguments'], argumentsAsSiblings: false };
const JSON_ENVELOPE: EnvelopeShape = {
  nameKeys: ['tool', 'name'],
  argumentKeys: ['arguments', 'input', 'parameters'],
  argumentsAsSiblings: false,
};
const FENCED_ENVELOPE: EnvelopeShape = { ...JSON_ENVELOPE, argumentsAsSiblings: true };
/** mistral-common renders each earlier call with `"id"` (9 alphanumerics), so a model may write one. */
const MISTRAL_ENVELOPE: EnvelopeShape = { ...TOOL_CALL_ENVELOPE, optionalStringKeys: ['id'] };
/** The Llama 3.x templates ask for `parameters`; vLLM's llama3_json parser takes `arguments` too. */
const LLAMA_ENVELOPE: EnvelopeShape = { nameKeys: ['name'], argumentKeys: ['parameters', 'arguments'], argumentsAsSiblings: false };

export function decodeCandidate(candidate: Candidate): DecodedCandidate {
  switch (candidate.mode) {
    case 'tag':
    case 'function_tag':
    case 'functionary':
      return decodeNamedPayload(candidate.declaredName ?? '', candidate.raw);
    case 'mistral':
      // `[TOOL_CALLS]NAME[ARGS]{…}` declares the name; `[TOOL_CALLS][{…}]` holds envelopes.
      return candidate.declaredName === null ? decodeEnvelope(candidate.raw, MISTRAL_ENVELOPE) : decodeNamedPayload(candidate.declaredName, candidate.raw);
    case 'granite':
      return decodeEnvelope(candidate.raw, TOOL_CALL_ENVELOPE);
    case 'python_tag':
      return decodeEnvelope(candidate.raw, LLAMA_ENVELOPE);
    case 'deepseek': {
      const split = splitDeepSeekCall(candidate.raw);
      if (!split.ok) return split;
      return decodeNamedPayload(split.name, split.argumentsText);
    }
    case 'tool_use_tag':
      return decodeEnvelope(candidate.raw, TOOL_USE_ENVELOPE);
    case 'tool_call_tag':
      return decodeEnvelope(candidate.raw, TOOL_CALL_ENVELOPE);
    case 'json':
      return decodeEnvelope(candidate.raw, JSON_ENVELOPE);
    case 'fenced':
      return decodeEnvelope(candidate.raw, FENCED_ENVELOPE);
    case 'bracket': {
      const parsed = parsePythonCallList(candidate.raw);
      if (!parsed.ok) return { ok: false, reason: bracketInvalidReason(parsed.detail) };
      const [call, ...others] = parsed.calls;
      if (!call || others.length > 0) return { ok: false, reason: REASON_MULTIPLE_CANDIDATES };
      return { ok: true, name: call.name, toolArguments: call.arguments };
    }
    default:
      return assertNever(candidate.mode);
  }
}

/** The payload is the arguments object; the name was written outside it. */
function decodeNamedPayload(name: string, raw: string): DecodedCandidate {
  const payload = parseJsonObject(raw);
  if (!payload.ok) return payload;
  return { ok: true, name, toolArguments: payload.value };
}

function decodeEnvelope(raw: string, shape: EnvelopeShape): DecodedCandidate {
  const parsed = parseJsonObject(raw);
  if (!parsed.ok) return parsed;
  const envelope = parsed.value;

  const nameKey = shape.nameKeys.find((key) => Object.hasOwn(envelope, key));
  const name = nameKey === undefined ? undefined : envelope[nameKey];
  if (nameKey === undefined || typeof name !== 'string' || name === '') {
    return { ok: false, reason: REASON_MISSING_NAME };
  }

  const optionalKeys = shape.optionalStringKeys ?? [];
  const badOptionalKey = optionalKeys.find((key) => Object.hasOwn(envelope, key) && typeof envelope[key] !== 'string');
  if (badOptionalKey !== undefined) return { ok: false, reason: envelopeUnknownFieldReason(badOptionalKey) };
  const argumentKeys = shape.argumentKeys.filter((key) => Object.hasOwn(envelope, key));
  const otherKeys = Object.keys(envelope).filter((key) => key !== nameKey && !argumentKeys.includes(key) && !optionalKeys.includes(key));
  const [argumentKey, ...extraArgumentKeys] = argumentKeys;

  if (argumentKey !== undefined && extraArgumentKeys.length === 0 && otherKeys.length === 0) {
    return { ok: true, name, toolArguments: envelope[argumentKey] };
  }
  if (shape.argumentsAsSiblings && nameKey === 'tool') {
    // The `tool` key names the tool and is not an argument; every other field is one.
    const toolArguments: Record<string, unknown> = {};
    for (const key of Object.keys(envelope)) {
      if (key === 'tool') continue;
      Object.defineProperty(toolArguments, key, { value: envelope[key], enumerable: true, writable: true, configurable: true });
    }
    return { ok: true, name, toolArguments };
  }
  if (extraArgumentKeys.length > 0) return { ok: false, reason: REASON_AMBIGUOUS_ARGUMENTS };
  if (argumentKey === undefined) return { ok: false, reason: REASON_MISSING_ARGUMENTS };
  return { ok: false, reason: envelopeUnknownFieldReason(otherKeys[0] ?? '') };
}

type ParsedObject = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/** Exactly one strict JSON value, which must be an object. */
function parseJsonObject(raw: string): ParsedObject {
  const start = skipJsonWhitespace(raw, 0);
  const scan = scanJsonValue({ text: raw, start });
  if (!scan.ok || skipJsonWhitespace(raw, scan.end) !== raw.length) {
    return { ok: false, reason: REASON_INVALID_JSON };
  }
  // The scanner has validated the text, so JSON.parse cannot throw here.
  const value: unknown = JSON.parse(raw.slice(start, scan.end));
  if (!isPlainObject(value)) return { ok: false, reason: REASON_PAYLOAD_NOT_OBJECT };
  return { ok: true, value };
}
