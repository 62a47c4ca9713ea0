// A strict, iterative JSON scanner (RFC 8259) used by phase 1 to find where a JSON value ends and
// which keys its root object has, without building the value. Iterative with an explicit stack
// and a depth cap so `[[[[…` a megabyte deep costs linear time and no call stack; every character
// is looked at a bounded number of times. Duplicate keys are refused: a model that writes
// {"path": "a", "path": "b"} has not said which one it means.

export const MAX_JSON_DEPTH = 64;

export type JsonScanError = 'syntax' | 'too_deep' | 'duplicate_key';

export interface JsonScanResult {
  ok: boolean;
  /** When ok, the index just after the value; otherwise where scanning stopped. */
  end: number;
  /** The root object's keys seen, in order, including those before a failure. */
  topLevelKeys: string[];
  error: JsonScanError | null;
}

// What the scanner expects next.
const EXPECT_VALUE = 0;
const EXPECT_VALUE_OR_ARRAY_END = 1;
const EXPECT_KEY_OR_OBJECT_END = 2;
const EXPECT_KEY = 3;
const EXPECT_COLON = 4;
const EXPECT_COMMA_OR_END = 5;

/** An open container: null for an array; for an object, the keys seen so far, as an array
 * while small (most objects) and a Set once large, so duplicate detection is cheap for the
 * common case and still linear for a megabyte of keys. Kept this small because the scanner runs
 * once per fenced block and allocation was its main cost. */
type Container = string[] | Set<string> | null;

const SMALL_OBJECT_KEYS = 8;

/**
 * Scans one JSON value starting at `start` (which must be its first character), treating `end`
 * (default: the text's length) as the end of the text.
 */
export function scanJsonValue({
  text,
  start,
  end: limit = text.length,
  maxDepth = MAX_JSON_DEPTH,
}: {
  text: string;
  start: number;
  end?: number;
  maxDepth?: number;
}): JsonScanResult {
  const topLevelKeys: string[] = [];
  const stack: Container[] = [];
  let position = start;
  let expectation = EXPECT_VALUE;

  for (;;) {
    position = skipJsonWhitespace(text, position, limit);
    if (position >= limit) return failure(position, topLevelKeys, 'syntax');
    const code = text.charCodeAt(position);
    let valueEnded = false;

    switch (expectation) {
      case EXPECT_VALUE:
      case EXPECT_VALUE_OR_ARRAY_END: {
        if (expectation === EXPECT_VALUE_OR_ARRAY_END && code === 0x5d /* ] */) {
          stack.pop();
          position += 1;
          valueEnded = true;
          break;
        }
        if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
          if (stack.length >= maxDepth) return failure(position, topLevelKeys, 'too_deep');
          const isObject = code === 0x7b;
          stack.push(isObject ? [] : null);
          expectation = isObject ? EXPECT_KEY_OR_OBJECT_END : EXPECT_VALUE_OR_ARRAY_END;
          position += 1;
          break;
        }
        const end = scanScalar(text, position, code, limit);
        if (end < 0) return failure(position, topLevelKeys, 'syntax');
        position = end;
        valueEnded = true;
        break;
      }
      case EXPECT_KEY_OR_OBJECT_END:
      case EXPECT_KEY: {
        if (expectation === EXPECT_KEY_OR_OBJECT_END && code === 0x7d /* } */) {
          stack.pop();
          position += 1;
          valueEnded = true;
          break;
        }
        if (code !== 0x22 /* " */) return failure(position, topLevelKeys, 'syntax');
        const end = scanJsonString(text, position, limit);
        if (end < 0) return failure(position, topLevelKeys, 'syntax');
        // Keys with escapes are decoded ("n\u0061me" is `name`); the rest are sliced.
        const key = lastStringHadEscape ? (JSON.parse(text.slice(position, end)) as string) : text.slice(position + 1, end - 1);
        const depth = stack.length - 1;
        const keys = stack[depth];
        if (keys === null || keys === undefined) return failure(position, topLevelKeys, 'syntax');
        if (Array.isArray(keys)) {
          if (keys.includes(key)) return failure(position, topLevelKeys, 'duplicate_key');
          keys.push(key);
          if (keys.length > SMALL_OBJECT_KEYS) stack[depth] = new Set(keys);
        } else {
          if (keys.has(key)) return failure(position, topLevelKeys, 'duplicate_key');
          keys.add(key);
        }
        if (stack.length === 1) topLevelKeys.push(key);
        position = end;
        expectation = EXPECT_COLON;
        break;
      }
      case EXPECT_COLON: {
        if (code !== 0x3a /* : */) return failure(position, topLevelKeys, 'syntax');
        position += 1;
        expectation = EXPECT_VALUE;
        break;
      }
      case EXPECT_COMMA_OR_END: {
        if (stack.length === 0) return failure(position, topLevelKeys, 'syntax');
        const isObject = stack[stack.length - 1] !== null;
        if (code === 0x2c /* , */) {
          position += 1;
          expectation = isObject ? EXPECT_KEY : EXPECT_VALUE;
          break;
        }
        if ((isObject && code === 0x7d) || (!isObject && code === 0x5d)) {
          stack.pop();
          position += 1;
          valueEnded = true;
          break;
        }
        return failure(position, topLevelKeys, 'syntax');
      }
      default:
        return failure(position, topLevelKeys, 'syntax');
    }

    if (valueEnded) {
      if (stack.length === 0) return { ok: true, end: position, topLevelKeys, error: null };
      expectation = EXPECT_COMMA_OR_END;
    }
  }
}

