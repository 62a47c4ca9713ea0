// The thinking and redacted_thinking blocks a request sends back, checked as the real API checks
// them, in this order:
// - altered (the signature or data does not verify): 400 "messages.N.content.M: Invalid
//   `signature` in `thinking` block" (or `data` in `redacted_thinking`), the real API's wording,
//   "with no reason clause" (build-with-claude/preserved-thinking);
// - made by a model the requested one may not read (model-catalog.ts `thinkingReadableBy`,
//   `unreadableThinkingOf`; preserved-thinking#switching-models): dropped silently — "the API ignores
//   or drops the blocks the target model can't read", and dropped blocks are "not counted in
//   `input_tokens`";
// - made by a prefix-bound model (`prefixBoundThinking`) in a conversation whose prefix has changed
//   (conversation-prefix.ts): 400 with the documented message, which without the
//   `thinking-binding-controls-2026-08-01` beta adds that the setting needs it; with the beta and
//   `prefix_mismatch_behavior: "drop_block"` the block is dropped with "the rest of that turn's
//   consecutive thinking blocks" (SDK BetaThinkingDroppedInputTransformation.reason). Every account
//   is treated as one created after 2026-08-31, on which the check is on by default.
// Drops are reported in `input_transformations` only under the beta (SDK BetaMessage
// .input_transformations: "without the beta, blocks are removed or left in place all the same but
// nothing is reported").
import { conversationPrefixDigest } from './conversation-prefix.js';
import type { BindingMessage, InputTransformation } from './messages-request.js';
import { lookupModel, type ModelDescription } from './model-catalog.js';
import type { ThinkingBinding, ThinkingSigner } from './thinking-signature.js';

export type ScreenResult =
  { ok: true; messages: BindingMessage[]; droppedPaths: ReadonlySet<string>; transformations: InputTransformation[] } | { ok: false; message: string };

function readable({ producer, reader }: { producer: string; reader: ModelDescription }): boolean {
  if (producer === reader.id) return true;
  const description = lookupModel({ model: producer });
  const allowed = description === undefined || description.thinkingReadableBy === 'any' || description.thinkingReadableBy.includes(reader.id);
  return allowed && !reader.unreadableThinkingOf.includes(producer);
}

/** The messages without the blocks the API drops, or the 400 message for the first it refuses. */
export function screenThinkingBlocks({
  messages,
  bindingBase,
  model,
  signer,
  prefixMismatchBehavior,
  bindingBeta,
}: {
  messages: readonly BindingMessage[];
  bindingBase: string;
  model: ModelDescription;
  signer: ThinkingSigner;
  prefixMismatchBehavior: 'error' | 'drop_block';
  /** The `thinking-binding-controls-2026-08-01` beta was sent. */
  bindingBeta: boolean;
}): ScreenResult {
  const transformations: InputTransformation[] = [];
  const dropped = new Set<string>();
  for (const [messageIndex, message] of messages.entries()) {
    let droppingRun = false;
    for (const [blockIndex, block] of message.blocks.entries()) {
      const path = `messages.${messageIndex}.content.${blockIndex}`;
      if (block.kind !== 'thinking' && block.kind !== 'redacted_thinking') {
        droppingRun = false;
        continue;
      }
      const binding: ThinkingBinding | null =
        block.kind === 'thinking' ? signer.verify({ thinking: block.thinking, signature: block.signature }) : signer.verifyRedacted({ data: block.data });
      if (!binding) {
        return {
          ok: false,
          message:
            block.kind === 'thinking' ? `${path}: Invalid \`signature\` in \`thinking\` block` : `${path}: Invalid \`data\` in \`redacted_thinking\` block`,
        };
      }
      if (droppingRun) {
        dropped.add(path);
        transformations.push({ type: 'thinking_dropped', path, reason: 'prefix_binding_mismatch' });
        continue;
      }
      if (!readable({ producer: binding.producer, reader: model })) {
        dropped.add(path);
        transformations.push({ type: 'thinking_dropped', path, reason: 'model_binding_mismatch' });
        continue;
      }
      if (!lookupModel({ model: binding.producer })?.prefixBoundThinking) continue;
      const prefix = [...messages.slice(0, messageIndex), { role: message.role, blocks: message.blocks.slice(0, blockIndex) }];
      if (conversationPrefixDigest({ bindingBase, messages: prefix }) === binding.prefixDigest) continue;
      if (prefixMismatchBehavior === 'error') {
        const betaNote = bindingBeta ? '' : ' That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header.';
        return {
          ok: false,
          message:
            `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, ` +
            `or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".${betaNote}`,
        };
      }
      droppingRun = true;
      dropped.add(path);
      transformations.push({ type: 'thinking_dropped', path, reason: 'prefix_binding_mismatch' });
    }
  }
  const kept =
    dropped.size === 0
      ? [...messages]
      : messages.map((message, messageIndex) => ({
          ...message,
          blocks: message.blocks.filter((_block, blockIndex) => !dropped.has(`messages.${messageIndex}.content.${blockIndex}`)),
        }));
  return { ok: true, messages: kept, droppedPaths: dropped, transformations };
}
