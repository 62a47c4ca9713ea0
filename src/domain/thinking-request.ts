// The thinking part of a run's model request — `thinking`, `output_config.effort` and the beta
// header the display needs — built from the run's settings (decided at submit,
// resolve-run-model-settings.ts) and its model's capabilities, in one pure function. Shapes from
// docs build-with-claude/thinking and build-with-claude/effort (see /docs/models.md, "Thinking,
// effort and display"):
// - `{type: 'enabled', budget_tokens}` manual thinking; `{type: 'adaptive'}` adaptive;
//   `{type: 'between_tools'}` takes no other field; `{type: 'disabled'}` where the model thinks by
//   default and turning it off is allowed; nothing at all where the model thinks only when asked.
// - `display` is sent only when it is not the model's default: `updates` (beta
//   thinking-display-updates-2026-08-18; without the header it is a 400).
// - `output_config: {effort}` only when the run chose one (sending the default is the same as
//   leaving it out).
import type { ModelCapabilities } from './model-capabilities.js';
import type { EffortLevel } from './model-catalog.js';
import { assertNever } from './assert-never.js';
import type { RunThinkingSettings } from './resolve-run-model-settings.js';

/** The beta that lets `display: 'updates'` through. */
export const THINKING_DISPLAY_UPDATES_BETA = 'thinking-display-updates-2026-08-18';

/** The Messages API's `thinking` forms the fleet sends. */
export type ThinkingParam =
  | { type: 'enabled'; budget_tokens: number; display?: 'updates' }
  | { type: 'adaptive'; display?: 'updates' }
  | { type: 'between_tools' }
  | { type: 'disabled' };

export interface ThinkingRequestParts {
  /** null: the request leaves `thinking` out. */
  thinking: ThinkingParam | null;
  /** null: the request leaves `output_config` out. */
  outputConfig: { effort: EffortLevel } | null;
  /** `anthropic-beta` values the request needs. */
  betas: string[];
}

/** What a run's request carries for thinking and effort. */
export function buildThinkingRequest({
  settings,
  capabilities,
}: {
  settings: RunThinkingSettings;
  capabilities: Pick<ModelCapabilities, 'thinksByDefault' | 'thinkingOff'>;
}): ThinkingRequestParts {
  const outputConfig = settings.effort === null ? null : { effort: settings.effort };
  const updates = settings.thinkingDisplay === 'updates';
  const display = updates ? { display: 'updates' as const } : {};
  const betas = updates && (settings.thinking === 'adaptive' || settings.thinking === 'manual') ? [THINKING_DISPLAY_UPDATES_BETA] : [];
  switch (settings.thinking) {
    case 'manual':
      return { thinking: { type: 'enabled', budget_tokens: settings.thinkingBudgetTokens ?? 0, ...display }, outputConfig, betas };
    case 'adaptive':
      return { thinking: { type: 'adaptive', ...display }, outputConfig, betas };
    case 'between_tools':
      return { thinking: { type: 'between_tools' }, outputConfig, betas: [] };
    case 'off':
      // A model that thinks only when asked is told nothing; one that thinks by default is told
      // `disabled` (the resolver refused the models where that is a 400).
      return { thinking: capabilities.thinksByDefault && capabilities.thinkingOff !== 'omit' ? { type: 'disabled' } : null, outputConfig, betas: [] };
    default:
      return assertNever(settings.thinking);
  }
}
