import { describe, expect, it } from 'vitest';
import { decideStalledRun, type ObservedJobState, type StalledRunView } from './decide-stalled-run.js';
import type { PlannedDispatch } from '../engine/index.js';

const call = (toolUseId: string): PlannedDispatch => ({ runId: 'run_0123456789', turn: 2, toolUseId, name: 'write_file', input: {}, parseMode: 'native' });
const OWN = 'run_0123456789-turn-3';
const RECOVERY = 'run_0123456789-turn-3-recover-1';

function view(overrides: { own?: ObservedJobState; others?: Array<[string, ObservedJobState]>; tools?: Array<[string, boolean, ObservedJobState]>; recoveries?: number; maxRecoveries?: number }): StalledRunView {
  return {
    modelJobs: [{ jobId: OWN, state: overrides.own ?? 'unknown' }, ...(overrides.others ?? []).map(([jobId, state]) => ({ jobId, state }))],
    ownJobId: OWN,
    nextRecoveryJobId: RECOVERY,
    tools: (overrides.tools ?? []).map(([id, recorded, state]) => ({ call: call(id), recorded, state })),
    recoveries: overrides.recoveries ?? 0,
    maxRecoveries: overrides.maxRecoveries ?? 3,
  };
}

describe('decideStalledRun', () => {
  it('leaves a run alone while any of its jobs still moves', () => {
    for (const state of ['waiting', 'active', 'delayed', 'prioritized'] as const) {
      expect(decideStalledRun(view({ own: state }))).toEqual({ kind: 'alive' });
      // A tool job still running, even with its parent gone: its result comes first.
      expect(decideStalledRun(view({ own: 'unknown', tools: [['a', false, state]] }))).toEqual({ kind: 'alive' });
    }
    expect(decideStalledRun(view({ own: 'waiting-children', tools: [['a', false, 'waiting']] }))).toEqual({ kind: 'alive' });
    expect(decideStalledRun(view({ own: 'completed', others: [[RECOVERY, 'active']] }))).toEqual({ kind: 'alive' });
  });

  it('adds lost children of a waiting parent again, recorded ones too', () => {
    const decision = decideStalledRun(view({ own: 'waiting-children', tools: [['a', false, 'unknown'], ['b', true, 'unknown'], ['c', true, 'completed']] }));
    expect(decision).toEqual({ kind: 'add_children', parentJobId: OWN, calls: [call('a'), call('b')] });
  });

  it("re-adds the turn's own job with its deterministic id when it was lost, with the lost unanswered calls", () => {
    const decision = decideStalledRun(view({ own: 'unknown', tools: [['a', false, 'unknown'], ['b', true, 'unknown'], ['c', false, 'failed']] }));
    expect(decision).toEqual({ kind: 'resume', jobId: OWN, reason: 'model_job_missing', calls: [call('a')] });
  });

  it('hands the turn to a recovery job when its jobs finished without moving it', () => {
    expect(decideStalledRun(view({ own: 'completed' }))).toEqual({ kind: 'resume', jobId: RECOVERY, reason: 'model_job_dead', calls: [] });
    // A parent that waits with no child left to finish can never move.
    expect(decideStalledRun(view({ own: 'waiting-children', tools: [['a', true, 'completed']] }))).toEqual({ kind: 'resume', jobId: RECOVERY, reason: 'model_job_dead', calls: [] });
  });

  it('ends the run when a job of the turn failed for good and nothing ended it', () => {
    expect(decideStalledRun(view({ own: 'failed' }))).toEqual({ kind: 'end', code: 'job_attempts_exhausted', failedJobId: OWN });
    expect(decideStalledRun(view({ own: 'completed', others: [[RECOVERY, 'failed']] }))).toEqual({ kind: 'end', code: 'job_attempts_exhausted', failedJobId: RECOVERY });
  });

  it('ends the run once the turn was handed on maxRecoveries times', () => {
    expect(decideStalledRun(view({ own: 'unknown', recoveries: 3 }))).toEqual({ kind: 'end', code: 'run_stalled' });
    expect(decideStalledRun(view({ own: 'waiting-children', tools: [['a', false, 'unknown']], recoveries: 3 }))).toEqual({ kind: 'end', code: 'run_stalled' });
    expect(decideStalledRun(view({ own: 'unknown', maxRecoveries: 0 }))).toEqual({ kind: 'end', code: 'run_stalled' });
  });
});
