// Where the fleet's word on a model (the catalog with the operator's overrides) and the provider's
// Models API differ, field by field, in the API's own names: what the check
// (src/model/models-api-check.ts) logs and exports as buildfleet_model_catalog_disagreements.
import type { ModelCapabilities } from './model-capabilities.js';
import { EFFORT_LEVELS, type ModelLifecycle } from './model-catalog.js';
import { thinkingOffKind, type ProviderModelDescription } from './provider-model-description.js';

/** The ModelInfo fields the catalog is checked on (the `field` label of the metric). */
export const CATALOG_CHECK_FIELDS = [
  'max_input_tokens',
  'max_tokens',
  'thinking.enabled',
  'thinking.adaptive',
  'thinking.between_tools',
  'thinking.disabled',
  'effort',
  'structured_outputs',
  'lifecycle',
  'retires_at',
] as const;
export type CatalogCheckField = (typeof CATALOG_CHECK_FIELDS)[number];

export interface CatalogDisagreement {
  model: string;
  field: CatalogCheckField;
  /** The fleet's value (catalog and overrides), as text. */
  catalog: string;
  /** The Models API's value, as text. */
  api: string;
}

function levelsText(levels: readonly string[]): string {
  return levels.length === 0 ? 'none' : EFFORT_LEVELS.filter((level) => levels.includes(level)).join(',');
}

/** Every field on which the fleet's entry for `description.id` and the Models API disagree; a field
 * the API left out (null) is not compared. */
export function catalogDisagreements({
  description,
  capabilities,
  lifecycle,
}: {
  description: ProviderModelDescription;
  /** The fleet's capabilities of the model, without the API's word (catalog and overrides). */
  capabilities: ModelCapabilities;
  /** The catalog's lifecycle; null for a model only the operator describes (not compared). */
  lifecycle: ModelLifecycle | null;
}): CatalogDisagreement[] {
  const pairs: Array<[CatalogCheckField, string, string]> = [];
  if (description.maxInputTokens !== null) pairs.push(['max_input_tokens', String(capabilities.contextWindowTokens), String(description.maxInputTokens)]);
  if (description.maxTokens !== null) pairs.push(['max_tokens', String(capabilities.maxOutputTokens), String(description.maxTokens)]);
  const types = description.thinkingTypes;
  if (types !== null) {
    const off = thinkingOffKind(capabilities.thinkingOff);
    pairs.push(
      ['thinking.enabled', String(capabilities.thinking), String(types.enabled)],
      ['thinking.adaptive', String(capabilities.adaptiveThinking), String(types.adaptive)],
      ['thinking.between_tools', String(off === 'between_tools'), String(types.betweenTools)],
      ['thinking.disabled', String(off === 'disabled'), String(types.disabled)],
    );
  }
  if (description.effortLevels !== null) pairs.push(['effort', levelsText(capabilities.effortLevels), levelsText(description.effortLevels)]);
  if (description.structuredOutputs !== null) pairs.push(['structured_outputs', String(capabilities.strictTools), String(description.structuredOutputs)]);
  if (lifecycle !== null) {
    // `legacy` is `active` in the API ("legacy" models are listed as active).
    pairs.push(['lifecycle', lifecycle.status === 'legacy' ? 'active' : lifecycle.status, description.lifecycle]);
    pairs.push(['retires_at', lifecycle.retiresOn ?? 'none', description.retiresOn ?? 'none']);
  }
  return pairs.filter(([, catalog, api]) => catalog !== api).map(([field, catalog, api]) => ({ model: description.id, field, catalog, api }));
}
