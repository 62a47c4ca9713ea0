// The run record as the API and workers see it, and the states a run moves through.
import { z } from 'zod';
import { PHASES } from '../domain/profile.js';
import { todoItem } from '../domain/tool-input-schemas.js';

export { NON_TERMINAL_STATUSES, TERMINAL_STATUSES, RUN_STATUSES, isTerminal, type RunStatus, type TerminalStatus } from '../domain/run-outcomes.js';
import type { RunStatus } from '../domain/run-outcomes.js';

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

/** A run's extended-thinking choice at submit: `{budgetTokens: N}` turns it on with that budget,
 * `{}` with the model's default budget, `{enabled: false}` turns a model default off. */
export const runThinkingSchema = z
  .strictObject({
    enabled: z.boolean().optional().describe('false: no thinking even where the model has a default budget'),
    budgetTokens: z
      .int()
      .min(1024)
      .max(1_000_000)
      .optional()
      .describe('Thinking budget in tokens, at least 1024 (the API minimum) and below the model maximum output; max_tokens is raised to fit it'),
  })
  .refine((thinking) => !(thinking.enabled === false && thinking.budgetTokens !== undefined), {
    message: 'budgetTokens cannot be combined with enabled: false',
  })
  .describe('Extended thinking for this run (models whose capabilities say thinking: true)');
export type RunThinking = z.infer<typeof runThinkingSchema>;

export const questionSchema = z.object({ toolUseId: z.string(), question: z.string(), turn: z.number() });
export type OpenQuestion = z.infer<typeof questionSchema>;

/** Counters the turn logic keeps so each kind of nudge stays bounded. */
export const countersSchema = z.object({
  endTurnNudges: z.number().default(0),
  pauseTurnsInRow: z.number().default(0),
  /** Truncations (max_tokens, context window) in a row; a clean answer resets it. */
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
  /** max_tokens of the run's next call: raised after a truncation, for the rest of the run. */
  maxTokens: number;
  /** How far a truncation may raise maxTokens (the model's maximum output unless configured lower). */
  maxTokensCeiling: number;
  /** Extended-thinking budget of every call; null = the run does not think. */
  thinkingBudgetTokens: number | null;
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
