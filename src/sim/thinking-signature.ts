// Signatures for thinking blocks. The real API signs every thinking block and encrypts every
// redacted_thinking block, and refuses a request whose blocks were altered (docs
// build-with-claude/extended-thinking, "Thinking encryption" and "Preserving thinking blocks").
// Here: signature = base64(HMAC-SHA256(secret, thinking text)); redacted data =
// base64(payload ‖ HMAC-SHA256(secret, payload)). The secret is per simulator, so blocks from another
// simulator (or from before a restart) are refused too, as a real deployment refuses foreign ones.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 32;

export class ThinkingSigner {
  readonly #secret: Buffer;

  constructor({ secret }: { secret?: string } = {}) {
    this.#secret = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  }

  #mac(payload: Buffer | string): Buffer {
    return createHmac('sha256', this.#secret).update(payload).digest();
  }

  /** The signature a thinking block carries. */
  sign({ thinking }: { thinking: string }): string {
    return this.#mac(`thinking\u0000${thinking}`).toString('base64');
  }

  /** Whether `signature` is this simulator's signature of `thinking`. */
  verify({ thinking, signature }: { thinking: string; signature: string }): boolean {
    const given = Buffer.from(signature, 'base64');
    const expected = this.#mac(`thinking\u0000${thinking}`);
    return given.length === expected.length && given.toString('base64') === signature && timingSafeEqual(given, expected);
  }

  /** Opaque `data` for a redacted_thinking block: a digest of the hidden text, then its MAC. */
  redact({ hiddenText }: { hiddenText: string }): string {
    const payload = Buffer.concat([Buffer.from('redacted'), createHash('sha512').update(hiddenText).digest()]);
    return Buffer.concat([payload, this.#mac(payload)]).toString('base64');
  }

  /** Whether `data` came from `redact` of this simulator, unaltered. */
  verifyRedacted({ data }: { data: string }): boolean {
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length <= MAC_BYTES || bytes.toString('base64') !== data) return false;
    const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
    return timingSafeEqual(bytes.subarray(bytes.length - MAC_BYTES), this.#mac(payload));
  }
}
