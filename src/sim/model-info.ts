// A catalog entry (model-catalog.ts) as the Models API describes it: the SDK's `ModelInfo`
// (@anthropic-ai/sdk resources/models.d.ts), every capability key present ("Keys are always present
// for all known capabilities"). What the catalog knows is derived from it; what the simulator does
// not serve is reported `supported: false`, so a client that decides by these flags is never sent to a
// feature this simulator would refuse or ignore (batches, citations, code execution, context
// management, images, PDFs, server tools).
import type { ModelInfo } from '@anthropic-ai/sdk/resources/models';
import type { ModelDescription } from './model-catalog.js';

const UNSERVED = { supported: false } as const;

/** An RFC 3339 time for a YYYY-MM-DD date (midnight UTC), or null. */
function rfc3339({ date }: { date: string | null }): string | null {
  return date === null ? null : `${date}T00:00:00Z`;
}

/** The Models API's description of one model. */
export function modelInfoOf({ model }: { model: ModelDescription }): ModelInfo {
  const effort = (level: ModelDescription['effortLevels'][number]) => ({ supported: model.effortLevels.includes(level) });
  return {
    type: 'model',
    id: model.id,
    display_name: model.displayName,
    created_at: rfc3339({ date: model.releasedOn }) ?? '1970-01-01T00:00:00Z',
    lifecycle: model.lifecycle,
    // SDK: "Populated for `deprecated` and `retired` models; `null` while the model is `active`."
    deprecated_at: model.lifecycle === 'active' ? null : rfc3339({ date: model.deprecatedOn }),
    retires_at: model.lifecycle === 'active' ? null : rfc3339({ date: model.retiresOn }),
    line: model.line,
    max_input_tokens: model.contextWindowTokens,
    max_tokens: model.maxOutputTokens,
    capabilities: {
      batch: UNSERVED,
      citations: UNSERVED,
      code_execution: UNSERVED,
      context_management: { clear_thinking_20251015: UNSERVED, clear_tool_uses_20250919: UNSERVED, compact_20260112: UNSERVED, supported: false },
      effort: {
        supported: model.effortLevels.length > 0,
        low: effort('low'),
        medium: effort('medium'),
        high: effort('high'),
        xhigh: effort('xhigh'),
        max: effort('max'),
      },
      image_input: UNSERVED,
      pdf_input: UNSERVED,
      server_tools: { code_execution: UNSERVED, web_search: UNSERVED, supported: false },
      // SDK: "Whether the model supports structured output / JSON mode / strict tool schemas."
      structured_outputs: { supported: model.strictTools },
      thinking: {
        supported: model.thinkingTypes.length > 0,
        types: {
          adaptive: { supported: model.thinkingTypes.includes('adaptive') },
          enabled: { supported: model.thinkingTypes.includes('enabled') },
          between_tools: { supported: model.thinkingTypes.includes('between_tools') },
          // SDK ThinkingTypes.disabled: "False exactly when a request that sends it gets a 400 from this
          // model … True on a model that does not support thinking"; a model that allows it only at
          // some efforts still accepts it ("can still be rejected for another reason, such as an effort level").
          disabled: { supported: model.disabling !== 'refused' },
        },
      },
    },
  };
}
