// The request's `thinking` field, policed per model generation as the real API does. The facts per
// model are in model-catalog.ts; the rules and their sources:
// - manual budgets (docs build-with-claude/extended-thinking: "budget_tokens … minimum is 1,024 …
//   must be set to a value less than max_tokens"; with interleaved thinking the budget "can exceed
//   the max_tokens parameter").
// - an omitted `thinking` means adaptive thinking on the models that think by default
//   (build-with-claude/preserved-thinking: "models with preserved thinking default to adaptive
//   thinking"; models/opus-5/whats-new-opus-5: "thinking is on by default"), off elsewhere.
// - `disabled` refused where thinking is always on, with the documented message
//   (models/opus-5-5/whats-new-opus-5-5#thinking-cant-be-disabled; models/fable-5/migration-guide),
//   on Sonnet 5.5 with the message that points to `between_tools` (models/sonnet-5-5/migration-guide;
//   the guide has two wordings, the newer one is used); accepted only at effort high or below on
//   Opus 5 and Haiku 5.5 (build-with-claude/thinking; whats-new-haiku-5-5), and with thinking off
//   by omission on Opus 4.8 — the message is the live API's as reported (model-facts §12).
// - `between_tools` (Sonnet 5.5 only, models/sonnet-5-5/migration-guide#turn-off-up-front-thinking):
//   "takes no other field: `display`, `budget_tokens`, or `block_binding` sent with it returns a 400
//   error", and only at effort low, medium or high.
// - `display` (build-with-claude/thinking#controlling-thinking-display): `summarized` or `omitted`;
//   `updates` only with the beta `thinking-display-updates-2026-08-18` on the models that write
//   progress updates — without it "rejected with the same 400 `invalid_request_error` as an unknown
//   `display` value"; "`display` is invalid with `thinking.type: "disabled"`".
// - `block_binding` (build-with-claude/preserved-thinking; SDK BetaThinkingBlockBinding:
//   `prefix_mismatch_behavior` "error" (default) | "drop_block") needs the beta
//   `thinking-binding-controls-2026-08-01`; without it the 400 ends "block_binding: Extra inputs are
//   not permitted".
// Messages are the real API's wording where one was found. Assumed (none documented): the refusal of
// `between_tools` on another model (worded like the `enabled` one), of `between_tools` above effort
// high, and `adaptive thinking is not supported on this model` as reported by clients of older models
// (askalf/dario#273, lidge-jun/opencodex#65).
import type { ThinkingSetting } from './messages-request.js';
import type { EffortLevel, ModelDescription, ThinkingDisplay } from './model-catalog.js';

const MINIMUM_THINKING_BUDGET_TOKENS = 1024;
/** The beta that allows `display: "updates"`. */
export const THINKING_DISPLAY_UPDATES_BETA = 'thinking-display-updates-2026-08-18';
/** The beta that allows `thinking.block_binding` and reports dropped blocks in `input_transformations`. */
export const THINKING_BINDING_CONTROLS_BETA = 'thinking-binding-controls-2026-08-01';

const USE_ADAPTIVE = 'Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
const NOT_SUPPORTED = (type: string) => `"thinking.type.${type}" is not supported for this model. ${USE_ADAPTIVE}`;
const DISABLED_USE_BETWEEN_TOOLS =
  'To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of {"type": "disabled"}. ' +
  'The model does not think before responding. The short updates it writes between tool calls come back as thinking blocks.';
const ADAPTIVE_NOT_SUPPORTED = 'adaptive thinking is not supported on this model';
const EFFORTS_ABOVE_HIGH: readonly EffortLevel[] = ['xhigh', 'max'];

/**
 * How much an adaptive answer may think, by effort: a share of max_tokens up to a ceiling. The docs
 * leave the amount to the model ("Claude evaluates the complexity of each request and decides
 * whether and how much to think", build-with-claude/adaptive-thinking) and say higher effort thinks
 * more (build-with-claude/effort); `high` keeps half of max_tokens up to 16,000.
 */
const ADAPTIVE_BUDGET: Readonly<Record<EffortLevel, { share: number; ceiling: number }>> = {
  low: { share: 1 / 8, ceiling: 4_000 },
  medium: { share: 1 / 4, ceiling: 8_000 },
  high: { share: 1 / 2, ceiling: 16_000 },
  xhigh: { share: 5 / 8, ceiling: 24_000 },
  max: { share: 3 / 4, ceiling: 32_000 },
};

export class ThinkingSettingInvalid extends Error {}

