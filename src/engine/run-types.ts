// The run record as the API and workers see it, and the states a run moves through.
import { z } from 'zod';
import type { Phase } from '../domain/profile.js';
import { todoItem } from '../domain/tool-input-schemas.js';
import { runPrioritySchema } from '../domain/run-priority.js';
import { usageByClassSchema, type UsageByClass } from '../domain/usage.js';
import { MAX_POLICY_USD, MAX_TOKEN_BUDGET } from '../domain/tenant-policy.js';
import type { RunBudget } from '../domain/run-budget.js';
import { EFFORT_LEVELS, type EffortLevel, type ThinkingDisplay } from '../domain/model-catalog.js';
import type { RunThinkingMode } from '../domain/resolve-run-model-settings.js';

export { NON_TERMINAL_STATUSES, TERMINAL_STATUSES, RUN_STATUSES, isTerminal, type RunStatus, type TerminalStatus } from '../domain/run-outcomes.js';
import type { RunStatus } from '../domain/run-outcomes.js';

export const todoState = todoItem.extend({ done: z.boolean() });
export type TodoState = z.infer<typeof todoState>;

export const runErrorSchema = z.object({ code: z.string(), message: z.string() });
export type RunError = z.infer<typeof runErrorSchema>;

/** Tokens by billing class (src/domain/usage.ts). */
export const usageSchema = usageByClassSchema;
export type Usage = UsageByClass;

export const runOptionsSchema = z.strictObject({
  scenario: z
    .string()
    .regex(/^[a-z0-9_]{1,64}$/)
    .optional()
    .describe('Simulator scenario for this run (ignored by the real API)'),
  textRecovery: z.boolean().optional().describe('Recover tool calls written as text (default on)'),
  toolLayout: z.enum(['tiered', 'flat']).optional().describe('flat: all tools every turn (experiments)'),
  tokenBudget: z
    .int()
    .positive()
    .max(MAX_TOKEN_BUDGET)
    .optional()
    .describe(
      'Tokens the run may use, every class counted (uncached input, cache writes and ' +
        'reads, output); default and maximum from the tenant’s policy (docs/costs.md, Budgets)',
    ),
  budgetUsd: z
    .number()
    .min(0.000001)
    .max(MAX_POLICY_USD)
    .optional()
    .describe(
      'USD the run’s model calls may cost; each call is checked before it is made, ' +
        'at its worst case. Default and maximum from the tenant’s policy; lowered to ' +
        'what the tenant may still spend today and this month (docs/costs.md, Budgets)',
    ),
  priority: runPrioritySchema
    .optional()
    .describe('interactive (default): admitted first by the fleet’s model-call limiter; batch: only uses capacity above its headroom (docs/admission.md)'),
});
export type RunOptions = z.infer<typeof runOptionsSchema>;

/** A run's thinking choice at submit (docs/models.md, "Thinking, effort and display"):
 * `{budgetTokens: N}` manual thinking with that budget, `{enabled: true}` adaptive thinking where
 * the model has it (else manual with the default budget), `{enabled: false}` off (or the model's
 * lowest setting), `{effort}` the effort of every call. */
export const runThinkingSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .optional()
      .describe(
        'true: think (adaptive where the model has it, else with the default budget); false: do not think ' +
          '— on a model that thinks by default its way of turning it off (`between_tools` on Claude Sonnet ' +
          '5.5), refused where it always thinks (`thinking_always_on`). Left out: the model’s own default',
      ),
    budgetTokens: z
      .int()
      .min(1024)
      .max(1_000_000)
      .optional()
      .describe(
        'Manual thinking budget in tokens, at least 1024 (the API minimum) and below ' +
          'the model maximum output; max_tokens is raised to fit it. Refused on models ' +
          'that only think adaptively (`thinking_budget_not_supported`: set `effort` instead)',
      ),
    effort: z
      .enum(EFFORT_LEVELS as [EffortLevel, ...EffortLevel[]])
      .optional()
      .describe(
        '`output_config.effort` of every call: low, medium, high, xhigh or max, among ' +
          'the levels the model takes (`effort_not_supported`). Default: the tenant ' +
          'policy’s `defaultEffort` where the model takes it, else the model’s own default',
      ),
  })
  .refine((thinking) => !(thinking.enabled === false && thinking.budgetTokens !== undefined), {
    message: 'budgetTokens cannot be combined with enabled: false',
  })
  .describe('Thinking and effort for this run, within what its model allows (docs/models.md)');
export type RunThinking = z.infer<typeof runThinkingSchema>;

/** Where a run's webhook deliveries go (docs/webhooks.md): the URL as the client gave it, checked
 * against the webhook URL policy at submit and again at every delivery. */
export const runWebhookSchema = z.strictObject({ url: z.string().min(1).max(2048) });
export type RunWebhook = z.infer<typeof runWebhookSchema>;

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
  /** Answers with tool calls after the finish gate passed, each refused and answered with a
   * renewed request for the summary (src/agent/stop-reason-handler.ts). */
  summaryReprompts: z.number().default(0),
});
export type RunCounters = z.infer<typeof countersSchema>;

export interface RunRecord {
  id: string;
  tenant: string;
  status: RunStatus;
  phase: Phase;
  /** The agent the run was created for (src/agents); runs from before agents are the site builder's. */
  agent: string;
  turn: number;
  prompt: string;
  model: string;
  /** The provider every call of the run goes through (src/providers/, docs/providers.md). */
  provider: string;
  /** The queue shard every job of the run goes to (src/domain/queue-shards.ts), chosen when it was
   * created. */
  queueShard: number;
  maxTurns: number;
  /** max_tokens of the run's next call: raised after a truncation, for the rest of the run. */
  maxTokens: number;
  /** How far a truncation may raise maxTokens (the model's maximum output unless configured lower). */
  maxTokensCeiling: number;
  /** How the run thinks, decided at submit (domain/resolve-run-model-settings.ts). */
  thinking: RunThinkingMode;
  /** Manual thinking budget of every call; null unless `thinking` is `manual`. */
  thinkingBudgetTokens: number | null;
  /** `output_config.effort` of every call; null = not sent (the model's default). */
  effort: EffortLevel | null;
  /** The thinking display the run asks for or gets by default; null when it does not think up front. */
  thinkingDisplay: ThinkingDisplay | null;
  options: RunOptions;
  createdAt: string;
  updatedAt: string;
  traceId: string | null;
  traceContext: Record<string, string>;
  todos: TodoState[];
  usage: Usage;
  /** What the run's model calls cost, in whole micro-dollars (src/domain/usage-cost.ts). */
  costMicroUsd: number;
  /** The run's budgets, chosen at creation (src/domain/run-budget.ts). */
  budget: RunBudget;
  result: string | null;
  error: RunError | null;
  latestDeploy: string | null;
  liveDeploy: string | null;
  question: OpenQuestion | null;
  finishVerified: boolean;
  safeMode: 'skip_writes' | null;
  pendingPhase: Phase | null;
  counters: RunCounters;
  meta: { title: string; description: string } | null;
  /** The run this one reruns (POST /v1/runs/:id/rerun), or null. */
  rerunOf: string | null;
  /** The agent's input as its schema accepted it (POST /v1/runs `input`, or `{prompt}`): what a rerun
   * starts from. Null for a run created before inputs were kept, or by a caller that gave none. */
  input: Record<string, unknown> | null;
  /** Where the fleet posts the run's end and its questions (docs/webhooks.md), or null. */
  webhook: RunWebhook | null;
}
