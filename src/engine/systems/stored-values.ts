// Decoders of what a run's keys hold (an outcome, a trail entry, a tool result, an event, a trace
// context), each validated, and the list of every key a run has: shared by the systems.
import { AGENT_NAME, PHASE_NAME, SITE_BUILDER_AGENT } from '../../domain/profile.js';
import { z } from 'zod';
import type { Logger } from 'pino';
import { RUN_READ_EVERY_UPSTREAM } from '../run-upstream-scopes-lua.js';
import { hasRunEventKeys, RUN_EVENT_NAMES } from '../../domain/run-events.js';
import type { KeySpace } from '../keys.js';
import { assetsKey, screenshotsKey, themeKey, writesKey } from '../effect-keys.js';
import { runUpstreamsKey } from '../kill-switch-keys.js';
import { type TurnOutcome, turnOutcomeSchema } from '../turn-outcome.js';
import type { StoredEvent, StoredToolResult, TrailEntry } from '../engine-types.js';

/** Every key a run can have, the run hash first (bfExpireArchivedRun's KEYS[1]). Keys that do
 * not exist cost the script one PEXPIRE that does nothing. */
export function runKeysOf(keys: KeySpace, runId: string, { turns }: { turns: number }): string[] {
  return [
    keys.run(runId),
    keys.messages(runId),
    keys.events(runId),
    keys.results(runId),
    keys.files(runId),
    keys.deployments(runId),
    keys.trail(runId),
    themeKey(keys, runId),
    assetsKey(keys, runId),
    screenshotsKey(keys, runId),
    writesKey(keys, runId),
    runUpstreamsKey(keys, runId),
    // Turns count from 1; 0 and one past the last cost nothing and cover a turn being claimed.
    ...Array.from({ length: turns + 2 }, (_, turn) => keys.turn(runId, turn)),
  ];
}

const liveUpstreamsSchema = z.array(z.string().regex(/^(\*|upstream:[^:]+:.+)$/));

/** The upstreams a run's writes depend on, as a script read them from its upstreams zset
 * (run-upstream-scopes-lua.ts run_live_upstreams): upstream scope ids, or `['*']` for every one.
 * A member that is no upstream scope id fails closed: the run then depends on every upstream (a
 * tripped one refuses its writes), its reads go on, and the warning names the run. */
export function decodeLiveUpstreams({ runId, reply, logger }: { runId: string; reply: unknown; logger: Logger | undefined }): string[] {
  const parsed = liveUpstreamsSchema.safeParse(reply);
  if (parsed.success) return parsed.data;
  logger?.warn(
    { run_id: runId, event: 'run-upstreams-invalid' },
    `the upstreams zset of run ${runId} holds a member that is no upstream scope id; its writes depend on every upstream`,
  );
  return [RUN_READ_EVERY_UPSTREAM];
}

const traceCarrierSchema = z.record(z.string(), z.string());

/** A stored trace context; one that does not decode only loses the trace link, never the run. */
export function decodeTraceContext(raw: string): Record<string, string> {
  if (!raw) return {};
  try {
    const parsed = traceCarrierSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export function parseOutcome(raw: string): TurnOutcome {
  return turnOutcomeSchema.parse(JSON.parse(raw));
}

const trailEntrySchema = z.object({
  tool: z.string(),
  ok: z.boolean(),
  phase: z.string().regex(PHASE_NAME),
  turn: z.int(),
  toolUseId: z.string(),
  detail: z.string().optional(),
});

/** A trail entry as stored (the finish gate decides from these): validated. */
export function parseTrailEntry(raw: string): TrailEntry {
  const parsed = trailEntrySchema.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(`A stored trail entry does not decode: ${raw.slice(0, 120)}`);
  return parsed.data as TrailEntry;
}

export function parseToolResult(raw: string): StoredToolResult {
  const value = JSON.parse(raw) as StoredToolResult;
  if (typeof value?.content !== 'string' || typeof value.is_error !== 'boolean') throw new Error(`A stored tool result does not decode: ${raw.slice(0, 120)}`);
  return value;
}

// The shape every event has once encode() stored it; the API documents the same (storedEventSchema).
const storedEventDataSchema = z.looseObject({ run_id: z.string(), step: z.number(), event: z.enum(RUN_EVENT_NAMES), at: z.string() });

/** One event stream entry ([id, [field, value, …]], from XRANGE or XREAD), validated: its `data`
 * field is the event's JSON. The stream id is set last, so it is the id whatever the data holds
 * (clients resume from it with Last-Event-ID). */
export function parseStoredEvent([id, fields]: [string, string[]]): StoredEvent {
  let raw: string | undefined;
  for (let index = 0; index + 1 < fields.length; index += 2) if (fields[index] === 'data') raw = fields[index + 1];
  let value: unknown;
  try {
    value = raw === undefined ? undefined : JSON.parse(raw);
  } catch {
    value = undefined;
  }
  const parsed = storedEventDataSchema.safeParse(value);
  if (!parsed.success || !hasRunEventKeys(parsed.data)) throw new Error(`The stored event ${id} does not decode: ${(raw ?? '(no data field)').slice(0, 120)}`);
  // The name is checked and so are the fields readers key on (hasRunEventKeys); the rest is as the
  // emitters wrote it, whose fields RunEvent declares.
  return { ...parsed.data, id } as StoredEvent;
}

/** What a run's end reports for an agent field that is no agent name: the end has happened (the
 * script committed it), so it is counted and its slot freed all the same, under this label. */
export const UNREADABLE_AGENT = 'unreadable';

/** A run's agent as an ending script read it: a run from before agents has none, and is the site
 * builder's (run-record.ts reads it the same way). Read back like any other field: a value that is
 * no agent name becomes UNREADABLE_AGENT rather than a metric label of whatever Redis held. */
export function agentOf(stored: string | undefined): string {
  const agent = stored || SITE_BUILDER_AGENT;
  return AGENT_NAME.test(agent) ? agent : UNREADABLE_AGENT;
}
