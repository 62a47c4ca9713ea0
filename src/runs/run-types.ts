// The run record as the API and workers see it, and the states a run moves through.
import { z } from 'zod';
import { PHASES } from '../agent/profile.js';
import { todoItem } from '../tools/input-schemas.js';

export const NON_TERMINAL_STATUSES = ['queued', 'running', 'waiting_for_input'] as const;
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'refused', 'cancelled'] as const;
export const RUN_STATUSES = [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

export function isTerminal(status: RunStatus): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

export const todoState = todoItem.extend({ done: z.boolean() });
export type TodoState = z.infer<typeof todoState>;

export const runErrorSchema = z.object({ code: z.string(), message: z.string() });
export type RunError = z.infer<typeof runErrorSchema>;

export const usageSchema = z.object({ input_tokens: z.number(), output_tokens: z.number() });
export type Usage = z.infer<typeof usageSchema>;

export const runOptionsSchema = z.strictObject({
  scenario: z
    .string()
    .regex(/^[a-z0-9_]{1,64}$/)
    .optional()
    .describe('Simulator scenario for this run (ignored by the real API)'),
  textRecovery: z.boolean().optional().describe('Recover tool calls written as text (default on)'),
  toolLayout: z.enum(['tiered', 'flat']).optional().describe('flat: all tools every turn (experiments)'),
  tokenBudget: z.int().positive().max(10_000_000).optional(),
});
export type RunOptions = z.infer<typeof runOptionsSchema>;

export const questionSchema = z.object({ toolUseId: z.string(), question: z.string(), turn: z.number() });
export type OpenQuestion = z.infer<typeof questionSchema>;

/** Counters the turn logic keeps so each kind of nudge stays bounded. */
export const countersSchema = z.object({
  endTurnNudges: z.number().default(0),
  pauseTurnsInRow: z.number().default(0),
  maxTokensContinuations: z.number().default(0),
  reemitRequests: z.number().default(0),
  driftReprompts: z.number().default(0),
});
export type RunCounters = z.infer<typeof countersSchema>;

export interface RunRecord {
  id: string;
  tenant: string;
  status: RunStatus;
  phase: (typeof PHASES)[number];
  turn: number;
  prompt: string;
  model: string;
  maxTurns: number;
  maxTokens: number;
  options: RunOptions;
  createdAt: string;
  updatedAt: string;
  traceId: string | null;
  traceContext: Record<string, string>;
  todos: TodoState[];
  usage: Usage;
  result: string | null;
  error: RunError | null;
  latestDeploy: string | null;
  liveDeploy: string | null;
  question: OpenQuestion | null;
  finishVerified: boolean;
  safeMode: 'skip_writes' | null;
  pendingPhase: (typeof PHASES)[number] | null;
  counters: RunCounters;
  meta: { title: string; description: string } | null;
}
