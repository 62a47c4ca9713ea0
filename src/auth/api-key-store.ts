// API keys in Redis. A key is `bf_` + 43 base64url characters (32 random bytes); only its SHA-256
// is stored. A fast hash is enough here, unlike for passwords: 256 random bits cannot be guessed
// or brute-forced from the hash, so a slow KDF would only add CPU to every request. Lookups go by
// hash (the token itself is never stored or logged), and the stored hash is then compared with
// timingSafeEqual before the record is trusted.
//
//   {prefix}:{{prefix}-apikeys}         hash: key id → JSON {hash, tenant, scopes, name, created, revoked}
//   {prefix}:{{prefix}-apikeys}:byhash  hash: SHA-256 hex of the token → key id (removed on revoke)
//   {prefix}:{{prefix}-apikeys}:bootstrap  string: id of the key `buildfleet keys bootstrap` created (set
//                               once, never cleared, so a deployment gets exactly one bootstrap key)
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection.js';
import { z } from 'zod';
import type { KeySpace } from '../engine/index.js';
import { API_KEY_SCOPES, type ApiKeyScope } from './api-key-scopes.js';
import { TENANT_PATTERN } from '../domain/tenant-id.js';

export const API_KEY_PATTERN = /^bf_[A-Za-z0-9_-]{43}$/;
const KEY_ID_PATTERN = /^key_[a-f0-9]{16}$/;

export const apiKeyRecordSchema = z.object({
  hash: z.string().regex(/^[a-f0-9]{64}$/),
  tenant: z.string().regex(TENANT_PATTERN),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  name: z.string().nullable().default(null),
  created: z.string(),
  revoked: z.string().nullable(),
});
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>;

/** A key as listed: everything but the hash. */
export interface ApiKeyInfo {
  id: string;
  tenant: string;
  scopes: ApiKeyScope[];
  name: string | null;
  created: string;
  revoked: string | null;
}

/** Who a verified key acts for. */
export interface VerifiedApiKey {
  keyId: string;
  tenant: string;
  scopes: ApiKeyScope[];
}

/** What `createBootstrap` did: made the key (its token shown now, once) or found the one made before. */
export type BootstrapOutcome = { created: true; id: string; token: string } | { created: false; id: string; existing: ApiKeyInfo | null };

// Creates the bootstrap key only if no bootstrap key was ever created, in one atomic step, so two
// bootstraps started together (two `kubectl exec`s, a retried Job) still make one key. The marker is
// written with the records, so a crash cannot leave a marker without its key or the reverse.
// KEYS: apikeys, apikeys:byhash, apikeys:bootstrap. ARGV: id, record JSON, hash.
// Returns the existing key id, or nil (false) when it created the key.
const CREATE_BOOTSTRAP_SCRIPT = `
local existing = redis.call('GET', KEYS[3])
if existing then return existing end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
redis.call('SET', KEYS[3], ARGV[1])
return false
`;

