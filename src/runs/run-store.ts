// The run store: every piece of a run's state lives in Redis under keys.ts, so any worker on any
// machine can pick up any turn. Writes that must happen once (a turn's input and output, a tool's
// result) go through the Lua scripts in run-scripts.ts.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Phase } from '../agent/profile.js';
import type { KeySpace } from './keys.js';
import { redactText, redactValue } from '../telemetry/redact-secrets.js';
import { defineRunScripts, type RunScripts } from './run-scripts.js';
import {
  countersSchema,
  isTerminal,
  questionSchema,
  runErrorSchema,
  runOptionsSchema,
  todoState,
  usageSchema,
  type RunError,
  type RunOptions,
  type RunRecord,
  type RunStatus,
  type TerminalStatus,
  type TodoState,
  type Usage,
} from './run-types.js';

export interface RunEvent {
  run_id: string;
  step: number;
  event: string;
  [field: string]: unknown;
}

export interface StoredEvent extends RunEvent {
  id: string;
  at: string;
}

export interface TrailEntry {
  tool: string;
  ok: boolean;
  phase: Phase;
  turn: number;
  toolUseId: string;
  detail?: string;
}

/** A tool_use's answer as kept in the ledger: the tool_result content sent to the model. */
export interface StoredToolResult {
  content: string;
  is_error: boolean;
  /** The tool's output before wrapping, for the API and the finish gate; absent on errors. */
  output?: unknown;
  error_code?: string;
}

export interface CreateRunInput {
  tenant: string;
  prompt: string;
  model: string;
  maxTurns: number;
  maxTokens: number;
  /** Default: maxTokens (never raised). */
  maxTokensCeiling?: number;
  /** Default: null (no thinking). */
  thinkingBudgetTokens?: number | null;
  options: RunOptions;
  traceId?: string | null;
  traceContext?: Record<string, string>;
  runId?: string;
}

const jsonOr = <T>(schema: z.ZodType<T>, raw: string | undefined, fallback: T): T => {
  if (raw === undefined || raw === '') return fallback;
  const parsed = schema.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : fallback;
};

