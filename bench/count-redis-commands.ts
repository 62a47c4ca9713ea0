// Client-side count of the Redis commands and round trips this process issues, by patching
// ioredis once (BullMQ uses the same ioredis module, so its queues, workers and flow producers
// are counted too). What the server runs inside Lua scripts is not visible here: an EVALSHA is
// one command. INFO commandstats is the server-side view and counts every redis.call as well.
//
// How ioredis sends (node_modules/ioredis/built/Pipeline.js, Redis.js, Script.js, v5.11):
// - Every command reaches `Redis.prototype.sendCommand(command, stream?)`. A plain command has no
//   `stream`; it is written on its own and answered on its own: one round trip.
// - A Pipeline (and a MULTI, which is a pipeline) queues its commands and on `exec()` calls
//   `redis.sendCommand(command, stream)` for each with one shared `stream` object that writes
//   them to the socket together: the commands count one each, the whole batch one round trip.
//   The `stream` object is created per exec (execPipeline), so "first command seen with this
//   stream" is the same as "one exec", without double counting MULTI's exec wrapper.
// - A defined Lua command (defineCommand: BullMQ's scripts and the fleet's) is sent as an
//   `evalsha` Command whose args[0] is the script's sha1; ioredis turns it into EVAL only while
//   writing it, after sendCommand has seen it. The connection's `scriptsSet` maps names to
//   Script objects with their sha, which names the script here.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Redis } from 'ioredis';

export interface RedisCommandCounts {
  /** Commands issued (EVALSHA = 1, each command of a pipeline = 1). */
  commands: number;
  /** Request/response exchanges: a plain command or one pipeline/MULTI exec. */
  roundTrips: number;
  /** Commands by name; `evalsha:<script>` when the script's name is known. */
  byName: Record<string, number>;
}

export interface RedisCommandCounter {
  /** Counts so far of the counted (fleet) commands and of the excluded (bench's own) ones. */
  snapshot(): { counted: RedisCommandCounts; excluded: RedisCommandCounts };
  /** Commands sent on this connection are the bench's own, never counted as the fleet's. */
  excludeConnection(redis: Redis): void;
  /** Commands issued while `body` runs (its async continuations included) are the bench's own. */
  uncounted<T>(body: () => Promise<T>): Promise<T>;
}

interface SendableCommand {
  name: string;
  args: unknown[];
}

type SendCommand = (this: Redis, command: SendableCommand, stream?: object) => unknown;

function emptyCounts(): RedisCommandCounts {
  return { commands: 0, roundTrips: 0, byName: {} };
}

function copyCounts(counts: RedisCommandCounts): RedisCommandCounts {
  return { commands: counts.commands, roundTrips: counts.roundTrips, byName: { ...counts.byName } };
}

/** after − before, per field and per command name. */
export function subtractCounts({ after, before }: { after: RedisCommandCounts; before: RedisCommandCounts }): RedisCommandCounts {
  const byName: Record<string, number> = {};
  for (const [name, count] of Object.entries(after.byName)) {
    const delta = count - (before.byName[name] ?? 0);
    if (delta !== 0) byName[name] = delta;
  }
  return { commands: after.commands - before.commands, roundTrips: after.roundTrips - before.roundTrips, byName };
}

/** The plain command names of counts (`evalsha:moveToActive` → `evalsha`), for comparing with
 * INFO commandstats, which knows no script names. */
export function countsByCommand(counts: RedisCommandCounts): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, count] of Object.entries(counts.byName)) {
    const command = name.split(':')[0]!;
    out[command] = (out[command] ?? 0) + count;
  }
  return out;
}

let installed: RedisCommandCounter | null = null;

/** Patches ioredis once per process and returns the counter (later calls return the same one). */
export function installRedisCommandCounter(): RedisCommandCounter {
  if (installed) return installed;
  const counted = emptyCounts();
  const excluded = emptyCounts();
  const excludedConnections = new WeakSet<object>();
  const benchContext = new AsyncLocalStorage<true>();
  const pipelineStreams = new WeakSet<object>();
  const scriptNames = new Map<string, string>();

  const scriptName = (redis: Redis, sha: unknown): string => {
    if (typeof sha !== 'string') return 'evalsha';
    let name = scriptNames.get(sha);
    if (name === undefined) {
      // scriptsSet is ioredis' own (utils/Commander.js, defineCommand); not in its typings.
      // BullMQ names its scripts `<name>:<bullmq version>`.
      const scripts = (redis as unknown as { scriptsSet?: Record<string, { sha?: string }> }).scriptsSet ?? {};
      for (const [scriptKey, script] of Object.entries(scripts)) if (script.sha) scriptNames.set(script.sha, `evalsha:${scriptKey}`);
      name = scriptNames.get(sha) ?? 'evalsha';
      scriptNames.set(sha, name);
    }
    return name;
  };

  const prototype = Redis.prototype as unknown as { sendCommand: SendCommand };
  const original = prototype.sendCommand;
  prototype.sendCommand = function countedSendCommand(this: Redis, command: SendableCommand, stream?: object) {
    const target = excludedConnections.has(this) || benchContext.getStore() === true ? excluded : counted;
    const lowered = String(command.name).toLowerCase();
    const name = lowered === 'evalsha' ? scriptName(this, command.args[0]) : lowered;
    target.commands += 1;
    target.byName[name] = (target.byName[name] ?? 0) + 1;
    if (!stream) target.roundTrips += 1;
    else if (!pipelineStreams.has(stream)) {
      pipelineStreams.add(stream);
      target.roundTrips += 1;
    }
    return original.call(this, command, stream);
  };

  installed = {
    snapshot: () => ({ counted: copyCounts(counted), excluded: copyCounts(excluded) }),
    excludeConnection: (redis) => excludedConnections.add(redis),
    uncounted: (body) => benchContext.run(true, body),
  };
  return installed;
}
