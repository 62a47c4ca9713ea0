import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { runDevCommand } from './dev-command.js';
import { UsageError } from './usage-error.js';

describe('buildfleet dev --profile', () => {
  it('refuses a simulator profile that does not exist, naming the ones that do, before starting anything', async () => {
    const stderr = new PassThrough();
    const written: string[] = [];
    stderr.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
    await expect(runDevCommand(['--profile', 'slow'], { stdout: new PassThrough(), stderr })).rejects.toThrow(UsageError);
    await expect(runDevCommand(['--profile', 'slow'], { stdout: new PassThrough(), stderr })).rejects.toThrow('--profile is one of instant, realistic, fast, not "slow"');
    expect(written.join('')).toBe('');
  });
});
