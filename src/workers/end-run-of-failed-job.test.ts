import { describe, expect, it } from 'vitest';
import { isFinalFailure } from './end-run-of-failed-job.js';

describe('isFinalFailure', () => {
  it('is the failure of the last attempt', () => {
    expect(isFinalFailure({ attemptsMade: 1, attempts: 3, errorName: 'Error' })).toBe(false);
    expect(isFinalFailure({ attemptsMade: 2, attempts: 3, errorName: 'Error' })).toBe(false);
    expect(isFinalFailure({ attemptsMade: 3, attempts: 3, errorName: 'Error' })).toBe(true);
    // No attempts option: BullMQ makes one attempt.
    expect(isFinalFailure({ attemptsMade: 1, attempts: undefined, errorName: 'Error' })).toBe(true);
  });

  it('is any unrecoverable failure, whatever attempts are left', () => {
    expect(isFinalFailure({ attemptsMade: 1, attempts: 5, errorName: 'UnrecoverableError' })).toBe(true);
  });
});
