// Signatures for thinking blocks. The real API signs every thinking block and encrypts every
// redacted_thinking block, and refuses a request whose blocks were altered (docs
// build-with-claude/extended-thinking, "Thinking encryption" and "Preserving thinking blocks").
// A signature also binds the model that produced the block and the conversation before it (docs
// build-with-claude/preserved-thinking: "Thinking blocks are tied to the model and the
// conversation"; conversation-prefix.ts), which screen-thinking-blocks.ts checks.
// Here: signature = base64(payload ‖ HMAC-SHA256(secret, payload)), the payload naming the producer,
// the prefix digest and a digest of the text when the block went out with its text. A block sent
// with `display: "omitted"` binds no text: "Any text you place in the `thinking` field of a
// round-tripped omitted block is ignored" (build-with-claude/thinking#controlling-thinking-display).
// Redacted data is the same, with a digest of the hidden reasoning. The secret is per simulator, so
// blocks from another simulator (or from before a restart) are refused, as a real deployment
// refuses foreign ones.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 32;

/** What a verified signature says about its block. */
export interface ThinkingBinding {
  /** The producing model's id (model-catalog.ts). */
  producer: string;
  /** conversation-prefix.ts digest of what preceded the block. */
  prefixDigest: string;
}

interface Payload extends ThinkingBinding {
  kind: 'thinking' | 'redacted';
  /** Digest of the text the block carries; null when the text is not bound (omitted, redacted). */
  text: string | null;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

export class ThinkingSigner {
  readonly #secret: Buffer;

  constructor({ secret }: { secret?: string } = {}) {
    this.#secret = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  }

  #mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.#secret).update(payload).digest();
  }

  #seal(payload: Payload): string {
    const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
    return Buffer.concat([bytes, this.#mac(bytes)]).toString('base64');
  }

  #open(sealed: string, kind: Payload['kind']): Payload | null {
    const bytes = Buffer.from(sealed, 'base64');
    if (bytes.length <= MAC_BYTES || bytes.toString('base64') !== sealed) return null;
    const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
    if (!timingSafeEqual(bytes.subarray(bytes.length - MAC_BYTES), this.#mac(payload))) return null;
    const parsed = JSON.parse(payload.toString('utf8')) as Payload;
    return parsed.kind === kind ? parsed : null;
  }

  /** The signature of a thinking block; `textShown` false: the block goes out with empty text. */
  sign({ thinking, textShown, producer, prefixDigest }: { thinking: string; textShown: boolean } & ThinkingBinding): string {
    return this.#seal({ kind: 'thinking', producer, prefixDigest, text: textShown ? digest(thinking) : null });
  }

  /** The binding of an unaltered thinking block, or null when its signature does not verify. */
  verify({ thinking, signature }: { thinking: string; signature: string }): ThinkingBinding | null {
    const payload = this.#open(signature, 'thinking');
    if (!payload || (payload.text !== null && payload.text !== digest(thinking))) return null;
    return { producer: payload.producer, prefixDigest: payload.prefixDigest };
  }

  /** Opaque `data` for a redacted_thinking block. */
  redact({ hiddenText, producer, prefixDigest }: { hiddenText: string } & ThinkingBinding): string {
    return this.#seal({ kind: 'redacted', producer, prefixDigest, text: digest(hiddenText) });
  }

  /** The binding of unaltered redacted `data`, or null. */
  verifyRedacted({ data }: { data: string }): ThinkingBinding | null {
    const payload = this.#open(data, 'redacted');
    return payload ? { producer: payload.producer, prefixDigest: payload.prefixDigest } : null;
  }
}
