// What the provider's Models API says of one model (`GET /v1/models`, the SDK's `ModelInfo`:
// @anthropic-ai/sdk resources/models.d.ts), reduced to the facts the fleet's catalog also holds, and
// how those facts read as catalog capabilities. src/model/model-info-schema.ts turns a validated
// answer into this shape; the domain never sees the SDK. A null field is one the API left out
// (`capabilities: null`, `max_tokens: null`): the catalog's value stands there.
import type { EffortLevel, LifecycleStatus, ThinkingOff } from './model-catalog.js';

/** The Models API's lifecycle stages (no `legacy`: a legacy model is `active` there). */
export type ProviderLifecycle = 'active' | 'deprecated' | 'retired';

export interface ProviderThinkingTypes {
  /** `{type: 'enabled', budget_tokens}` (manual thinking). */
  enabled: boolean;
  adaptive: boolean;
  /** `{type: 'between_tools'}`: no up-front thinking, progress updates only. */
  betweenTools: boolean;
  /** `{type: 'disabled'}`: "False exactly when a request that sends it gets a 400" (ThinkingTypes). */
  disabled: boolean;
}

export interface ProviderModelDescription {
  id: string;
  lifecycle: ProviderLifecycle;
  /** `retires_at` as YYYY-MM-DD; null while none is scheduled. */
  retiresOn: string | null;
  /** `max_input_tokens`. */
  maxInputTokens: number | null;
  /** `max_tokens`: the largest max_tokens the model accepts. */
  maxTokens: number | null;
  thinkingTypes: ProviderThinkingTypes | null;
  /** The effort levels it accepts; empty when `effort.supported` is false. */
  effortLevels: readonly EffortLevel[] | null;
  /** `structured_outputs.supported` ("structured output / JSON mode / strict tool schemas"). */
  structuredOutputs: boolean | null;
}

/** The capability fields the Models API decides, as catalog values (a partial capability entry). */
export interface ProviderCapabilityFacts {
  contextWindowTokens?: number;
  maxOutputTokens?: number;
  thinking?: boolean;
  adaptiveThinking?: boolean;
  thinksByDefault?: boolean;
  thinkingOff?: ThinkingOff;
  effortLevels?: readonly EffortLevel[];
  defaultEffort?: EffortLevel | null;
  strictTools?: boolean;
}

/** The catalog's way of turning thinking off, as the API's thinking types can tell it apart. */
export type ThinkingOffKind = 'between_tools' | 'impossible' | 'disabled';

/** Which of the API's kinds a catalog `thinkingOff` is. */
export function thinkingOffKind(thinkingOff: ThinkingOff): ThinkingOffKind {
  return thinkingOff === 'between_tools' || thinkingOff === 'impossible' ? thinkingOff : 'disabled';
}

/** How a model whose thinking types are `types` turns thinking off: the catalog's own way when
 * it is of the same kind (the API does not tell `omit` from `disabled` or the effort condition). */
function thinkingOffOf(types: ProviderThinkingTypes, catalog: ThinkingOff | undefined): ThinkingOff {
  const kind: ThinkingOffKind = types.betweenTools ? 'between_tools' : types.disabled ? 'disabled' : 'impossible';
  if (catalog !== undefined && thinkingOffKind(catalog) === kind) return catalog;
  if (kind !== 'disabled') return kind;
  // A model that thinks in no form is off when `thinking` is left out; one that can think is told
  // `disabled`, which the API says it accepts.
  return types.enabled || types.adaptive ? 'disabled' : 'omit';
}

/** The catalog capabilities the Models API's description sets, over the catalog's own where it
 * knows the model (`catalog`): limits, thinking types, effort levels, strict tools. */
export function providerCapabilityFacts({
  description,
  catalog,
}: {
  description: ProviderModelDescription;
  catalog?: { thinkingOff: ThinkingOff; thinksByDefault: boolean; defaultEffort: EffortLevel | null } | undefined;
}): ProviderCapabilityFacts {
  const facts: ProviderCapabilityFacts = {};
  if (description.maxInputTokens !== null) facts.contextWindowTokens = description.maxInputTokens;
  if (description.maxTokens !== null) facts.maxOutputTokens = description.maxTokens;
  const types = description.thinkingTypes;
  if (types !== null) {
    facts.thinking = types.enabled;
    facts.adaptiveThinking = types.adaptive;
    facts.thinkingOff = thinkingOffOf(types, catalog?.thinkingOff);
    // A model that cannot turn thinking off, or only to between_tools, thinks when not told.
    facts.thinksByDefault =
      catalog && facts.thinkingOff === catalog.thinkingOff
        ? catalog.thinksByDefault
        : facts.thinkingOff === 'impossible' || facts.thinkingOff === 'between_tools';
  }
  const levels = description.effortLevels;
  if (levels !== null) {
    facts.effortLevels = levels;
    // The API names no default; the documented one is `high` (build-with-claude/effort).
    const current = catalog?.defaultEffort ?? null;
    facts.defaultEffort = current !== null && levels.includes(current) ? current : levels.includes('high') ? 'high' : (levels.at(-1) ?? null);
  }
  if (description.structuredOutputs !== null) facts.strictTools = description.structuredOutputs;
  return facts;
}

/** The lifecycle a model runs under: the API's stage and retirement date where it reports one
 * (it is the provider's own word), the catalog's successor, and `legacy` kept where the API says
 * `active` (the API has no such stage). */
export function providerLifecycle({
  description,
  catalog,
}: {
  description: ProviderModelDescription;
  catalog: { status: LifecycleStatus; retiresOn: string | null; successor: string | null } | null;
}): { status: LifecycleStatus; retiresOn: string | null; successor: string | null } {
  const successor = catalog?.successor ?? null;
  if (description.lifecycle === 'active') return { status: catalog?.status === 'legacy' ? 'legacy' : 'active', retiresOn: null, successor };
  // A retired model is always given its date; the catalog's stands in if the API left it out.
  const retiresOn = description.retiresOn ?? (description.lifecycle === 'retired' ? (catalog?.retiresOn ?? null) : null);
  return { status: description.lifecycle, retiresOn, successor };
}