function reject(message: string): never {
  throw new ThinkingSettingInvalid(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ParsedThinking {
  setting: ThinkingSetting;
  /** `thinking.block_binding.prefix_mismatch_behavior`; `error` unless the request asks to drop. */
  prefixMismatchBehavior: 'error' | 'drop_block';
}

/** Reads `thinking` for `model`; throws ThinkingSettingInvalid with the 400's message. */
export function parseThinkingSetting({
  thinking,
  model,
  maxTokens,
  effort,
  betas,
  interleavedThinking = false,
}: {
  thinking: unknown;
  model: ModelDescription;
  maxTokens: number;
  /** The effort in effect (parse-effort.ts). */
  effort: EffortLevel | null;
  /** The `anthropic-beta` header's betas. */
  betas: readonly string[];
  /** The `interleaved-thinking-2025-05-14` beta was sent (parse-beta-header.ts). */
  interleavedThinking?: boolean;
}): ParsedThinking {
  const plain = (setting: ThinkingSetting): ParsedThinking => ({ setting, prefixMismatchBehavior: 'error' });
  if (thinking === undefined || thinking === null) {
    if (model.thinkingWhenOmitted === 'adaptive') return plain(adaptive({ model, maxTokens, effort, display: null }));
    return plain(thinkingOff({ model, effort }));
  }
  if (!isRecord(thinking)) reject('thinking: Input should be a valid dictionary or object to extract fields from');
  const type = thinking.type;
  if (type !== 'enabled' && type !== 'adaptive' && type !== 'disabled' && type !== 'between_tools') {
    reject(
      `thinking: Input tag ${JSON.stringify(String(type))} found using 'type' does not ` +
        `match any of the expected tags: 'adaptive', 'between_tools', 'disabled', 'enabled'`,
    );
  }
  if (type === 'disabled' || type === 'between_tools') {
    const extra = Object.keys(thinking).find((key) => key !== 'type');
    if (extra !== undefined) reject(`thinking.${type}.${extra}: Extra inputs are not permitted`);
    if (type === 'disabled') {
      if (model.disabling === 'refused') reject(model.thinkingTypes.includes('between_tools') ? DISABLED_USE_BETWEEN_TOOLS : NOT_SUPPORTED('disabled'));
      return plain(thinkingOff({ model, effort }));
    }
    if (!model.thinkingTypes.includes('between_tools')) reject(NOT_SUPPORTED('between_tools'));
    if (effort !== null && EFFORTS_ABOVE_HIGH.includes(effort)) {
      reject(`output_config.effort '${effort}' is not supported with "thinking.type.between_tools". Use effort 'high' or below.`);
    }
    return plain({ type: 'between_tools' });
  }

  const display = parseDisplay({ value: thinking.display, type, model, betas });
  const prefixMismatchBehavior = parseBlockBinding({ value: thinking.block_binding, type, betas });
  if (type === 'adaptive') {
    if (!model.thinkingTypes.includes('adaptive')) reject(ADAPTIVE_NOT_SUPPORTED);
    return { setting: adaptive({ model, maxTokens, effort, display }), prefixMismatchBehavior };
  }
  const budget = thinking.budget_tokens;
  if (budget === undefined || budget === null) reject('thinking.enabled.budget_tokens: Field required');
  if (typeof budget !== 'number' || !Number.isInteger(budget)) reject('thinking.enabled.budget_tokens: Input should be a valid integer');
  if (budget < MINIMUM_THINKING_BUDGET_TOKENS) {
    reject(`thinking.enabled.budget_tokens: Input should be greater than or equal to ${MINIMUM_THINKING_BUDGET_TOKENS}`);
  }
  if (budget >= maxTokens && !interleavedThinking) reject('`max_tokens` must be greater than `thinking.budget_tokens`.');
  if (model.thinkingTypes.length === 0) reject(`thinking: extended thinking is not supported by model '${model.id}'`);
  if (!model.thinkingTypes.includes('enabled')) reject(NOT_SUPPORTED('enabled'));
  return { setting: { type: 'enabled', budgetTokens: budget, display: display ?? defaultDisplayOf(model) }, prefixMismatchBehavior };
}

function defaultDisplayOf(model: ModelDescription): ThinkingDisplay {
  return model.defaultDisplay ?? 'summarized';
}

function adaptive({
  model,
  maxTokens,
  effort,
  display,
}: {
  model: ModelDescription;
  maxTokens: number;
  effort: EffortLevel | null;
  display: ThinkingDisplay | null;
}): ThinkingSetting {
  const { share, ceiling } = ADAPTIVE_BUDGET[effort ?? 'high'];
  const budgetTokens = Math.max(1, Math.min(ceiling, Math.floor(maxTokens * share)));
  return { type: 'enabled', budgetTokens, adaptive: true, display: display ?? defaultDisplayOf(model) };
}

/** Thinking off, explicitly or by omission: refused above effort high where the model says so. */
function thinkingOff({ model, effort }: { model: ModelDescription; effort: EffortLevel | null }): ThinkingSetting {
  if (model.disabling === 'effort_high_or_below' && effort !== null && EFFORTS_ABOVE_HIGH.includes(effort)) {
    reject(`output_config.effort '${effort}' is not supported when thinking is disabled on this model. Use effort 'high' or below, or enable thinking.`);
  }
  return { type: 'disabled' };
}

function parseDisplay({
  value,
  type,
  model,
  betas,
}: {
  value: unknown;
  type: string;
  model: ModelDescription;
  betas: readonly string[];
}): ThinkingDisplay | null {
  if (value === undefined || value === null) return null;
  const updatesAllowed = model.updatesDisplay && betas.includes(THINKING_DISPLAY_UPDATES_BETA);
  if (value === 'summarized' || value === 'omitted' || (value === 'updates' && updatesAllowed)) return value;
  reject(`thinking.${type}.display: Input should be ${updatesAllowed ? "'summarized', 'omitted' or 'updates'" : "'summarized' or 'omitted'"}`);
}

function parseBlockBinding({ value, type, betas }: { value: unknown; type: string; betas: readonly string[] }): 'error' | 'drop_block' {
  if (value === undefined) return 'error';
  if (!betas.includes(THINKING_BINDING_CONTROLS_BETA)) reject(`thinking.${type}.block_binding: Extra inputs are not permitted`);
  if (value === null) return 'error';
  if (!isRecord(value)) reject(`thinking.${type}.block_binding: Input should be a valid dictionary`);
  const extra = Object.keys(value).find((key) => key !== 'prefix_mismatch_behavior');
  if (extra !== undefined) reject(`thinking.${type}.block_binding.${extra}: Extra inputs are not permitted`);
  const behavior = value.prefix_mismatch_behavior;
  if (behavior === undefined || behavior === null || behavior === 'error') return 'error';
  if (behavior === 'drop_block') return 'drop_block';
  reject(`thinking.${type}.block_binding.prefix_mismatch_behavior: Input should be 'error' or 'drop_block'`);
}
