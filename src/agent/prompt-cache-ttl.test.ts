import { describe, expect, it } from 'vitest';
import { choosePromptCacheTtl } from './prompt-cache-ttl.js';

describe('choosePromptCacheTtl', () => {
  it('gives the waiting lifetime to a turn that may park the run on ask_user, five minutes otherwise', () => {
    expect(choosePromptCacheTtl({ offeredTools: ['todo_write', 'ask_user'], waitingTtl: '1h' })).toBe('1h');
    expect(choosePromptCacheTtl({ offeredTools: ['todo_write', 'ask_user'], waitingTtl: '5m' })).toBe('5m');
    expect(choosePromptCacheTtl({ offeredTools: ['write_file', 'deploy'], waitingTtl: '1h' })).toBe('5m');
  });
});
