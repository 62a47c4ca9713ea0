// A `runs` row as read back from PostgreSQL, decoded and validated into the run as history shows
// it. node-postgres returns bigint columns as strings (int8 can exceed a JS number) and
// timestamptz as Date; both are checked and converted here.
import { z } from 'zod';
import { AGENT_NAME, PHASE_NAME } from '../domain/profile.js';
import { providerNameSchema } from '../domain/provider-declarations.js';
import { TERMINAL_STATUSES } from '../domain/run-outcomes.js';
import { runBudgetSchema } from '../domain/run-budget.js';
import { EFFORT_LEVELS, type EffortLevel } from '../domain/model-catalog.js';
import { RUN_THINKING_MODES, type RunThinkingMode } from '../domain/resolve-run-model-settings.js';
import { archivedFileSchema, archivedMetaSchema, archivedQuestionSchema, archivedTodoSchema, type ArchivedRun } from './run-archive.js';
import { StoredHistoryRowInvalid } from './history-errors.js';

/** A bigint column as node-postgres returns it (a string), checked and made a number. */
export const int8 = z
  .union([z.string().regex(/^\d+$/), z.number().int().nonnegative()])
  .transform((value) => Number(value))
  .refine((value) => Number.isSafeInteger(value), 'beyond a safe integer');

/** The usage-by-class and cost columns a `runs` and a `turns` row both hold (read by usageOfRow). */
export const usageColumns = {
  input_tokens: int8,
  cache_write_5m_input_tokens: int8,
  cache_write_1h_input_tokens: int8,
  cache_read_input_tokens: int8,
  output_tokens: int8,
  cost_micro_usd: int8,
};
const timestamp = z.date().transform((date) => date.toISOString());

const storedRunRowSchema = z.object({
  id: z.string(),
  tenant: z.string(),
  status: z.enum(TERMINAL_STATUSES),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  model: z.string(),
  // NOT NULL: a row archived before the column existed was given `anthropic`, the provider every run
  // was made with then (migration 1767484800000).
  provider: providerNameSchema,
  prompt: z.string(),
  // NOT NULL: a row archived before the column existed was given `site-builder`, the only agent then.
  agent: z.string().regex(AGENT_NAME),
  phase: z.string().regex(PHASE_NAME),
  turns: z.int().nonnegative(),
  ...usageColumns,
  budget: runBudgetSchema,
  result: z.string().nullable(),
  latest_deploy: z.string().nullable(),
  live_deploy: z.string().nullable(),
  trace_id: z.string().nullable(),
  // Required here though the columns are nullable: a row archived before they existed has no run
  // view to give (migration 1767312000000), and says so by name rather than with made-up values.
  max_tokens: z.int().positive(),
  thinking_budget_tokens: z.int().positive().nullable(),
  thinking: z.enum(RUN_THINKING_MODES as [RunThinkingMode, ...RunThinkingMode[]]),
  effort: z.enum(EFFORT_LEVELS as [EffortLevel, ...EffortLevel[]]).nullable(),
  thinking_display: z.enum(['summarized', 'omitted', 'updates']).nullable(),
  todos: z.array(archivedTodoSchema),
  files: z.array(archivedFileSchema),
  question: archivedQuestionSchema.nullable(),
  options_token_budget: z.int().positive().nullable(),
  meta: archivedMetaSchema.nullable(),
  rerun_of: z.string().nullable(),
  // Null in a row archived before the column existed (migration 1767744000000): a builder's run.
  input: z.record(z.string(), z.unknown()).nullable(),
  created_at: timestamp,
  ended_at: timestamp,
});

/** The tokens by class a decoded `runs` or `turns` row holds, as the usage of the API and engine. */
export function usageOfRow(stored: {
  input_tokens: number;
  cache_write_5m_input_tokens: number;
  cache_write_1h_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}): ArchivedRun['usage'] {
  return {
    input_tokens: stored.input_tokens,
    cache_write_5m_input_tokens: stored.cache_write_5m_input_tokens,
    cache_write_1h_input_tokens: stored.cache_write_1h_input_tokens,
    cache_read_input_tokens: stored.cache_read_input_tokens,
    output_tokens: stored.output_tokens,
  };
}

/** The columns decodeRunRow reads, for SELECT lists. */
export const RUN_ROW_COLUMNS = Object.keys(storedRunRowSchema.shape).join(', ');

/** Decodes one `runs` row; throws StoredHistoryRowInvalid naming the column it cannot trust. */
export function decodeRunRow(row: Record<string, unknown>): ArchivedRun {
  const parsed = storedRunRowSchema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredHistoryRowInvalid('runs', String(row.id ?? '(unknown)'), String(issue?.path[0] ?? '(row)'), issue?.message ?? 'invalid');
  }
  const stored = parsed.data;
  // RunRecord.error is a code with its message: one without the other is not a run's error.
  if ((stored.error_code === null) !== (stored.error_message === null)) {
    throw new StoredHistoryRowInvalid(
      'runs',
      stored.id,
      stored.error_code === null ? 'error_code' : 'error_message',
      'error_code and error_message must be both set or both null',
    );
  }
  return {
    id: stored.id,
    tenant: stored.tenant,
    status: stored.status,
    errorCode: stored.error_code,
    errorMessage: stored.error_message,
    model: stored.model,
    provider: stored.provider,
    prompt: stored.prompt,
    agent: stored.agent,
    phase: stored.phase,
    turns: stored.turns,
    usage: usageOfRow(stored),
    costMicroUsd: stored.cost_micro_usd,
    budget: stored.budget,
    result: stored.result,
    latestDeploy: stored.latest_deploy,
    liveDeploy: stored.live_deploy,
    traceId: stored.trace_id,
    maxTokens: stored.max_tokens,
    thinking: stored.thinking,
    thinkingBudgetTokens: stored.thinking_budget_tokens,
    effort: stored.effort,
    thinkingDisplay: stored.thinking_display,
    todos: stored.todos,
    files: stored.files,
    question: stored.question,
    optionsTokenBudget: stored.options_token_budget,
    meta: stored.meta,
    rerunOf: stored.rerun_of,
    input: stored.input,
    createdAt: stored.created_at,
    endedAt: stored.ended_at,
  };
}
