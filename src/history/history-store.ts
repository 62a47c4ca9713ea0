// Run history in PostgreSQL: finished runs archived whole and read back validated. Hot state stays
// in Redis (the run engine); this store only ever receives runs that ended.
import type pg from 'pg';
import { z } from 'zod';
import { runArchiveSchema, type ArchivedEvent, type ArchivedRun, type ArchivedToolCall, type ArchivedTurn, type RunArchive } from './run-archive.js';
import { RunArchiveInvalid, StoredHistoryRowInvalid } from './history-errors.js';
import { encodeHistoryCursor } from './history-cursor.js';
import { decodeRunRow, RUN_ROW_COLUMNS } from './stored-run-row.js';
import { decodeEventRow, EVENT_ROW_COLUMNS } from './stored-event-row.js';
import {
  decodeToolCallRow,
  decodeTranscriptRow,
  decodeTurnRow,
  TOOL_CALL_ROW_COLUMNS,
  TRANSCRIPT_ROW_COLUMNS,
  TURN_ROW_COLUMNS,
} from './stored-payload-rows.js';
import { listRunsQuery, spendByDayQuery, type ListRunsFilter, type SpendByDayFilter } from './history-queries.js';
import { readHistoryOverview, type HistoryOverview } from './history-overview.js';
import type { OverviewFilter } from './overview-queries.js';

