// Console sessions in Redis, one key per session with a TTL renewed by each request:
//
//   {prefix}:console:session:{SHA-256 hex of the session id} → JSON ConsoleSessionRecord
//
// The session id (32 random bytes) lives only in the browser's HttpOnly cookie; Redis holds its
// hash, so reading Redis gives no cookie to replay, and the API key sealed with a key derived from
// the id (seal-secret.ts). Sessions are console state, not run state, so they sit beside the API
// keys under the fleet's prefix rather than in the run engine's key space.
import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection.js';
import { z } from 'zod';
import { API_KEY_SCOPES } from '../auth/api-key-scopes.js';
import { sealSecret, unsealSecret } from './seal-secret.js';

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const consoleSessionRecordSchema = z.object({
  keyId: z.string().min(1),
  tenant: z.string().min(1),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  sealedApiKey: z.string().min(1),
  createdAt: z.string(),
});
type ConsoleSessionRecord = z.infer<typeof consoleSessionRecordSchema>;

/** A session as the console uses it: who signed in, and the API key to forward with. */
export interface ConsoleSession {
  keyId: string;
  tenant: string;
  scopes: ConsoleSessionRecord['scopes'];
  apiKey: string;
  createdAt: string;
}

/** Why a stored session could not be used (logged, then treated as signed out). */
export class StoredConsoleSessionInvalid extends Error {
  readonly code = 'console_session_invalid';
}

export class ConsoleSessionStore {
  constructor(private readonly options: { redis: RedisClient; prefix: string; ttlSeconds: number }) {}

  private keyOf(sessionId: string): string {
    return `${this.options.prefix}:console:session:${createHash('sha256').update(sessionId, 'utf8').digest('hex')}`;
  }

  /** Starts a session for a verified key; returns the id to set in the cookie. */
  async create({ apiKey, keyId, tenant, scopes }: Omit<ConsoleSession, 'createdAt'>): Promise<string> {
    const sessionId = randomBytes(32).toString('base64url');
    const record: ConsoleSessionRecord = {
      keyId,
      tenant,
      scopes,
      sealedApiKey: sealSecret({ sessionId, secret: apiKey }),
      createdAt: new Date().toISOString(),
    };
    await this.options.redis.set(this.keyOf(sessionId), JSON.stringify(record), 'EX', this.options.ttlSeconds);
    return sessionId;
  }

  /** The live session of an id, its lifetime renewed; null when there is none. Throws
   * StoredConsoleSessionInvalid for a record that does not decode or unseal (after deleting it). */
  async read(sessionId: string): Promise<ConsoleSession | null> {
    if (!SESSION_ID_PATTERN.test(sessionId)) return null;
    const key = this.keyOf(sessionId);
    // GETEX reads and renews in one round trip: a session lives TTL seconds past its last use.
    const raw = await this.options.redis.getex(key, 'EX', this.options.ttlSeconds);
    if (raw === null) return null;
    const record = parseRecord(raw);
    const apiKey = record ? unsealSecret({ sessionId, sealed: record.sealedApiKey }) : null;
    if (!record || apiKey === null) {
      await this.options.redis.del(key);
      throw new StoredConsoleSessionInvalid(record ? 'the stored API key does not unseal with this session id' : 'the stored session record does not decode');
    }
    return { keyId: record.keyId, tenant: record.tenant, scopes: record.scopes, apiKey, createdAt: record.createdAt };
  }

  /** Ends a session (sign-out, or its key was refused by the API). */
  async delete(sessionId: string): Promise<void> {
    if (!SESSION_ID_PATTERN.test(sessionId)) return;
    await this.options.redis.del(this.keyOf(sessionId));
  }
}

function parseRecord(raw: string): ConsoleSessionRecord | null {
  try {
    const parsed = consoleSessionRecordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
