// The kill switch's keys before their hash tag (keys.ts killSwitch/toolOutcomes): `<prefix>:killswitch`
// (+ `:scopes`, `:trips`) and `<prefix>:toolout` (+ every `:<window>` suffix, kill-switch-keys.ts).
// A deployment upgraded on one server keeps its state — a tripped switch stays tripped — because
// the first use of the switch in a process (the switch itself, or a write fence check) renames each
// old key that still exists to its new name when the new one does not (move-legacy-keys.ts: one
// script, so processes starting together move each key exactly once). The window names vary, so
// they are found with one SCAN; a marker then spares later processes that scan. Skipped on a
// cluster: the old names never ran there (their scripts were cross-slot).
//
// A process of the old version still running after the move (a rolling upgrade) keeps using the
// old names; what it records there is not moved again. Replace every process of a deployment.
import type { KeySpace } from './keys.js';
import { killSwitchScopesKey, killSwitchTripsKey } from './kill-switch-keys.js';
import { moveLegacyKeys } from '../redis/move-legacy-keys.js';
import { isCluster, type RedisClient } from '../redis/redis-connection.js';
import { scanKeys } from '../redis/redis-scan.js';

/** String: set once the legacy kill switch keys of the prefix were moved. */
function movedMarkerKey(keys: KeySpace): string {
  return `${keys.killSwitch()}:legacy-moved`;
}

/** SCAN MATCH treats `*?[]\` as a pattern; a prefix is matched literally. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Every legacy kill switch key of the prefix on one server, paired with its new name. */
async function legacyMoves(redis: RedisClient, keys: KeySpace): Promise<Array<readonly [string, string]>> {
  const legacySwitch = `${keys.prefix}:killswitch`;
  const legacyOutcomes = `${keys.prefix}:toolout`;
  const moves: Array<readonly [string, string]> = [
    [legacySwitch, keys.killSwitch()],
    [`${legacySwitch}:scopes`, killSwitchScopesKey(keys)],
    [`${legacySwitch}:trips`, killSwitchTripsKey(keys)],
    [legacyOutcomes, keys.toolOutcomes()],
  ];
  for await (const batch of scanKeys(redis, `${escapeGlob(legacyOutcomes)}:*`)) {
    for (const key of batch) moves.push([key, `${keys.toolOutcomes()}${key.slice(legacyOutcomes.length)}`]);
  }
  return moves;
}

async function moveOnce(redis: RedisClient, keys: KeySpace): Promise<void> {
  if (isCluster(redis)) return;
  if ((await redis.exists(movedMarkerKey(keys))) === 1) return;
  await moveLegacyKeys(redis, await legacyMoves(redis, keys));
  await redis.set(movedMarkerKey(keys), '1');
}

const moving = new WeakMap<RedisClient, Map<string, Promise<void>>>();

/** Moves the prefix's legacy kill switch keys to their tagged names, once per connection and
 * prefix (awaited before every use of the switch's keys); a failed move is tried again next time. */
export function ensureKillSwitchKeyLayout(redis: RedisClient, keys: KeySpace): Promise<void> {
  let byPrefix = moving.get(redis);
  if (!byPrefix) {
    byPrefix = new Map();
    moving.set(redis, byPrefix);
  }
  let pending = byPrefix.get(keys.prefix);
  if (!pending) {
    const started = moveOnce(redis, keys).catch((error: unknown) => {
      byPrefix.delete(keys.prefix);
      throw error;
    });
    byPrefix.set(keys.prefix, started);
    pending = started;
  }
  return pending;
}
