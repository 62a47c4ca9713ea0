import { describe, expect, it } from 'vitest';
import { describeApiError } from './exit-codes.js';

describe('describeApiError', () => {
  it('names the run the refused request was about in the hint, ready to paste', () => {
    const line = describeApiError({ status: 409, code: 'run_not_resumable', message: 'The run is succeeded.', path: '/v1/runs/run_abcdefgh/resume' });
    expect(line).toBe('the API answered 409 run_not_resumable: The run is succeeded.\n  hint: start its input again as a new run: buildfleet rerun run_abcdefgh');
    expect(describeApiError({ status: 409, code: 'run_already_ended', message: 'Ended.', path: '/v1/runs/run_abcdefgh/input' })).toContain('`buildfleet logs run_abcdefgh` shows how');
  });

  it('keeps the placeholder when the request named no run', () => {
    expect(describeApiError({ status: 409, code: 'run_archived', message: 'Archived.' })).toContain('buildfleet rerun <run>');
    expect(describeApiError({ status: 409, code: 'run_archived', message: 'Archived.', path: '/v1/runs?limit=5' })).toContain('buildfleet rerun <run>');
  });
});
