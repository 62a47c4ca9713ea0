// The upstream system: which upstreams a run's writes depend on — the one piece of the scoped kill
// switch's state that is a run's (src/safety/kill-switch.ts keeps the rest, in keys of its own). A
// run that records a validated output from an upstream (`upstream:<tool>:<host>`) depends on it for
// a window: while that upstream's scope is read-only, the run's writes are refused. The kill switch
// notes each dependency here and reads the live ones before it judges a write claim; the write
// fence (effects/write-fence.ts) reads the same zset inside every guarded write.
//
// The zset is kept by the Lua of run-upstream-scopes-lua.ts (bounded: past MAX_RUN_UPSTREAMS
// distinct upstreams in a window it collapses into "every upstream"), and expires with the run's
// other keys once the run is archived (stored-values.ts runKeysOf).
import { defineLuaCommands } from '../../redis/define-lua-commands.js';
import { LUA_REDIS_NOW_MS } from '../../redis/lua-redis-time.js';
import { runUpstreamsKey } from '../kill-switch-keys.js';
import { LUA_RUN_UPSTREAM_SCOPES } from '../run-upstream-scopes-lua.js';
import { type EngineContext, EngineSystem } from './engine-system.js';
import { decodeLiveUpstreams } from './stored-values.js';

const NOW = `${LUA_REDIS_NOW_MS}
local now = redis_now_ms()
`;

/**
 * bfNoteRunUpstream — the run's writes depend on an upstream for a window from now.
 * KEYS[1] the run's upstreams zset. ARGV[1] upstream scope id, ARGV[2] window ms. Returns 1.
 */
const NOTE_RUN_UPSTREAM = `${NOW}${LUA_RUN_UPSTREAM_SCOPES}
local window_ms = tonumber(ARGV[2])
note_run_upstream(KEYS[1], ARGV[1], now + window_ms, now, window_ms * 2)
return 1
`;

/**
 * bfRunLiveUpstreams — the upstreams a run's writes depend on now.
 * KEYS[1] the run's upstreams zset. Returns the upstream scope ids, or {'*'} for every upstream.
 */
const RUN_LIVE_UPSTREAMS = `${NOW}${LUA_RUN_UPSTREAM_SCOPES}
return run_live_upstreams(KEYS[1], now)
`;

interface UpstreamScripts {
  bfNoteRunUpstream(runUpstreamsKey: string, upstreamId: string, windowMs: number): Promise<number>;
  bfRunLiveUpstreams(runUpstreamsKey: string): Promise<unknown>;
}

/** An upstream scope id (src/safety/kill-switch-scope.ts): `upstream:<tool>:<host>`. */
const UPSTREAM_ID = /^upstream:[^:]+:.+$/;

export class UpstreamSystem extends EngineSystem {
  private readonly upstreamScripts: UpstreamScripts;

  constructor(context: EngineContext) {
    super(context);
    this.upstreamScripts = defineLuaCommands<UpstreamScripts>(context.redis, {
      bfNoteRunUpstream: { numberOfKeys: 1, lua: NOTE_RUN_UPSTREAM },
      bfRunLiveUpstreams: { numberOfKeys: 1, lua: RUN_LIVE_UPSTREAMS },
    });
  }

  /** The run's writes depend on `upstreamId` from now until `windowMs` from now (Redis time). */
  async noteRunUpstream(runId: string, upstreamId: string, windowMs: number): Promise<void> {
    if (!UPSTREAM_ID.test(upstreamId)) throw new Error(`not an upstream scope id: ${JSON.stringify(upstreamId)}`);
    if (!Number.isSafeInteger(windowMs) || windowMs < 1) throw new Error(`windowMs must be a positive whole number of ms, not ${windowMs}`);
    await this.upstreamScripts.bfNoteRunUpstream(runUpstreamsKey(this.keys, runId), upstreamId, windowMs);
  }

  /** The upstream scope ids the run's writes depend on now; `['*']` (RUN_READ_EVERY_UPSTREAM)
   * when it read more than MAX_RUN_UPSTREAMS within a window and depends on every upstream. */
  async liveUpstreamsOf(runId: string): Promise<string[]> {
    const reply = await this.upstreamScripts.bfRunLiveUpstreams(runUpstreamsKey(this.keys, runId));
    return decodeLiveUpstreams({ runId, reply, logger: this.logger });
  }
}
