// The simulator's stand-in for sampling: every "random" choice is a hash of the seed and the
// transcript, so a test that replays the same conversation sees the same model behaviour.
import { createHash } from 'node:crypto';
import { assertNever } from '../domain/assert-never.js';
import type { NormalizedMessage } from './messages-request.js';

/** A number in [0, 1) fixed by its parts. */
export function deterministicFraction({ parts }: { parts: readonly (string | number)[] }): number {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

/**
 * A digest of the transcript's shape: roles, texts, tool names and error flags. Tool-use ids,
 * tool inputs and tool results are left out on purpose: they carry random ids (toolu_…, and the
 * fleet's deploy ids and run ids), which would make every run draw differently.
 */
export function hashTranscript({ messages, toolNames }: { messages: readonly NormalizedMessage[]; toolNames: readonly string[] }): string {
  const shape = messages.map((message) => [
    message.role,
    message.blocks.map((block) => {
      switch (block.kind) {
        case 'text':
          return ['text', block.text];
        case 'tool_use':
          return ['tool_use', block.name];
        case 'tool_result':
          return ['tool_result', block.isError];
        case 'thinking':
        case 'redacted_thinking':
          // Signatures and redacted data differ per simulator secret; only the block's presence counts.
          return [block.kind];
        case 'other':
          return ['other', block.type];
        default:
          return assertNever(block);
      }
    }),
  ]);
  return createHash('sha256')
    .update(JSON.stringify([shape, toolNames]))
    .digest('hex');
}
