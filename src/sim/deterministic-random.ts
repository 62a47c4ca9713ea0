// The simulator's stand-in for sampling: every "random" choice is a hash of the seed and the
// transcript, so a test that replays the same conversation sees the same model behaviour.
import { createHash } from 'node:crypto';

/** A number in [0, 1) fixed by its parts. */
export function deterministicFraction({ parts }: { parts: readonly (string | number)[] }): number {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

/** A stable digest of a request's transcript and offered tools, used to key deterministic choices. */
export function hashTranscript({ messages, toolNames }: { messages: unknown; toolNames: readonly string[] }): string {
  return createHash('sha256')
    .update(JSON.stringify(messages) ?? '')
    .update('\u0000')
    .update(toolNames.join(','))
    .digest('hex');
}
