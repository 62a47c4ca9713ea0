// A Redis lock so one reaper sweeps at a time across the fleet's processes: SET NX PX with a
// random token, extended and released only by its holder (compare-and-set in Lua; the pattern of
// the Redis docs' "SET" page, "Patterns": a lock that only its owner removes). A holder that dies
// leaves a lock that expires after its TTL.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection.js';

const EXTEND = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class ReaperLock {
  private token: string | null = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly ttlMs: number,
  ) {}

  /** Takes the lock if nobody holds it. */
  async acquire(): Promise<boolean> {
    const token = randomUUID();
    const reply = await this.redis.set(this.key, token, 'PX', this.ttlMs, 'NX');
    this.token = reply === 'OK' ? token : null;
    return this.token !== null;
  }

  /** Renews the TTL; false when the lock expired and someone else may hold it now. */
  async extend(): Promise<boolean> {
    if (!this.token) return false;
    return Number(await this.redis.eval(EXTEND, 1, this.key, this.token, this.ttlMs)) === 1;
  }

  async release(): Promise<void> {
    if (!this.token) return;
    const token = this.token;
    this.token = null;
    await this.redis.eval(RELEASE, 1, this.key, token);
  }
}
