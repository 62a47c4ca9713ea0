// Identifiers shaped like the real API's (msg_…, toolu_…, req_…). They are random rather than
// derived from the transcript: identical transcripts in parallel runs must still get unique ids.
import { randomInt } from 'node:crypto';

const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A prefix followed by `length` random base62 characters, e.g. `toolu_01Ab…`. */
export function createIdentifier({ prefix, length = 24 }: { prefix: string; length?: number }): string {
  let suffix = '';
  for (let index = 0; index < length; index += 1) suffix += BASE62_ALPHABET[randomInt(BASE62_ALPHABET.length)];
  return `${prefix}${suffix}`;
}
