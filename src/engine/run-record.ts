// The run record's encoding in its Redis hash, both ways. Reading back is validated: a record that
// does not decode is reported as StoredRunInvalid naming the field, never passed on half-read.
import { z } from 'zod';
import { AGENT_NAME, PHASE_NAME, SITE_BUILDER_AGENT } from '../domain/profile.js';
import { RUN_STATUSES } from '../domain/run-outcomes.js';
import { providerNameSchema } from '../domain/provider-declarations.js';
import { isQueueShard, MAX_QUEUE_SHARDS } from '../domain/queue-shards.js';
import { runBudgetSchema } from '../domain/run-budget.js';
import { EFFORT_LEVELS } from '../domain/model-catalog.js';
import { RUN_THINKING_MODES } from '../domain/resolve-run-model-settings.js';
import { countersSchema, questionSchema, runErrorSchema, runOptionsSchema, runWebhookSchema, todoState, usageSchema, type RunRecord } from './run-types.js';

export class StoredRunInvalid extends Error {
  readonly code = 'stored_run_invalid';
  constructor(
    readonly runId: string,
    readonly field: string,
    detail: string,
  ) {
    super(`The stored record of run ${runId} is invalid at "${field}": ${detail}`);
    this.name = 'StoredRunInvalid';
  }
}

const metaSchema = z.object({ title: z.string(), description: z.string() }).nullable();
// Built once: fromFields runs on every read of a run.
const storedErrorSchema = runErrorSchema.nullable();
const storedQuestionSchema = questionSchema.nullable();
const storedWebhookSchema = runWebhookSchema.nullable();
const traceContextSchema = z.record(z.string(), z.string());
// An agent's input is an object (compile-agent.ts refuses another schema); its fields are the agent's.
const runInputSchema = z.record(z.string(), z.unknown()).nullable();
const todosSchema = z.array(todoState);
const DEFAULT_COUNTERS = countersSchema.parse({});

/** Serialises a partial record into hash fields (JSON for structured values, '' for null). */
export function toFields(update: Partial<RunRecord>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(update)) {
    if (value === undefined) continue;
    if (value === null) fields[key] = '';
    else if (typeof value === 'string') fields[key] = value;
    else if (typeof value === 'number') fields[key] = String(value);
    else if (typeof value === 'boolean') fields[key] = value ? '1' : '0';
    else fields[key] = JSON.stringify(value);
  }
  return fields;
}

/** HGETALL's flat [field, value, …] reply (what a Lua script returns) as an object. */
export function pairsToFields(flat: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) fields[flat[index]!] = flat[index + 1]!;
  return fields;
}

/** Decodes a stored run hash; throws StoredRunInvalid on anything it cannot trust. */
export function fromFields(fields: Record<string, string>): RunRecord {
  const runId = fields.id ?? '(unknown)';
  const fail = (field: string, detail: string): never => {
    throw new StoredRunInvalid(runId, field, detail);
  };
  const text = (field: string): string => fields[field] ?? fail(field, 'missing');
  const nullableText = (field: string): string | null => fields[field] || null;
  const integer = (field: string, fallback?: number): number => {
    const raw = fields[field];
    if ((raw === undefined || raw === '') && fallback !== undefined) return fallback;
    const value = Number(raw);
    return Number.isInteger(value) && value >= 0 ? value : fail(field, `not a non-negative integer: ${JSON.stringify(raw)}`);
  };
  const json = <T>(field: string, schema: z.ZodType<T>, fallback?: T): T => {
    const raw = fields[field];
    if (raw === undefined || raw === '') return fallback !== undefined ? fallback : fail(field, 'missing');
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return fail(field, 'not JSON');
    }
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : fail(field, parsed.error.issues[0]?.message ?? 'invalid');
  };
  const phaseName = (field: string, fallback?: string): string => {
    const raw = fields[field];
    if ((raw === undefined || raw === '') && fallback !== undefined) return fallback;
    return PHASE_NAME.test(raw ?? '') ? (raw as string) : fail(field, `not a phase name: ${JSON.stringify(raw)}`);
  };
  const oneOf = <T extends string>(field: string, allowed: readonly T[], fallback?: T): T => {
    const raw = fields[field];
    if ((raw === undefined || raw === '') && fallback !== undefined) return fallback;
    return (allowed as readonly string[]).includes(raw ?? '') ? (raw as T) : fail(field, `not one of ${allowed.join(', ')}: ${JSON.stringify(raw)}`);
  };
  const maxTokens = integer('maxTokens');
  const thinking = fields.thinkingBudgetTokens;
  return {
    id: text('id'),
    tenant: text('tenant'),
    status: oneOf('status', RUN_STATUSES),
    phase: phaseName('phase', 'planning'),
    agent: ((agent) => (AGENT_NAME.test(agent) ? agent : fail('agent', `not an agent name: ${JSON.stringify(agent)}`)))(fields.agent || SITE_BUILDER_AGENT),
    turn: integer('turn', 0),
    prompt: text('prompt'),
    model: text('model'),
    provider: ((provider) =>
      providerNameSchema.safeParse(provider).success ? provider : fail('provider', `not a provider name: ${JSON.stringify(provider)}`))(text('provider')),
    queueShard: ((shard) => (isQueueShard(shard) ? shard : fail('queueShard', `not a queue shard (0–${MAX_QUEUE_SHARDS - 1}): ${shard}`)))(
      integer('queueShard'),
    ),
    maxTurns: integer('maxTurns'),
    maxTokens,
    maxTokensCeiling: integer('maxTokensCeiling'),
    thinking: oneOf('thinking', RUN_THINKING_MODES),
    thinkingBudgetTokens: thinking ? integer('thinkingBudgetTokens') : null,
    effort: fields.effort ? oneOf('effort', EFFORT_LEVELS) : null,
    thinkingDisplay: fields.thinkingDisplay ? oneOf('thinkingDisplay', ['summarized', 'omitted', 'updates'] as const) : null,
    options: json('options', runOptionsSchema, {}),
    createdAt: text('createdAt'),
    updatedAt: fields.updatedAt ?? '',
    traceId: nullableText('traceId'),
    traceContext: json('traceContext', traceContextSchema, {}),
    todos: json('todos', todosSchema, []),
    usage: json('usage', usageSchema),
    costMicroUsd: integer('costMicroUsd'),
    budget: json('budget', runBudgetSchema),
    result: nullableText('result'),
    error: json('error', storedErrorSchema, null),
    latestDeploy: nullableText('latestDeploy'),
    liveDeploy: nullableText('liveDeploy'),
    question: json('question', storedQuestionSchema, null),
    finishVerified: fields.finishVerified === '1',
    safeMode: fields.safeMode ? oneOf('safeMode', ['skip_writes'] as const) : null,
    pendingPhase: fields.pendingPhase ? phaseName('pendingPhase') : null,
    counters: json('counters', countersSchema, DEFAULT_COUNTERS),
    meta: json('meta', metaSchema, null),
    rerunOf: nullableText('rerunOf'),
    input: json('input', runInputSchema, null),
    webhook: json('webhook', storedWebhookSchema, null),
  };
}
