// The request's `thinking` field and the sampling rules that come with it, policed as the real API
// does (docs build-with-claude/extended-thinking: "budget_tokens … minimum is 1,024 … must be set
// to a value less than max_tokens"; "Thinking isn't compatible with temperature or top_k
// modifications as well as forced tool use"; "you can set top_p to values between 1 and 0.95").
// Messages are the real API's wording as seen in its 400 answers; the unsupported-model one is an
// assumption (no real wording found).
import type { ThinkingSetting, ToolChoice } from './messages-request.js';
import { modelSupportsThinking } from './model-catalog.js';

export const MINIMUM_THINKING_BUDGET_TOKENS = 1024;
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
}: {
  thinking: unknown;
  model: string;
  maxTokens: number;
}): ThinkingSetting {
  if (thinking === undefined || thinking === null) return { type: 'disabled' };
  if (!isRecord(thinking)) reject('thinking: Input should be a valid dictionary or object to extract fields from');
  if (thinking.type === 'disabled') return { type: 'disabled' };
  if (thinking.type !== 'enabled') {
    reject(
      `thinking: Input tag ${JSON.stringify(String(thinking.type))} found using 'type' does not match any of the expected tags: 'disabled', 'enabled'`,
    );
  }
  const budget = thinking.budget_tokens;
  if (budget === undefined || budget === null) reject('thinking.enabled.budget_tokens: Field required');
  if (typeof budget !== 'number' || !Number.isInteger(budget)) reject('thinking.enabled.budget_tokens: Input should be a valid integer');
  if (budget < MINIMUM_THINKING_BUDGET_TOKENS) {
    reject(`thinking.enabled.budget_tokens: Input should be greater than or equal to ${MINIMUM_THINKING_BUDGET_TOKENS}`);
  }
  if (budget >= maxTokens) reject('`max_tokens` must be greater than `thinking.budget_tokens`.');
  if (!modelSupportsThinking(model)) reject(`thinking: extended thinking is not supported by model '${model}'`);
  return { type: 'enabled', budgetTokens: budget };
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
