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

interface Container {
  isObject: boolean;
  keys: Set<string> | null;
}

/** Scans one JSON value starting at `start` (which must be its first character). */
export function scanJsonValue({
  text,
  start,
  maxDepth = MAX_JSON_DEPTH,
}: {
  text: string;
  start: number;
  maxDepth?: number;
}): JsonScanResult {
  const topLevelKeys: string[] = [];
  const stack: Container[] = [];
  const length = text.length;
  let position = start;
  let expectation = EXPECT_VALUE;

  const fail = (at: number, error: JsonScanError): JsonScanResult => ({
    ok: false,
    end: at,
    topLevelKeys,
    error,
  });

  for (;;) {
    position = skipJsonWhitespace(text, position);
    if (position >= length) return fail(position, 'syntax');
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
          if (stack.length >= maxDepth) return fail(position, 'too_deep');
          const isObject = code === 0x7b;
          stack.push({ isObject, keys: isObject ? new Set() : null });
          expectation = isObject ? EXPECT_KEY_OR_OBJECT_END : EXPECT_VALUE_OR_ARRAY_END;
          position += 1;
          break;
        }
        const end = scanScalar(text, position, code);
        if (end < 0) return fail(position, 'syntax');
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
        if (code !== 0x22 /* " */) return fail(position, 'syntax');
        const end = scanJsonString(text, position);
        if (end < 0) return fail(position, 'syntax');
        const key = decodeJsonString(text.slice(position, end));
        const container = stack[stack.length - 1];
        if (container?.keys) {
          if (container.keys.has(key)) return fail(position, 'duplicate_key');
          container.keys.add(key);
        }
        if (stack.length === 1) topLevelKeys.push(key);
        position = end;
        expectation = EXPECT_COLON;
        break;
      }
      case EXPECT_COLON: {
        if (code !== 0x3a /* : */) return fail(position, 'syntax');
        position += 1;
        expectation = EXPECT_VALUE;
        break;
      }
      case EXPECT_COMMA_OR_END: {
        const container = stack[stack.length - 1];
        if (!container) return fail(position, 'syntax');
        if (code === 0x2c /* , */) {
          position += 1;
          expectation = container.isObject ? EXPECT_KEY : EXPECT_VALUE;
          break;
        }
        if ((container.isObject && code === 0x7d) || (!container.isObject && code === 0x5d)) {
          stack.pop();
          position += 1;
          valueEnded = true;
          break;
        }
        return fail(position, 'syntax');
      }
      default:
        return fail(position, 'syntax');
    }

    if (valueEnded) {
      if (stack.length === 0) return { ok: true, end: position, topLevelKeys, error: null };
      expectation = EXPECT_COMMA_OR_END;
    }
  }
}

/** JSON's four whitespace characters only (not the Unicode ones String.prototype.trim knows). */
export function skipJsonWhitespace(text: string, position: number): number {
  let index = position;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
    index += 1;
  }
  return index;
}

function scanScalar(text: string, position: number, code: number): number {
  if (code === 0x22) return scanJsonString(text, position);
  if (code === 0x2d /* - */ || (code >= 0x30 && code <= 0x39)) return scanJsonNumber(text, position);
  if (text.startsWith('true', position)) return position + 4;
  if (text.startsWith('false', position)) return position + 5;
  if (text.startsWith('null', position)) return position + 4;
  return -1;
}

/** The index after the closing quote of the string starting at `position`, or -1. */
function scanJsonString(text: string, position: number): number {
  let index = position + 1;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 0x22) return index + 1;
    if (code < 0x20) return -1;
    if (code === 0x5c /* \ */) {
      const escaped = text.charCodeAt(index + 1);
      if (escaped === 0x75 /* u */) {
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

function scanJsonNumber(text: string, position: number): number {
  let index = position;
  if (text.charCodeAt(index) === 0x2d) index += 1;
  const firstDigit = text.charCodeAt(index);
  if (firstDigit === 0x30) {
    index += 1;
  } else if (firstDigit >= 0x31 && firstDigit <= 0x39) {
    index = skipDigits(text, index);
  } else {
    return -1;
  }
  if (text.charCodeAt(index) === 0x2e /* . */) {
    const afterPoint = skipDigits(text, index + 1);
    if (afterPoint === index + 1) return -1;
    index = afterPoint;
  }
  const exponent = text.charCodeAt(index);
  if (exponent === 0x65 || exponent === 0x45) {
    index += 1;
    const sign = text.charCodeAt(index);
    if (sign === 0x2b || sign === 0x2d) index += 1;
    const afterExponent = skipDigits(text, index);
    if (afterExponent === index) return -1;
    index = afterExponent;
  }
  return index;
}

function skipDigits(text: string, position: number): number {
  let index = position;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code < 0x30 || code > 0x39) break;
    index += 1;
  }
  return index;
}

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** Decodes a string literal the scanner has already validated. */
function decodeJsonString(literal: string): string {
  return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}
