// Phase 2 for the bracket fallback: a strict parser for `[name(key=value, …), …]` where every
// value is a Python literal: strings (single or double quoted, with escapes), ints, floats,
// negative numbers, True/False/None, lists, and dicts with string keys, nested. Nothing else:
// no expressions, no positional arguments, no calls inside, no tuples, no name lookups, no string
// prefixes (r'', f'', b''), no implicit string concatenation, no triple quotes, and no number
// forms JSON cannot carry exactly (hex, underscores, ints beyond 2^53, inf). Recursive descent
// with a depth cap, on input the size gate has already bounded.

export const MAX_LITERAL_DEPTH = 64;

export interface PythonCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type PythonCallListResult = { ok: true; calls: PythonCall[] } | { ok: false; detail: string };

class LiteralSyntaxError extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

const OPERATOR_CHARACTERS = new Set(['+', '-', '*', '/', '%', '@', '&', '|', '^', '~', '<', '>', '=', '!', '.', '[']);

/** Parses a whole bracket call list; any deviation is a refusal with a short detail code. */
export function parsePythonCallList(text: string): PythonCallListResult {
  let position = 0;

  const peek = (): string | undefined => text[position];
  const skipWhitespace = (): void => {
    while (position < text.length && /\s/.test(text[position] ?? '')) position += 1;
  };
  const fail = (detail: string): never => {
    throw new LiteralSyntaxError(detail);
  };
  // A value ended and what follows is neither a separator nor a closer: say why.
  const unexpectedAfterValue = (): never => {
    const character = peek();
    if (character === undefined) return fail('unterminated');
    if (character === '(') return fail('call_not_allowed');
    if (character === '"' || character === "'") return fail('expression_not_allowed');
    if (OPERATOR_CHARACTERS.has(character)) return fail('expression_not_allowed');
    return fail('unexpected_token');
  };

  const readIdentifier = (): string => {
    const start = position;
    if (!/[A-Za-z_]/.test(peek() ?? '')) return '';
    while (position < text.length && /[A-Za-z0-9_]/.test(text[position] ?? '')) position += 1;
    return text.slice(start, position);
  };

  const parseString = (): string => {
    const quote = text[position];
    position += 1;
    let value = '';
    let chunkStart = position;
    for (;;) {
      if (position >= text.length) return fail('bad_string');
      const character = text[position];
      if (character === quote) {
        value += text.slice(chunkStart, position);
        position += 1;
        return value;
      }
      if (character === '\n' || character === '\r') return fail('bad_string');
      if (character !== '\\') {
        position += 1;
        continue;
      }
      value += text.slice(chunkStart, position);
      const escaped = text[position + 1];
      position += 2;
      switch (escaped) {
        case '\\':
        case "'":
        case '"':
          value += escaped;
          break;
        case '\n':
          break; // a line continuation adds nothing
        case 'a':
          value += '\x07';
          break;
        case 'b':
          value += '\b';
          break;
        case 'f':
          value += '\f';
          break;
        case 'n':
          value += '\n';
          break;
        case 'r':
          value += '\r';
          break;
        case 't':
          value += '\t';
          break;
        case 'v':
          value += '\v';
          break;
        case 'x':
          value += String.fromCharCode(readHex(2));
          break;
        case 'u':
          value += String.fromCharCode(readHex(4));
          break;
        case 'U': {
          const codePoint = readHex(8);
          if (codePoint > 0x10ffff) fail('bad_escape');
          value += String.fromCodePoint(codePoint);
          break;
        }
        default: {
          if (escaped !== undefined && /[0-7]/.test(escaped)) {
            let octal = escaped;
            while (octal.length < 3 && /[0-7]/.test(text[position] ?? '')) {
              octal += text[position];
              position += 1;
            }
            value += String.fromCharCode(parseInt(octal, 8));
            break;
          }
          // Python keeps unknown escapes such as \d literally; a strict parser refuses them.
          return fail('bad_escape');
        }
      }
      chunkStart = position;
    }
  };

  const readHex = (digits: number): number => {
    const hex = text.slice(position, position + digits);
    if (hex.length !== digits || !/^[0-9A-Fa-f]+$/.test(hex)) fail('bad_escape');
    position += digits;
    return parseInt(hex, 16);
  };

  const parseNumber = (negative: boolean): number => {
    const start = position;
    let sawDigit = false;
    let isInteger = true;
    while (/[0-9]/.test(peek() ?? '')) {
      position += 1;
      sawDigit = true;
    }
    if (peek() === '.') {
      isInteger = false;
      position += 1;
      while (/[0-9]/.test(peek() ?? '')) {
        position += 1;
        sawDigit = true;
      }
    }
    if (!sawDigit) return fail('unexpected_token');
    if (peek() === 'e' || peek() === 'E') {
      isInteger = false;
      position += 1;
      if (peek() === '+' || peek() === '-') position += 1;
      const exponentStart = position;
      while (/[0-9]/.test(peek() ?? '')) position += 1;
      if (position === exponentStart) return fail('unsupported_number');
    }
    // 0x1f, 1_000, 1j, 10L …
    if (/[A-Za-z0-9_]/.test(peek() ?? '')) return fail('unsupported_number');
    const literal = text.slice(start, position);
    if (isInteger && literal.length > 1 && literal.startsWith('0')) return fail('unsupported_number');
    const magnitude = Number(literal);
    if (isInteger && !Number.isSafeInteger(magnitude)) return fail('integer_out_of_range');
    if (!Number.isFinite(magnitude)) return fail('unsupported_number');
    return negative ? -magnitude : magnitude;
  };

  const parseValue = (depth: number): unknown => {
    if (depth > MAX_LITERAL_DEPTH) return fail('too_deep');
    skipWhitespace();
    const character = peek();
    if (character === undefined) return fail('unterminated');
    if (character === '"' || character === "'") return parseString();
    if (character === '-') {
      position += 1;
      if (!/[0-9.]/.test(peek() ?? '')) return fail('expression_not_allowed');
      return parseNumber(true);
    }
    if (/[0-9.]/.test(character)) return parseNumber(false);
    if (character === '[') return parseList(depth);
    if (character === '{') return parseDict(depth);
    if (character === '(') return fail('tuple_not_allowed');
    if (/[A-Za-z_]/.test(character)) {
      const identifier = readIdentifier();
      if (peek() === '"' || peek() === "'") return fail('string_prefix_not_allowed');
      skipWhitespace();
      if (peek() === '(') return fail('call_not_allowed');
      if (identifier === 'True') return true;
      if (identifier === 'False') return false;
      if (identifier === 'None') return null;
      return fail('name_not_allowed');
    }
    if (OPERATOR_CHARACTERS.has(character)) return fail('expression_not_allowed');
    return fail('unexpected_token');
  };

  // Items separated by commas, a trailing comma allowed (as Python does), up to `closer`.
  const parseSequence = (closer: string, parseItem: () => void): void => {
    position += 1;
    skipWhitespace();
    if (peek() === closer) {
      position += 1;
      return;
    }
    for (;;) {
      parseItem();
      skipWhitespace();
      if (peek() === ',') {
        position += 1;
        skipWhitespace();
        if (peek() === closer) {
          position += 1;
          return;
        }
        continue;
      }
      if (peek() === closer) {
        position += 1;
        return;
      }
      unexpectedAfterValue();
    }
  };

  const parseList = (depth: number): unknown[] => {
    const items: unknown[] = [];
    parseSequence(']', () => {
      items.push(parseValue(depth + 1));
    });
    return items;
  };

  const parseDict = (depth: number): Record<string, unknown> => {
    const entries: Record<string, unknown> = {};
    parseSequence('}', () => {
      skipWhitespace();
      if (peek() !== '"' && peek() !== "'") fail('dict_key_not_string');
      const key = parseString();
      if (Object.hasOwn(entries, key)) fail('duplicate_key');
      skipWhitespace();
      if (peek() !== ':') unexpectedAfterValue();
      position += 1;
      setOwnProperty(entries, key, parseValue(depth + 1));
    });
    return entries;
  };

  const parseCall = (): PythonCall => {
    skipWhitespace();
    let name = readIdentifier();
    if (name === '') return fail('unexpected_token');
    while (peek() === '.') {
      position += 1;
      const part = readIdentifier();
      if (part === '') return fail('unexpected_token');
      name += '.' + part;
    }
    skipWhitespace();
    if (peek() !== '(') return fail('unexpected_token');
    const keywordArguments: Record<string, unknown> = {};
    parseSequence(')', () => {
      skipWhitespace();
      const keywordStart = position;
      const keyword = readIdentifier();
      skipWhitespace();
      const isKeyword = keyword !== '' && peek() === '=' && text[position + 1] !== '=';
      if (!isKeyword) {
        position = keywordStart;
        fail('positional_argument');
      }
      position += 1;
      if (Object.hasOwn(keywordArguments, keyword)) fail('duplicate_argument');
      setOwnProperty(keywordArguments, keyword, parseValue(1));
    });
    return { name, arguments: keywordArguments };
  };

  try {
    skipWhitespace();
    if (peek() !== '[') return { ok: false, detail: 'unexpected_token' };
    const calls: PythonCall[] = [];
    parseSequence(']', () => {
      calls.push(parseCall());
    });
    skipWhitespace();
    if (position !== text.length) return { ok: false, detail: 'trailing_text' };
    if (calls.length === 0) return { ok: false, detail: 'empty_call_list' };
    return { ok: true, calls };
  } catch (error) {
    if (error instanceof LiteralSyntaxError) return { ok: false, detail: error.detail };
    throw error;
  }
}

/** A key such as `__proto__` becomes an own property instead of replacing the prototype. */
function setOwnProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
