// The request's `thinking` field and the sampling rules that come with it, policed as the real API
// does (docs build-with-claude/extended-thinking: "budget_tokens … minimum is 1,024 … must be set
// to a value less than max_tokens"; "Thinking isn't compatible with temperature or top_k
// modifications as well as forced tool use"; "you can set top_p to values between 1 and 0.95").
// Messages are the real API's wording as seen in its 400 answers; the unsupported-model one is an
// assumption (no real wording found).
//
// Which `thinking.type` a model takes is in model-catalog.ts (docs
// build-with-claude/adaptive-thinking). The real answers to a type the model does not take, as
// reported from the live API: `"thinking.type.enabled" is not supported for this model. Use
// "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.` on the
// adaptive-only models (handochan/aelix-ai#258, lidge-jun/opencodex#65), and `adaptive thinking is
// not supported on this model` on the older ones (askalf/dario#273, lidge-jun/opencodex#65).
import type { ThinkingSetting, ToolChoice } from './messages-request.js';
import { modelAcceptsThinkingType, modelSupportsThinking } from './model-catalog.js';

export const MINIMUM_THINKING_BUDGET_TOKENS = 1024;
/** The most an adaptive answer thinks here: the docs leave the amount to the model ("Claude
 * evaluates the complexity of each request and decides whether and how much to think"), and
 * half of max_tokens up to 16,000 keeps room for the answer while thinking visibly. */
export const ADAPTIVE_THINKING_MAX_BUDGET_TOKENS = 16_000;
const ENABLED_NOT_SUPPORTED =
  '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
const ADAPTIVE_NOT_SUPPORTED = 'adaptive thinking is not supported on this model';
const DISPLAY_VALUES = ['summarized', 'omitted'] as const;
const DOCUMENTATION = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

export class ThinkingSettingInvalid extends Error {}

function reject(message: string): never {
  throw new ThinkingSettingInvalid(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads `thinking` (absent → disabled); throws ThinkingSettingInvalid with the 400's message. */
export function parseThinkingSetting({
  thinking,
  model,
  maxTokens,
  interleavedThinking = false,
}: {
  thinking: unknown;
  model: string;
  maxTokens: number;
  /** The `interleaved-thinking-2025-05-14` beta was sent (parse-beta-header.ts). */
  interleavedThinking?: boolean;
}): ThinkingSetting {
  if (thinking === undefined || thinking === null) return { type: 'disabled' };
  if (!isRecord(thinking)) reject('thinking: Input should be a valid dictionary or object to extract fields from');
  if (thinking.type === 'disabled') return { type: 'disabled' };
  if (thinking.type !== 'enabled' && thinking.type !== 'adaptive') {
    reject(
      `thinking: Input tag ${JSON.stringify(String(thinking.type))} found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'`,
    );
  }
  // `display` (SDK ThinkingConfigEnabled / ThinkingConfigAdaptive: 'summarized' | 'omitted' | null).
  const display = thinking.display;
  if (display !== undefined && display !== null && !(DISPLAY_VALUES as readonly unknown[]).includes(display)) {
    reject(`thinking.${thinking.type}.display: Input should be 'summarized' or 'omitted'`);
  }
  const displaySetting: { display?: 'summarized' | 'omitted' } = display === 'summarized' || display === 'omitted' ? { display } : {};
  if (thinking.type === 'adaptive') {
    if (!modelAcceptsThinkingType({ model, type: 'adaptive' })) reject(ADAPTIVE_NOT_SUPPORTED);
    const budgetTokens = Math.max(1, Math.min(ADAPTIVE_THINKING_MAX_BUDGET_TOKENS, Math.floor(maxTokens / 2)));
    return { type: 'enabled', budgetTokens, adaptive: true, ...displaySetting };
  }
  const budget = thinking.budget_tokens;
  if (budget === undefined || budget === null) reject('thinking.enabled.budget_tokens: Field required');
  if (typeof budget !== 'number' || !Number.isInteger(budget)) reject('thinking.enabled.budget_tokens: Input should be a valid integer');
  if (budget < MINIMUM_THINKING_BUDGET_TOKENS) {
    reject(`thinking.enabled.budget_tokens: Input should be greater than or equal to ${MINIMUM_THINKING_BUDGET_TOKENS}`);
  }
  // With interleaved thinking the budget may exceed max_tokens (docs build-with-claude/extended-thinking,
  // "Interleaved thinking": "the budget_tokens can exceed the max_tokens parameter, as it represents
  // the total budget across all thinking blocks within one assistant turn").
  if (budget >= maxTokens && !interleavedThinking) reject('`max_tokens` must be greater than `thinking.budget_tokens`.');
  if (!modelSupportsThinking(model)) reject(`thinking: extended thinking is not supported by model '${model}'`);
  if (!modelAcceptsThinkingType({ model, type: 'enabled' })) reject(ENABLED_NOT_SUPPORTED);
  return { type: 'enabled', budgetTokens: budget, ...displaySetting };
}

/** The combinations the real API refuses while thinking is on. */
export function checkThinkingCompatibility({
  thinking,
  toolChoice,
  temperature,
  topP,
  topK,
}: {
  thinking: ThinkingSetting;
  toolChoice: ToolChoice;
  temperature: unknown;
  topP: unknown;
  topK: unknown;
}): void {
  if (thinking.type !== 'enabled') return;
  if (toolChoice.type === 'any' || toolChoice.type === 'tool') reject('Thinking may not be enabled when tool_choice forces tool use.');
  if (typeof temperature === 'number' && temperature !== 1) {
    reject(
      `\`temperature\` may only be set to 1 when thinking is enabled. Please consult our documentation at ${DOCUMENTATION}#important-considerations-when-using-extended-thinking`,
    );
  }
  if (typeof topP === 'number' && topP < 0.95) reject('`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled');
  if (topK !== undefined && topK !== null) reject('`top_k` must be unset when thinking is enabled or in adaptive mode');
}
