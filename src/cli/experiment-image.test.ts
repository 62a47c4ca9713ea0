import { describe, expect, it } from 'vitest';
import { runImageExperimentCommand } from './experiment-image.js';
import { UsageError } from './usage-error.js';

// Only the refusals: the experiment itself needs root, podman and minutes (docs/deploy.md#proving-the-image).
describe('experiment image options', () => {
  it.each([
    [['--builds', '1'], /at least 2/],
    [['--builds', 'x'], /--builds must be a positive whole number/],
    [['--grace-s', '0'], /--grace-s must be a positive whole number/],
    [['--suite', 'Bookworm;rm'], /--suite must be a Debian suite name/],
    [['--mirror', 'ftp://mirror'], /--mirror must be an http\(s\) URL/],
  ])('refuses %j before touching the machine', async (argv, message) => {
    const refusal = runImageExperimentCommand(argv);
    await expect(refusal).rejects.toBeInstanceOf(UsageError);
    await expect(runImageExperimentCommand(argv)).rejects.toThrow(message);
  });
});