// Module level rather than a closure in scanJsonValue: the scanner runs once per fenced block,
// and a closure allocated per call was most of its cost on inputs with thousands of blocks.
function failure(end: number, topLevelKeys: string[], error: JsonScanError): JsonScanResult {
  return { ok: false, end, topLevelKeys, error };
}

/** JSON's four whitespace characters only (not the Unicode ones String.prototype.trim knows). */
export function skipJsonWhitespace(text: string, position: number, end = text.length): number {
  let index = position;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
    index += 1;
  }
  return index;
}

function scanScalar(text: string, position: number, code: number, end: number): number {
  if (code === 0x22) return scanJsonString(text, position, end);
  let scalarEnd = -1;
  if (code === 0x2d /* - */ || (code >= 0x30 && code <= 0x39)) scalarEnd = scanJsonNumber(text, position, end);
  else if (text.startsWith('true', position)) scalarEnd = position + 4;
  else if (text.startsWith('false', position)) scalarEnd = position + 5;
  else if (text.startsWith('null', position)) scalarEnd = position + 4;
  return scalarEnd > end ? -1 : scalarEnd;
}

// Set by scanJsonString: whether the string it just scanned holds an escape, so a key without one
// is taken by slicing instead of being decoded.
let lastStringHadEscape = false;

/** The index after the closing quote of the string starting at `position`, or -1. */
function scanJsonString(text: string, position: number, end: number): number {
  lastStringHadEscape = false;
  let index = position + 1;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code === 0x22) return index + 1;
    if (code < 0x20) return -1;
    if (code === 0x5c /* \ */) {
      lastStringHadEscape = true;
      if (index + 1 >= end) return -1;
      const escaped = text.charCodeAt(index + 1);
      if (escaped === 0x75 /* u */) {
        if (index + 6 > end) return -1;
        for (let offset = 2; offset < 6; offset += 1) {
          if (!isHexDigit(text.charCodeAt(index + offset))) return -1;
        }
        index += 6;
        continue;
      }
      // " \ / b f n r t
      if (
        escaped !== 0x22 &&
        escaped !== 0x5c &&
        escaped !== 0x2f &&
        escaped !== 0x62 &&
        escaped !== 0x66 &&
        escaped !== 0x6e &&
        escaped !== 0x72 &&
        escaped !== 0x74
      ) {
        return -1;
      }
      index += 2;
      continue;
    }
    index += 1;
  }
  return -1;
}

function scanJsonNumber(text: string, position: number, end: number): number {
  // NaN past the end: it matches no character class below, so scanning stops at the limit.
  const codeAt = (index: number): number => (index < end ? text.charCodeAt(index) : Number.NaN);
  let index = position;
  if (codeAt(index) === 0x2d) index += 1;
  const firstDigit = codeAt(index);
  if (firstDigit === 0x30) {
    index += 1;
  } else if (firstDigit >= 0x31 && firstDigit <= 0x39) {
    index = skipDigits(text, index, end);
  } else {
    return -1;
  }
  if (codeAt(index) === 0x2e /* . */) {
    const afterPoint = skipDigits(text, index + 1, end);
    if (afterPoint === index + 1) return -1;
    index = afterPoint;
  }
  const exponent = codeAt(index);
  if (exponent === 0x65 || exponent === 0x45) {
    index += 1;
    const sign = codeAt(index);
    if (sign === 0x2b || sign === 0x2d) index += 1;
    const afterExponent = skipDigits(text, index, end);
    if (afterExponent === index) return -1;
    index = afterExponent;
  }
  return index;
}

function skipDigits(text: string, position: number, end: number): number {
  let index = position;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code < 0x30 || code > 0x39) break;
    index += 1;
  }
  return index;
}

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}
