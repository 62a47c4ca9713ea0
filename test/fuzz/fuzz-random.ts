// A seeded random source and the hostile values the fuzzer draws from: JSON of every shape,
// strings with unicode, control characters and injection payloads, traversal paths, huge and
// duplicate headers. Seeded (mulberry32) so a failing run can be replayed with its seed.

export class FuzzRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let value = this.state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
}

const NASTY_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '[]',
  '{}',
  '"',
  "'",
  '\\',
  '\u0000',
  '\u0000\u0001\u0002',
  '\r\n\r\n',
  '%00',
  '%',
  '%%%',
  '%zz',
  '%E0%A4%A',
  '../',
  '..%2f..%2f',
  '%2e%2e%2f',
  '..\\..\\',
  '/etc/passwd',
  'C:\\Windows',
  '<script>alert(1)</script>',
  "'; DROP TABLE runs; --",
  '${jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  'run_',
  'run_abcdefgh',
  'run_' + 'a'.repeat(70),
  'bf_' + 'a'.repeat(43),
  '🥐🥖🍞',
  '\u202e\u202d',
  '\ud800',
  '\udfff',
  'ｆｕｌｌｗｉｄｔｈ',
  'Ω≈ç√∫',
  '\uFEFF',
  'a'.repeat(300),
  'x'.repeat(20_001),
];

export function randomString(random: FuzzRandom, maxLength = 64): string {
  if (random.chance(0.4)) return random.pick(NASTY_STRINGS);
  const length = random.int(maxLength);
  let text = '';
  for (let index = 0; index < length; index += 1) {
    const kind = random.int(10);
    if (kind < 6) text += String.fromCharCode(32 + random.int(95));
    else if (kind < 7) text += String.fromCharCode(random.int(32));
    else if (kind < 9) text += String.fromCodePoint(0xa0 + random.int(0x2fff));
    else text += String.fromCodePoint(0x1f300 + random.int(0x300));
  }
  return text;
}

export function randomNumber(random: FuzzRandom): number {
  return random.pick([0, -0, 1, -1, 1.5, 200, 201, 2 ** 31, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e308, Number.MIN_VALUE, random.next() * 1e6]);
}

/** Any JSON value, nested up to `depth`. */
export function randomJson(random: FuzzRandom, depth = 3): unknown {
  const kind = random.int(depth > 0 ? 8 : 5);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return randomNumber(random);
    case 3:
    case 4:
      return randomString(random);
    case 5:
    case 6: {
      const object: Record<string, unknown> = {};
      const size = random.int(5);
      for (let index = 0; index < size; index += 1) object[random.chance(0.3) ? random.pick(['__proto__', 'constructor', 'prompt', 'options', 'text']) : randomString(random, 12)] = randomJson(random, depth - 1);
      return object;
    }
    default:
      return Array.from({ length: random.int(5) }, () => randomJson(random, depth - 1));
  }
}

/** A JSON nested `levels` deep: parsers and validators must not recurse themselves to death. */
export function deeplyNested(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** Percent-encodes every byte of the UTF-8 form except unreserved characters (lone surrogates
 * become U+FFFD, where encodeURIComponent would throw). */
export function percentEncode(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const character = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9\-._~]/.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** A path segment meant to escape, confuse or overflow the router. */
export function randomSegment(random: FuzzRandom): string {
  const segments = [
    '..',
    '%2e%2e',
    '..%2f..%2f',
    '%252e%252e%252f',
    '..;',
    '.%00.',
    '%00',
    '%ff',
    '%c0%ae%c0%ae',
    '\u2025',
    percentEncode('🥐'),
    '%F0%9F%A5%90',
    'a'.repeat(random.int(4000) + 1),
    'run_' + 'A'.repeat(random.int(80)),
    'og-image.svg',
    'd',
    'index.html',
    '',
    ';',
    '*',
    '%2A',
    '?x=1',
    '#frag',
  ];
  return random.chance(0.7) ? random.pick(segments) : percentEncode(randomString(random, 20));
}
