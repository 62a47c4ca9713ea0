// A few fields of many runs at once, for the API's run listing and its admission pruning
// (RunEngine.runStatuses, RunEngine.runSummaries). They read by HMGET in one pipeline rather than
// HGETALL per run, so a page of runs does not carry every run's result and todos. The fields are
// decoded by the rules fromFields (run-record.ts) applies to the same fields, so a summary that
// decodes here is what getRun would return; one that does not is reported as StoredRunInvalid for
// the caller to skip and log, never cast and passed on.
import { AGENT_NAME, PHASE_NAME, SITE_BUILDER_AGENT, type Phase } from '../domain/profile.js';
import { RUN_STATUSES, type RunStatus } from '../domain/run-outcomes.js';
import { StoredRunInvalid } from './run-record.js';

/** One run among many as read back: decoded, absent (no record: expired or never created), or
 * invalid (its stored fields do not decode). */
export type RunReading<T> = { state: 'found'; value: T } | { state: 'missing' } | { state: 'invalid'; error: StoredRunInvalid };

/** What a listing shows of a run. */
export interface RunSummaryRecord {
  id: string;
  tenant: string;
  status: RunStatus;
  /** The run's agent; a record from before agents is the site builder's. */
  agent: string;
  phase: Phase;
  turn: number;
  prompt: string;
  createdAt: string;
  updatedAt: string;
}

/** The hash fields runSummaries reads, in the order decodeRunSummary takes their values. */
export const RUN_SUMMARY_FIELDS = ['id', 'tenant', 'status', 'phase', 'turn', 'prompt', 'createdAt', 'updatedAt', 'agent'] as const;

function isRunStatus(value: string): value is RunStatus {
  return (RUN_STATUSES as readonly string[]).includes(value);
}

/** A phase of any agent: its name (the agent, not the record, knows which it has). */
function isPhase(value: string): value is Phase {
  return PHASE_NAME.test(value);
}

/** A run's stored `status` (HGET; null when the hash or the field is absent). */
export function decodeRunStatus(runId: string, raw: string | null): RunReading<RunStatus> {
  if (raw === null) return { state: 'missing' };
  if (isRunStatus(raw)) return { state: 'found', value: raw };
  return { state: 'invalid', error: new StoredRunInvalid(runId, 'status', `not one of ${RUN_STATUSES.join(', ')}: ${JSON.stringify(raw)}`) };
}

/** The HMGET reply for RUN_SUMMARY_FIELDS of one run (a run without an id has no record). */
export function decodeRunSummary(runId: string, values: ReadonlyArray<string | null>): RunReading<RunSummaryRecord> {
  const [id = null, tenant = null, status = null, phase = null, turn = null, prompt = null, createdAt = null, updatedAt = null, agent = null] = values;
  if (!id) return { state: 'missing' };
  const invalid = (field: string, detail: string): RunReading<RunSummaryRecord> => ({ state: 'invalid', error: new StoredRunInvalid(runId, field, detail) });
  // Same rules as fromFields: id, tenant, prompt and createdAt are required (empty allowed), phase
  // and turn fall back when absent or empty, updatedAt may be absent.
  if (tenant === null) return invalid('tenant', 'missing');
  if (status === null || !isRunStatus(status)) return invalid('status', `not one of ${RUN_STATUSES.join(', ')}: ${JSON.stringify(status)}`);
  const decodedPhase = phase === null || phase === '' ? 'planning' : phase;
  if (!isPhase(decodedPhase)) return invalid('phase', `not a phase name: ${JSON.stringify(phase)}`);
  const decodedTurn = turn === null || turn === '' ? 0 : Number(turn);
  if (!Number.isInteger(decodedTurn) || decodedTurn < 0) return invalid('turn', `not a non-negative integer: ${JSON.stringify(turn)}`);
  if (prompt === null) return invalid('prompt', 'missing');
  if (createdAt === null) return invalid('createdAt', 'missing');
  const decodedAgent = agent === null || agent === '' ? SITE_BUILDER_AGENT : agent;
  if (!AGENT_NAME.test(decodedAgent)) return invalid('agent', `not an agent name: ${JSON.stringify(agent)}`);
  return {
    state: 'found',
    value: { id, tenant, status, agent: decodedAgent, phase: decodedPhase, turn: decodedTurn, prompt, createdAt, updatedAt: updatedAt ?? '' },
  };
}
