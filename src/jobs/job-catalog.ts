// The typed job catalog: each queue's job data is a zod schema, checked when a job is enqueued
// and again when a worker takes it, so a malformed job fails loudly instead of corrupting a run.
import { z } from 'zod';
import { PARSE_MODES } from '../domain/parse-modes.js';

export const QUEUE_NAMES = { model: 'model', tool: 'tool' } as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

const runId = z.string().regex(/^run_[a-zA-Z0-9]{8,64}$/);
const traceCarrier = z.record(z.string(), z.string()).default({});

export const modelJobSchema = z.strictObject({
  runId,
  turn: z.int().min(0).max(10_000),
  trace: traceCarrier,
});
export type ModelJobData = z.infer<typeof modelJobSchema>;

export const toolJobSchema = z.strictObject({
  runId,
  turn: z.int().min(0).max(10_000),
  toolUseId: z.string().min(1).max(128),
  name: z.string().min(1).max(64),
  input: z.unknown(),
  parseMode: z.enum(PARSE_MODES),
  trace: traceCarrier,
});
export type ToolJobData = z.infer<typeof toolJobSchema>;

/** Deterministic job ids: enqueueing the same turn or tool call twice is a no-op in BullMQ.
 * (BullMQ refuses ':' in custom ids, hence the dashes.) */
export const jobIds = {
  modelTurn: (runIdValue: string, turn: number) => `${runIdValue}-turn-${turn}`,
  modelResume: (runIdValue: string, turn: number, toolUseId: string) => `${runIdValue}-turn-${turn}-resume-${toolUseId}`,
  tool: (runIdValue: string, toolUseId: string) => `${runIdValue}-tool-${toolUseId}`,
};
