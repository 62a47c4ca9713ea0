// Phase 2, first step: turn one candidate's raw text into a tool name and its (not yet trusted)
// arguments, per format. Strict: the JSON must be exactly one object, envelopes hold exactly a
// name and one arguments key, and the arguments are never re-parsed from a string.
import { assertNever } from '../domain/profile.js';
import type { Candidate } from './candidate.js';
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
}

const TOOL_USE_ENVELOPE: EnvelopeShape = { nameKeys: ['name'], argumentKeys: ['input'], argumentsAsSiblings: false };
const TOOL_CALL_ENVELOPE: EnvelopeShape = { nameKeys: ['name'], argumentKeys: ['arguments'], argumentsAsSiblings: false };
const JSON_ENVELOPE: EnvelopeShape = {
  nameKeys: ['tool', 'name'],
  argumentKeys: ['arguments', 'input', 'parameters'],
  argumentsAsSiblings: false,
};
const FENCED_ENVELOPE: EnvelopeShape = { ...JSON_ENVELOPE, argumentsAsSiblings: true };

export function decodeCandidate(candidate: Candidate): DecodedCandidate {
  switch (candidate.mode) {
    case 'tag': {
      const payload = parseJsonObject(candidate.raw);
      if (!payload.ok) return payload;
      return { ok: true, name: candidate.declaredName ?? '', toolArguments: payload.value };
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

function decodeEnvelope(raw: string, shape: EnvelopeShape): DecodedCandidate {
  const parsed = parseJsonObject(raw);
  if (!parsed.ok) return parsed;
  const envelope = parsed.value;

  const nameKey = shape.nameKeys.find((key) => Object.hasOwn(envelope, key));
  const name = nameKey === undefined ? undefined : envelope[nameKey];
  if (nameKey === undefined || typeof name !== 'string' || name === '') {
    return { ok: false, reason: REASON_MISSING_NAME };
  }

  const argumentKeys = shape.argumentKeys.filter((key) => Object.hasOwn(envelope, key));
  const otherKeys = Object.keys(envelope).filter((key) => key !== nameKey && !argumentKeys.includes(key));
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
