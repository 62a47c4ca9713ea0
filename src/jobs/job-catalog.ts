// The typed job catalog: each queue's job data is a zod schema, checked when a job is enqueued
// and again when a worker takes it, so a malformed job fails loudly instead of corrupting a run.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { PARSE_MODES } from '../domain/parse-modes.js';
import { webhookPayloadSchema } from '../domain/webhook-payload.js';
import { RUN_ID_PATTERN } from '../domain/ids.js';

export const QUEUE_NAMES = { model: 'model', tool: 'tool' } as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

const runId = z.string().regex(RUN_ID_PATTERN);
const traceCarrier = z.record(z.string(), z.string()).default({});

/** The longest tool_use id a tool job carries. The Messages API documents no length, only the
 * pattern `^[a-zA-Z0-9_-]+$` (it answers 400 "messages.N.content.M.tool_use.id: String should
 * match pattern" to anything else); its own ids are `toolu_` and ~24 base62 characters. The bound
 * is far above both so an id of any realistic shape is carried as it is; the job id never holds it
 * whole (jobIds.tool hashes what is not short and plain). */
export const MAX_TOOL_USE_ID_CHARACTERS = 65_536;

export const modelJobSchema = z.strictObject({
  runId,
  turn: z.int().min(0).max(10_000),
  trace: traceCarrier,
});
export type ModelJobData = z.infer<typeof modelJobSchema>;

export const toolJobSchema = z.strictObject({
  runId,
  turn: z.int().min(0).max(10_000),
  // Any string the model answered with, even one the API would refuse (a hostile simulator, a
  // provider with its own id format, a text-recovered call): refusing it here would fail the job
  // for good and strand its run. The id is data; jobIds makes the job id safe.
  toolUseId: z.string().max(MAX_TOOL_USE_ID_CHARACTERS),
  name: z.string().min(1).max(64),
  input: z.unknown(),
  parseMode: z.enum(PARSE_MODES),
  trace: traceCarrier,
  // The tool's fingerprint in the definition the model worker offered it from (compile-agent.ts):
  // a tool worker whose definition of it differs leaves the job. Absent on jobs from before, and on
  // calls a resume or the reaper enqueues, which any worker serving the agent may run.
  toolFingerprint: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
});
export type ToolJobData = z.infer<typeof toolJobSchema>;

/** The tool job of a call a turn's outcome planned (the engine's PlannedDispatch, structurally: the
 * job protocol sits below the engine), carrying `trace`. The turn's dispatch, the reaper's resume
 * and a run's resume each enqueue these. */
export function toolJobOf(
  call: { runId: string; turn: number; toolUseId: string; name: string; input: unknown; parseMode: string },
  trace: Record<string, string>,
  toolFingerprint?: string,
): ToolJobData {
  // A planned call's parse mode came from the parser (PARSE_MODES); the outcome stores it as a string.
  return {
    runId: call.runId,
    turn: call.turn,
    toolUseId: call.toolUseId,
    name: call.name,
    input: call.input,
    parseMode: call.parseMode as ToolJobData['parseMode'],
    trace,
    ...(toolFingerprint ? { toolFingerprint } : {}),
  };
}

/** The archive queue (src/workers/archive-worker.ts): one job per finished run. Not in QUEUE_NAMES,
 * whose two queues are the run's turn protocol (jobState, the reaper). */
export const ARCHIVE_QUEUE_NAME = 'archive';

export const archiveJobSchema = z.strictObject({ runId });
export type ArchiveJobData = z.infer<typeof archiveJobSchema>;

/** The webhook queue (src/workers/webhook-worker.ts, docs/webhooks.md): one job per delivery — a
 * run's end, or one of its questions. The payload is fixed when the job is made, so every attempt
 * posts the same bytes; the URL is checked again at every attempt. */
export const WEBHOOK_QUEUE_NAME = 'webhook';

export const webhookJobSchema = z.strictObject({
  runId,
  /** The run's turn at the event: the step of the attempts' events. */
  turn: z.int().min(0).max(10_000),
  url: z.string().min(1).max(2048),
  payload: webhookPayloadSchema,
});
export type WebhookJobData = z.infer<typeof webhookJobSchema>;

/** The run and turn a job of either queue belongs to, read from data that may fail its own schema
 * (a job that failed for good because its data did not decode still names its run). */
export const jobRunReferenceSchema = z.looseObject({ runId, turn: z.int().min(0).max(10_000) });

/** A tool_use id that goes into a job id unchanged: the API's own id alphabet, and short. Every id
 * the API or the fleet's text recovery (`synthetic_<hex>`) mints is one, so their job ids are the
 * ones they always were, and a job re-enqueued across an upgrade still dedupes. */
const PLAIN_TOOL_USE_ID = /^[a-zA-Z0-9_-]{1,128}$/;

/**
 * The part of a job id that stands for a tool_use id. BullMQ refuses a custom id with ':' ("Custom
 * Id cannot contain :", Job.addJob) and an id that reads as an integer, and every id becomes part
 * of Redis keys; anything that is not plain (`:`, `/`, spaces, unicode, empty, 10,000 characters)
 * becomes `sha256.` and the SHA-256 of its UTF-8 bytes in hex: deterministic, so enqueueing the
 * same call twice is still one job, and never equal to a plain id ('.' is not in that alphabet).
 */
export function toolUseIdJobPart(toolUseId: string): string {
  if (PLAIN_TOOL_USE_ID.test(toolUseId)) return toolUseId;
  return `sha256.${createHash('sha256').update(toolUseId, 'utf8').digest('hex')}`;
}

/** Deterministic job ids: enqueueing the same turn or tool call twice is a no-op in BullMQ.
 * (BullMQ refuses ':' in custom ids, hence the dashes.) */
export const jobIds = {
  modelTurn: (runIdValue: string, turn: number) => `${runIdValue}-turn-${turn}`,
  modelResume: (runIdValue: string, turn: number, toolUseId: string) => `${runIdValue}-turn-${turn}-resume-${toolUseIdJobPart(toolUseId)}`,
  /** The reaper's n-th recovery of a turn whose jobs were all lost or dead (src/workers/run-reaper.ts). */
  modelRecovery: (runIdValue: string, turn: number, recovery: number) => `${runIdValue}-turn-${turn}-recover-${recovery}`,
  /** The n-th client resume of a failed run at its failed turn (POST /v1/runs/:id/resume, RunEngine.reopenFailedRun). */
  modelReopen: (runIdValue: string, turn: number, reopen: number) => `${runIdValue}-turn-${turn}-reopen-${reopen}`,
  tool: (runIdValue: string, toolUseId: string) => `${runIdValue}-tool-${toolUseIdJobPart(toolUseId)}`,
  /** One archive job per run, however often its end is reported: `archive-<runId>` (BullMQ refuses
   * ':' in custom ids, so not `archive:<runId>`). */
  archive: (runIdValue: string) => `archive-${runIdValue}`,
  /** One delivery per run event: `webhook-<runId>-ended-<n>` (n: the end's transition time in ms,
   * so an end reported twice is one delivery and the end of a resumed run is another), and
   * `webhook-<runId>-input-<tool_use id part>` per question. Also the delivery's id (its payload's
   * `id`, the buildfleet-webhook-id header). */
  webhookEnded: (runIdValue: string, endedAtMs: number) => `webhook-${runIdValue}-ended-${endedAtMs}`,
  webhookWaitingForInput: (runIdValue: string, toolUseId: string) => `webhook-${runIdValue}-input-${toolUseIdJobPart(toolUseId)}`,
};