/** Serialises a partial record into hash fields (JSON for structured values). */
function toFields(update: Partial<RunRecord>): Record<string, string> {
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

function fromFields(fields: Record<string, string>): RunRecord {
  return {
    id: fields.id ?? '',
    tenant: fields.tenant ?? '',
    status: (fields.status ?? 'queued') as RunStatus,
    phase: (fields.phase ?? 'planning') as Phase,
    turn: Number(fields.turn ?? 0),
    prompt: fields.prompt ?? '',
    model: fields.model ?? '',
    maxTurns: Number(fields.maxTurns ?? 0),
    maxTokens: Number(fields.maxTokens ?? 0),
    // Records written before the ceiling was stored could not be raised past their maxTokens.
    maxTokensCeiling: Number(fields.maxTokensCeiling || fields.maxTokens || 0),
    thinkingBudgetTokens: fields.thinkingBudgetTokens ? Number(fields.thinkingBudgetTokens) : null,
    options: jsonOr(runOptionsSchema, fields.options, {}),
    createdAt: fields.createdAt ?? '',
    updatedAt: fields.updatedAt ?? '',
    traceId: fields.traceId || null,
    traceContext: jsonOr(z.record(z.string(), z.string()), fields.traceContext, {}),
    todos: jsonOr(z.array(todoState), fields.todos, []),
    usage: jsonOr(usageSchema, fields.usage, { input_tokens: 0, output_tokens: 0 }),
    result: fields.result || null,
    error: jsonOr(runErrorSchema.nullable(), fields.error, null),
    latestDeploy: fields.latestDeploy || null,
    liveDeploy: fields.liveDeploy || null,
    question: jsonOr(questionSchema.nullable(), fields.question, null),
    finishVerified: fields.finishVerified === '1',
    safeMode: fields.safeMode === 'skip_writes' ? 'skip_writes' : null,
    pendingPhase: (fields.pendingPhase || null) as Phase | null,
    counters: jsonOr(countersSchema, fields.counters, countersSchema.parse({})),
    meta: jsonOr(z.object({ title: z.string(), description: z.string() }).nullable(), fields.meta, null),
  };
}

export function newRunId(): string {
  return `run_${randomUUID().replaceAll('-', '')}`;
}

/** Called after every event is stored: the logger and the active span take their copy here. */
export type RunEventObserver = (event: RunEvent) => void;

export class RunStore {
  readonly scripts: RunScripts;
  private readonly observers: RunEventObserver[] = [];

  observeEvents(observer: RunEventObserver): void {
    this.observers.push(observer);
  }

  constructor(
    readonly redis: Redis,
    readonly keys: KeySpace,
  ) {
    this.scripts = defineRunScripts(redis);
  }

  /** Creates the run record; returns it. */
  async createRun(input: CreateRunInput): Promise<RunRecord> {
    const id = input.runId ?? newRunId();
    const now = new Date().toISOString();
    const record: RunRecord = {
      id,
      tenant: input.tenant,
      status: 'queued',
      phase: 'planning',
      turn: 0,
      prompt: input.prompt,
      model: input.model,
      maxTurns: input.maxTurns,
      maxTokens: input.maxTokens,
      maxTokensCeiling: Math.max(input.maxTokensCeiling ?? input.maxTokens, input.maxTokens),
      thinkingBudgetTokens: input.thinkingBudgetTokens ?? null,
      options: input.options,
      createdAt: now,
      updatedAt: now,
      traceId: input.traceId ?? null,
      traceContext: input.traceContext ?? {},
      todos: [],
      usage: { input_tokens: 0, output_tokens: 0 },
      result: null,
      error: null,
      latestDeploy: null,
      liveDeploy: null,
      question: null,
      finishVerified: false,
      safeMode: null,
      pendingPhase: null,
      counters: countersSchema.parse({}),
      meta: null,
    };
    await this.redis
      .multi()
      .hset(this.keys.run(id), toFields(record))
      .zadd(this.keys.runsByTenant(input.tenant), Date.now(), id)
      .exec();
    return record;
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const fields = await this.redis.hgetall(this.keys.run(runId));
    if (!fields.id) return null;
    return fromFields(fields);
  }

  /** Updates fields of a run that is not terminal; returns false when the run already ended. */
  async updateRun(runId: string, update: Partial<RunRecord>): Promise<boolean> {
    const fields = toFields({ ...update, updatedAt: new Date().toISOString() });
    const result = await this.scripts.updateIfActive(this.keys.run(runId), JSON.stringify(fields));
    return result === 1;
  }

  /** Moves a run to a terminal state once; later calls are no-ops returning false. */
  async finishRun(
    runId: string,
    status: TerminalStatus,
    outcome: { result?: string | null; error?: RunError | null },
  ): Promise<boolean> {
    const fields = toFields({
      status,
      result: outcome.result ?? null,
      error: outcome.error ? { code: outcome.error.code, message: redactText(outcome.error.message) } : null,
      question: null,
      updatedAt: new Date().toISOString(),
    });
    const changed = await this.scripts.updateIfActive(this.keys.run(runId), JSON.stringify(fields));
    if (changed !== 1) return false;
    // Frees the run's slot under its tenant's concurrent-run cap (src/api/limits/admit-run.ts).
    // Not inside updateIfActive: the tenant's set and the run hash are in different Cluster slots.
    // Only the call that made the transition gets here, and SREM is idempotent; a crash in
    // between leaves a member that admission prunes when the cap is reached.
    const tenant = await this.redis.hget(this.keys.run(runId), 'tenant');
    if (tenant) await this.redis.srem(this.keys.activeRuns(tenant), runId);
    return true;
  }

  async addUsage(runId: string, usage: Usage): Promise<Usage> {
    const key = this.keys.run(runId);
    const raw = await this.scripts.addUsage(key, usage.input_tokens, usage.output_tokens);
    return usageSchema.parse(JSON.parse(String(raw)));
  }

  async setTodos(runId: string, todos: TodoState[]): Promise<void> {
    await this.redis.hset(this.keys.run(runId), 'todos', JSON.stringify(todos));
  }

  isTerminalStatus(status: RunStatus): boolean {
    return isTerminal(status);
  }

  // ---- events -------------------------------------------------------------------------------

  /** Appends a trace line to the run's event stream; returns the stream id. */
  async appendEvent(event: RunEvent): Promise<string> {
    // Secrets never reach the stream, even inside an error message or a URL.
    const safe = redactValue(event);
    const id = await this.redis.xadd(
      this.keys.events(event.run_id),
      'MAXLEN',
      '~',
      '10000',
      '*',
      'data',
      JSON.stringify({ ...safe, at: new Date().toISOString() }),
    );
    for (const observer of this.observers) observer(safe);
    return id ?? '';
  }

  async readEvents(runId: string, afterId = '-', count = 1000): Promise<StoredEvent[]> {
    const start = afterId === '-' ? '-' : `(${afterId}`;
    const entries = await this.redis.xrange(this.keys.events(runId), start, '+', 'COUNT', count);
    return entries.map(([id, fields]) => ({ id, ...JSON.parse(fields[1] ?? '{}') }) as StoredEvent);
  }

  // ---- transcript ---------------------------------------------------------------------------

  async getMessages(runId: string): Promise<unknown[]> {
    const raw = await this.redis.lrange(this.keys.messages(runId), 0, -1);
    return raw.map((entry) => JSON.parse(entry) as unknown);
  }

  // ---- tool ledger --------------------------------------------------------------------------

  async getToolResult(runId: string, toolUseId: string): Promise<string | null> {
    return this.redis.get(this.keys.toolResult(runId, toolUseId));
  }

  /** Stores a tool's result and its trail entry together, once; returns what is stored. */
  async recordToolResult(runId: string, result: StoredToolResult, trail: TrailEntry): Promise<StoredToolResult> {
    const stored = await this.scripts.recordToolResult(
      this.keys.toolResult(runId, trail.toolUseId),
      this.keys.trail(runId),
      JSON.stringify(redactValue(result)),
      JSON.stringify(trail),
    );
    return JSON.parse(stored) as StoredToolResult;
  }

  async getStoredToolResult(runId: string, toolUseId: string): Promise<StoredToolResult | null> {
    const raw = await this.getToolResult(runId, toolUseId);
    return raw === null ? null : (JSON.parse(raw) as StoredToolResult);
  }

  // ---- trail (what the tools did, for the finish gate) --------------------------------------

  async appendTrail(runId: string, entry: TrailEntry): Promise<void> {
    await this.redis.rpush(this.keys.trail(runId), JSON.stringify(entry));
  }

  async getTrail(runId: string): Promise<TrailEntry[]> {
    const raw = await this.redis.lrange(this.keys.trail(runId), 0, -1);
    return raw.map((entry) => JSON.parse(entry) as TrailEntry);
  }

  // ---- workspace and deployments ------------------------------------------------------------

  async writeFile(runId: string, path: string, content: string): Promise<void> {
    await this.redis.hset(this.keys.files(runId), path, content);
  }

  async readFile(runId: string, path: string): Promise<string | null> {
    return this.redis.hget(this.keys.files(runId), path);
  }

  async listFiles(runId: string): Promise<Array<{ path: string; bytes: number }>> {
    const files = await this.redis.hgetall(this.keys.files(runId));
    return Object.entries(files)
      .map(([path, content]) => ({ path, bytes: Buffer.byteLength(content) }))
      .sort((left, right) => left.path.localeCompare(right.path));
  }

  /** Snapshots the workspace into an immutable deployment, once per deploy id. Returns the
   * deployment's file paths and whether this call created it. */
  async createDeployment(runId: string, deployId: string): Promise<{ created: boolean; files: string[] }> {
    const result = (await this.scripts.snapshotDeployment(
      this.keys.files(runId),
      this.keys.deployment(runId, deployId),
      this.keys.deployments(runId),
      this.keys.run(runId),
      deployId,
      new Date().toISOString(),
    )) as [number, string[]];
    return { created: result[0] === 1, files: result[1] };
  }

  async getDeploymentFile(runId: string, deployId: string, path: string): Promise<string | null> {
    return this.redis.hget(this.keys.deployment(runId, deployId), path);
  }

  async deploymentExists(runId: string, deployId: string): Promise<boolean> {
    return (await this.redis.zscore(this.keys.deployments(runId), deployId)) !== null;
  }

  async listDeploymentFiles(runId: string, deployId: string): Promise<string[]> {
    return this.redis.hkeys(this.keys.deployment(runId, deployId));
  }

  async countDeployments(runId: string): Promise<number> {
    return this.redis.zcard(this.keys.deployments(runId));
  }
}
