import { describe, expect, it } from 'vitest';
import { fromFields, toFields } from './run-record.js';
import { decodeRunStatus, decodeRunSummary, RUN_SUMMARY_FIELDS } from './run-summary.js';
import type { RunRecord } from './run-types.js';

const RUN_ID = 'run_abcdef0123456789';

/** The HMGET reply for RUN_SUMMARY_FIELDS over a stored hash (null where a field is absent). */
function hmget(fields: Record<string, string>): Array<string | null> {
  return RUN_SUMMARY_FIELDS.map((field) => fields[field] ?? null);
}

const stored: Record<string, string> = {
  id: RUN_ID,
  tenant: 'acme',
  status: 'running',
  phase: 'building',
  turn: '3',
  prompt: 'Build a bakery site',
  model: 'claude-sonnet-4-6',
  maxTurns: '40',
  maxTokens: '8192',
  thinking: 'off',
  provider: 'anthropic',
  queueShard: '0',
  maxTokensCeiling: '8192',
  usage: JSON.stringify({ input_tokens: 0, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 }),
  costMicroUsd: '0',
  budget: JSON.stringify({ costMicroUsd: null, tokens: null, costSetBy: 'run' }),
  createdAt: '2026-11-23T00:00:00.000Z',
  updatedAt: '2026-11-23T00:00:01.000Z',
};

describe('run statuses read back', () => {
  it('decodes a run status, reports an absent one as missing and an unknown one as invalid', () => {
    expect(decodeRunStatus(RUN_ID, 'succeeded')).toEqual({ state: 'found', value: 'succeeded' });
    expect(decodeRunStatus(RUN_ID, null)).toEqual({ state: 'missing' });
    for (const raw of ['', 'done', 'SUCCEEDED']) {
      const reading = decodeRunStatus(RUN_ID, raw);
      expect(reading.state).toBe('invalid');
      if (reading.state === 'invalid') expect(reading.error).toMatchObject({ code: 'stored_run_invalid', runId: RUN_ID, field: 'status' });
    }
  });
});

describe('run summaries read back', () => {
  it('decodes the fields of a stored run as getRun does', () => {
    const reading = decodeRunSummary(RUN_ID, hmget(stored));
    expect(reading.state).toBe('found');
    const record: RunRecord = fromFields(stored);
    if (reading.state === 'found') {
      expect(reading.value).toEqual({
        id: record.id,
        tenant: record.tenant,
        status: record.status,
        agent: record.agent,
        phase: record.phase,
        turn: record.turn,
        prompt: record.prompt,
        createdAt: record.createdAt,
        updatedAt: record.updatedAt,
      });
    }
  });

  it('decodes what the engine stores for a new run', () => {
    const fields = toFields({ id: RUN_ID, tenant: 't', status: 'queued', agent: 'order-desk', phase: 'quoting', turn: 0, prompt: '', createdAt: 'c', updatedAt: 'u' });
    expect(decodeRunSummary(RUN_ID, hmget(fields))).toEqual({
      state: 'found',
      value: { id: RUN_ID, tenant: 't', status: 'queued', agent: 'order-desk', phase: 'quoting', turn: 0, prompt: '', createdAt: 'c', updatedAt: 'u' },
    });
    // A record from before runs named their agent is the site builder's.
    const { agent: _agent, ...older } = fields;
    expect(decodeRunSummary(RUN_ID, hmget(older))).toMatchObject({ state: 'found', value: { agent: 'site-builder' } });
  });

  it('falls back where fromFields does: phase planning, turn 0, updatedAt empty', () => {
    const fields = Object.fromEntries(Object.entries(stored).filter(([field]) => field !== 'turn' && field !== 'updatedAt'));
    const reading = decodeRunSummary(RUN_ID, hmget({ ...fields, phase: '' }));
    expect(reading).toMatchObject({ state: 'found', value: { phase: 'planning', turn: 0, updatedAt: '' } });
  });

  it('reports a run without a record as missing', () => {
    expect(decodeRunSummary(RUN_ID, RUN_SUMMARY_FIELDS.map(() => null))).toEqual({ state: 'missing' });
    expect(decodeRunSummary(RUN_ID, hmget({ ...stored, id: '' }))).toEqual({ state: 'missing' });
  });

  it.each([
    ['status', { status: 'finished' }],
    ['status', { status: undefined }],
    ['phase', { phase: 'Deploying now' }],
    ['agent', { agent: 'Site Builder' }],
    ['turn', { turn: '-1' }],
    ['turn', { turn: '2.5' }],
    ['turn', { turn: 'three' }],
    ['tenant', { tenant: undefined }],
    ['prompt', { prompt: undefined }],
    ['createdAt', { createdAt: undefined }],
  ])('reports an invalid %s instead of passing it on (%j)', (field, change) => {
    const fields = Object.fromEntries(Object.entries({ ...stored, ...change }).filter(([, value]) => value !== undefined)) as Record<string, string>;
    const reading = decodeRunSummary(RUN_ID, hmget(fields));
    expect(reading.state).toBe('invalid');
    if (reading.state === 'invalid') expect(reading.error).toMatchObject({ code: 'stored_run_invalid', runId: RUN_ID, field });
    // getRun refuses the same record for the same field.
    let thrown: unknown;
    try {
      fromFields(fields);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'stored_run_invalid', field });
  });
});