export interface RunPage {
  runs: ArchivedRun[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface DaySpend {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  costMicroUsd: number;
  runs: number;
}

const spendRowSchema = z.object({
  day: z.iso.date(),
  cost_micro_usd: z.string().regex(/^\d+$/).transform(Number),
  runs: z.string().regex(/^\d+$/).transform(Number),
});

/** Rows of one child table as JSON, expanded server-side by jsonb_to_recordset: one statement
 * (one round trip) per table however many turns, calls or events a run had. */
const INSERT_TURNS = `
  INSERT INTO turns (run_id, step, stop_reason, input_tokens, cache_write_5m_input_tokens, cache_write_1h_input_tokens,
    cache_read_input_tokens, output_tokens, cost_micro_usd, model_duration_ms, turn_duration_ms, request)
  SELECT $1, step, stop_reason, input_tokens, cache_write_5m_input_tokens, cache_write_1h_input_tokens,
    cache_read_input_tokens, output_tokens, cost_micro_usd, model_duration_ms, turn_duration_ms, request
  FROM jsonb_to_recordset($2::jsonb) AS row (step integer, stop_reason text, input_tokens bigint,
    cache_write_5m_input_tokens bigint, cache_write_1h_input_tokens bigint, cache_read_input_tokens bigint,
    output_tokens bigint, cost_micro_usd bigint, model_duration_ms integer, turn_duration_ms integer, request jsonb)
  ON CONFLICT (run_id, step) DO NOTHING`;
const INSERT_TOOL_CALLS = `
  INSERT INTO tool_calls (run_id, tool_use_id, step, tool, input, result, status, error_code, duration_ms)
  SELECT $1, tool_use_id, step, tool, input, result, status, error_code, duration_ms
  FROM jsonb_to_recordset($2::jsonb) AS row (tool_use_id text, step integer, tool text, input jsonb, result jsonb,
    status text, error_code text, duration_ms integer)
  ON CONFLICT (run_id, tool_use_id) DO NOTHING`;
const INSERT_EVENTS = `
  INSERT INTO events (run_id, stream_id, position, step, event, at, data)
  SELECT $1, stream_id, position, step, event, at, data
  FROM jsonb_to_recordset($2::jsonb) AS row (stream_id text, position integer, step integer, event text, at timestamptz, data jsonb)
  ON CONFLICT (run_id, stream_id) DO NOTHING`;

export class HistoryStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Writes one finished run's whole record in one transaction. Idempotent: the run row is
   * inserted ON CONFLICT DO NOTHING, and when it already existed (archived before, or by a
   * concurrent call that committed first — its insert waits on that one's row lock) nothing else is
   * written either. A row of an earlier end of the same run (it was resumed since) is replaced. Returns whether this call archived the run.
   */
  async archiveRun(input: RunArchive): Promise<{ archived: boolean }> {
    const parsed = runArchiveSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const runId = typeof (input as { run?: { id?: unknown } })?.run?.id === 'string' ? (input as RunArchive).run.id : '(unknown)';
      throw new RunArchiveInvalid(runId, `${issue?.path.join('.') || '(archive)'}: ${issue?.message ?? 'invalid'}`);
    }
    const { run, turns, toolCalls, events, messages } = parsed.data;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // A run resumed after its archive (POST /v1/runs/:id/resume) ends again, later: the history of
      // its earlier end is replaced (the cascade takes its turns, calls, events and transcript), so
      // the row always holds the run's last end. The same end archived twice is still written once.
      await client.query('DELETE FROM runs WHERE id = $1 AND ended_at < $2', [run.id, run.endedAt]);
      const inserted = await client.query(
        `INSERT INTO runs (id, tenant, status, error_code, error_message, model, prompt, phase, turns,
           input_tokens, cache_write_5m_input_tokens, cache_write_1h_input_tokens, cache_read_input_tokens, output_tokens,
           cost_micro_usd, budget, result, latest_deploy, live_deploy, trace_id, created_at, ended_at,
           max_tokens, thinking_budget_tokens, todos, files, question, options_token_budget, meta, rerun_of, provider,
           thinking, effort, thinking_display, agent, input)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
           $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          run.id,
          run.tenant,
          run.status,
          run.errorCode,
          run.errorMessage,
          run.model,
          run.prompt,
          run.phase,
          run.turns,
          run.usage.input_tokens,
          run.usage.cache_write_5m_input_tokens,
          run.usage.cache_write_1h_input_tokens,
          run.usage.cache_read_input_tokens,
          run.usage.output_tokens,
          run.costMicroUsd,
          JSON.stringify(run.budget),
          run.result,
          run.latestDeploy,
          run.liveDeploy,
          run.traceId,
          run.createdAt,
          run.endedAt,
          run.maxTokens,
          run.thinkingBudgetTokens,
          JSON.stringify(run.todos),
          JSON.stringify(run.files),
          run.question === null ? null : JSON.stringify(run.question),
          run.optionsTokenBudget,
          run.meta === null ? null : JSON.stringify(run.meta),
          run.rerunOf,
          run.provider,
          run.thinking,
          run.effort,
          run.thinkingDisplay,
          run.agent,
          run.input === null ? null : JSON.stringify(run.input),
        ],
      );
      if (inserted.rowCount === 0) {
        await client.query('ROLLBACK');
        return { archived: false };
      }
      const turnRows = turns.map((turn) => ({
        step: turn.step,
        stop_reason: turn.stopReason,
        ...turn.usage,
        cost_micro_usd: turn.costMicroUsd,
        model_duration_ms: turn.modelDurationMs,
        turn_duration_ms: turn.turnDurationMs,
        request: turn.request,
      }));
      const toolCallRows = toolCalls.map((call) => ({
        tool_use_id: call.toolUseId,
        step: call.step,
        tool: call.tool,
        // jsonb_to_recordset maps a missing key to SQL NULL; the input column wants JSON null.
        input: call.input ?? null,
        result: call.result,
        status: call.status,
        error_code: call.errorCode,
        duration_ms: call.durationMs,
      }));
      const eventRows = events.map((event, position) => ({
        stream_id: event.streamId,
        position,
        step: event.step,
        event: event.event,
        at: event.at,
        data: event.data,
      }));
      if (turnRows.length > 0) await client.query(INSERT_TURNS, [run.id, JSON.stringify(turnRows)]);
      if (toolCallRows.length > 0) await client.query(INSERT_TOOL_CALLS, [run.id, JSON.stringify(toolCallRows)]);
      if (eventRows.length > 0) await client.query(INSERT_EVENTS, [run.id, JSON.stringify(eventRows)]);
      await client.query('INSERT INTO transcripts (run_id, messages) VALUES ($1, $2::jsonb) ON CONFLICT (run_id) DO NOTHING', [
        run.id,
        JSON.stringify(messages),
      ]);
      await client.query('COMMIT');
      return { archived: true };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The archived run, or null. With `tenant`, another tenant's run is null too (not a leak of its
   * existence). */
  async getRun(id: string, tenant?: string): Promise<ArchivedRun | null> {
    const values: unknown[] = [id];
    let text = `SELECT ${RUN_ROW_COLUMNS} FROM runs WHERE id = $1`;
    if (tenant !== undefined) {
      values.push(tenant);
      text += ' AND tenant = $2';
    }
    const result = await this.pool.query(text, values);
    const row = result.rows[0] as Record<string, unknown> | undefined;
    return row ? decodeRunRow(row) : null;
  }

  /** Archived runs, newest first, filtered; a page of at most `limit` with a keyset cursor. */
  async listRuns(filter: ListRunsFilter): Promise<RunPage> {
    const query = listRunsQuery(filter);
    const result = await this.pool.query(query.text, query.values);
    const rows = result.rows as Array<Record<string, unknown>>;
    const runs = rows.slice(0, filter.limit).map(decodeRunRow);
    const last = runs.at(-1);
    const nextCursor = rows.length > filter.limit && last ? encodeHistoryCursor({ createdAt: last.createdAt, id: last.id }) : null;
    return { runs, nextCursor };
  }

  /**
   * Up to `limit` events of an archived run after the stream id `afterId` ('-': from the start), in
   * stream order: what RunEngine.readEvents answered while the run was in Redis. Like XRANGE with an
   * exclusive start, `afterId` need not be an event of the run: ids compare as (ms, sequence)
   * numbers (numeric: both halves are unsigned 64-bit). Served by the primary key (run_id, …).
   */
  async readEvents(runId: string, afterId: string, limit: number): Promise<ArchivedEvent[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`readEvents: limit must be a positive whole number, not ${limit}`);
    const values: unknown[] = [runId];
    let after = '';
    if (afterId !== '-') {
      const match = /^(\d{1,20})-(\d{1,20})$/.exec(afterId);
      if (!match) throw new Error(`readEvents: not a stream id: ${afterId}`);
      values.push(match[1], match[2]);
      after = " AND (split_part(stream_id, '-', 1)::numeric, split_part(stream_id, '-', 2)::numeric) > ($2::numeric, $3::numeric)";
    }
    values.push(limit);
    const result = await this.pool.query(`SELECT ${EVENT_ROW_COLUMNS} FROM events WHERE run_id = $1${after} ORDER BY position LIMIT $${values.length}`, values);
    return (result.rows as Array<Record<string, unknown>>).map((row) => decodeEventRow(runId, row));
  }

  /** The archived run's turns, in step order (GET /v1/runs/:id/turns once Redis no longer holds it). */
  async readTurns(runId: string): Promise<ArchivedTurn[]> {
    const result = await this.pool.query(`SELECT ${TURN_ROW_COLUMNS} FROM turns WHERE run_id = $1 ORDER BY step`, [runId]);
    return (result.rows as Array<Record<string, unknown>>).map((row) => decodeTurnRow(runId, row));
  }

  /** The archived run's tool calls, by step then id: the table keeps no transcript position, so the
   * caller orders them by the transcript (src/api/run-payloads.ts) as the archive listed them. */
  async readToolCalls(runId: string): Promise<ArchivedToolCall[]> {
    const result = await this.pool.query(`SELECT ${TOOL_CALL_ROW_COLUMNS} FROM tool_calls WHERE run_id = $1 ORDER BY step, tool_use_id`, [runId]);
    return (result.rows as Array<Record<string, unknown>>).map((row) => decodeToolCallRow(runId, row));
  }

  /** The archived run's transcript, or null when the run has none archived. */
  async readTranscript(runId: string): Promise<unknown[] | null> {
    const result = await this.pool.query(`SELECT ${TRANSCRIPT_ROW_COLUMNS} FROM transcripts WHERE run_id = $1`, [runId]);
    const row = result.rows[0] as Record<string, unknown> | undefined;
    return row ? decodeTranscriptRow(runId, row) : null;
  }

  /**
   * Which of `prompts` hold every word of `text`, by the very test the listing's text filter runs
   * (to_tsvector('simple', …) @@ plainto_tsquery('simple', …)), so runs still in Redis are filtered
   * exactly like archived ones. One round trip for the whole batch; no table is read.
   */
  async promptsMatchText(prompts: readonly string[], text: string): Promise<boolean[]> {
    if (prompts.length === 0) return [];
    const result = await this.pool.query(
      "SELECT to_tsvector('simple', prompt) @@ plainto_tsquery('simple', $2) AS matches FROM " +
        'unnest($1::text[]) WITH ORDINALITY AS candidate (prompt, position) ORDER BY position',
      [prompts, text],
    );
    const rows = result.rows as Array<{ matches: unknown }>;
    if (rows.length !== prompts.length || rows.some((row) => typeof row.matches !== 'boolean'))
      throw new Error('promptsMatchText: PostgreSQL answered a row per prompt that is not a boolean');
    return rows.map((row) => row.matches as boolean);
  }

  /** The fleet overview's figures of a time range (GET /v1/overview): runs, cost, latency and health
   * signals per bucket of their runs' creation time (history-overview.ts). */
  async overview(filter: OverviewFilter): Promise<HistoryOverview> {
    return readHistoryOverview({ pool: this.pool, filter });
  }

  /** A tenant's spend per UTC day (each run counted on the day it was created), days with runs. */
  async spendByDay(filter: SpendByDayFilter): Promise<DaySpend[]> {
    const query = spendByDayQuery(filter);
    const result = await this.pool.query(query.text, query.values);
    return (result.rows as Array<Record<string, unknown>>).map((row) => {
      const parsed = spendRowSchema.safeParse(row);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new StoredHistoryRowInvalid(
          'runs (spend by day)',
          String(row.day ?? '(unknown)'),
          String(issue?.path[0] ?? '(row)'),
          issue?.message ?? 'invalid',
        );
      }
      return { day: parsed.data.day, costMicroUsd: parsed.data.cost_micro_usd, runs: parsed.data.runs };
    });
  }
}