/** SHA-256 hex of a token. */
export function hashApiKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function parseRecord(raw: string | null): ApiKeyRecord | null {
  if (raw === null) return null;
  try {
    const parsed = apiKeyRecordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function bootstrapMarkerKey(keys: KeySpace): string {
  return `${keys.apiKeys()}:bootstrap`;
}

/** A new random key and the record stored for it (only the token's hash). */
function newKey({ tenant, scopes, name }: { tenant: string; scopes: readonly ApiKeyScope[]; name: string | null }): {
  id: string;
  token: string;
  hash: string;
  record: ApiKeyRecord;
} {
  if (!TENANT_PATTERN.test(tenant)) throw new Error(`invalid tenant "${tenant}": 1-64 letters, digits, _ and -, starting with a letter or digit`);
  if (scopes.length === 0) throw new Error('a key needs at least one scope');
  const id = `key_${randomBytes(8).toString('hex')}`;
  const token = `bf_${randomBytes(32).toString('base64url')}`;
  const hash = hashApiKey(token);
  const record: ApiKeyRecord = { hash, tenant, scopes: [...new Set(scopes)], name, created: new Date().toISOString(), revoked: null };
  return { id, token, hash, record };
}

export class ApiKeyStore {
  constructor(private readonly options: { redis: RedisClient; keys: KeySpace }) {}

  /** Creates a key; the returned token is shown once and cannot be recovered later. */
  async create({
    tenant,
    scopes,
    name = null,
  }: {
    tenant: string;
    scopes: readonly ApiKeyScope[];
    name?: string | null;
  }): Promise<{ id: string; token: string }> {
    const { id, token, hash, record } = newKey({ tenant, scopes, name });
    const { redis, keys } = this.options;
    await redis.multi().hset(keys.apiKeys(), id, JSON.stringify(record)).hset(keys.apiKeyHashes(), hash, id).exec();
    return { id, token };
  }

  /**
   * The deployment's first key, made at most once per prefix: when a bootstrap key was ever created
   * (even if since revoked) nothing is created and its token, which only ever existed in the first
   * answer, is not available again. Further keys come from `create`.
   */
  async createBootstrap({ tenant, scopes, name }: { tenant: string; scopes: readonly ApiKeyScope[]; name: string }): Promise<BootstrapOutcome> {
    const { id, token, hash, record } = newKey({ tenant, scopes, name });
    const { redis, keys } = this.options;
    const existingId = await redis.eval(
      CREATE_BOOTSTRAP_SCRIPT,
      3,
      keys.apiKeys(),
      keys.apiKeyHashes(),
      bootstrapMarkerKey(keys),
      id,
      JSON.stringify(record),
      hash,
    );
    if (existingId === null) return { created: true, id, token };
    // State read back from Redis: a marker that is not a key id means someone else wrote it.
    if (typeof existingId !== 'string' || !KEY_ID_PATTERN.test(existingId)) {
      throw new Error(`${bootstrapMarkerKey(keys)} holds ${JSON.stringify(existingId)}, not a key id; inspect it before bootstrapping`);
    }
    const existing = (await this.list()).find((info) => info.id === existingId) ?? null;
    return { created: false, id: existingId, existing };
  }

  /** The key a bearer token belongs to, or null when it is malformed, unknown or revoked. */
  async verify(token: string): Promise<VerifiedApiKey | null> {
    if (!API_KEY_PATTERN.test(token)) return null;
    const { redis, keys } = this.options;
    const presented = hashApiKey(token);
    const keyId = await redis.hget(keys.apiKeyHashes(), presented);
    if (keyId === null) return null;
    const record = parseRecord(await redis.hget(keys.apiKeys(), keyId));
    if (!record || record.revoked !== null) return null;
    // The index already matched on the hash; comparing the record's own hash in constant time
    // guards against an index entry that points at the wrong record.
    const stored = Buffer.from(record.hash, 'hex');
    const candidate = Buffer.from(presented, 'hex');
    if (stored.length !== candidate.length || !timingSafeEqual(stored, candidate)) return null;
    return { keyId, tenant: record.tenant, scopes: record.scopes };
  }

  /** Every key (optionally of one tenant), oldest first, without secrets. */
  async list({ tenant }: { tenant?: string } = {}): Promise<ApiKeyInfo[]> {
    const { redis, keys } = this.options;
    const entries = await redis.hgetall(keys.apiKeys());
    const infos: ApiKeyInfo[] = [];
    for (const [id, raw] of Object.entries(entries)) {
      const record = parseRecord(raw);
      if (!record || (tenant !== undefined && record.tenant !== tenant)) continue;
      infos.push({ id, tenant: record.tenant, scopes: record.scopes, name: record.name, created: record.created, revoked: record.revoked });
    }
    return infos.sort((left, right) => left.created.localeCompare(right.created) || left.id.localeCompare(right.id));
  }

  /** Revokes a key at once (its next request is 401); 'not_found' for an unknown id. */
  async revoke(keyId: string): Promise<'revoked' | 'already_revoked' | 'not_found'> {
    if (!KEY_ID_PATTERN.test(keyId)) return 'not_found';
    const { redis, keys } = this.options;
    const record = parseRecord(await redis.hget(keys.apiKeys(), keyId));
    if (!record) return 'not_found';
    if (record.revoked !== null) return 'already_revoked';
    const revoked: ApiKeyRecord = { ...record, revoked: new Date().toISOString() };
    await redis.multi().hset(keys.apiKeys(), keyId, JSON.stringify(revoked)).hdel(keys.apiKeyHashes(), record.hash).exec();
    return 'revoked';
  }
}
