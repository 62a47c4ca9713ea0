// One `ModelInfo` of the Models API (@anthropic-ai/sdk resources/models.d.ts), checked like any
// other answer from outside: the SDK types it but validates nothing, and a model the fleet would
// run on these values must not come from a malformed answer. Only the fields the fleet reads are
// required; the rest (display_name, line, batch, citations, …) may change without breaking it.
import { z } from 'zod';
import { EFFORT_LEVELS } from '../domain/model-catalog.js';
import type { ProviderModelDescription } from '../domain/provider-model-description.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';

const support = z.looseObject({ supported: z.boolean() });
const tokenLimit = z.int().positive().max(100_000_000).nullable();
/** RFC 3339 (`2026-11-30T00:00:00Z`), read as its UTC day. */
const rfc3339 = z.iso.datetime({ offset: true });

const modelInfoSchema = z.looseObject({
  type: z.literal('model'),
  id: z.string().min(1).max(200),
  lifecycle: z.enum(['active', 'deprecated', 'retired']),
  retires_at: rfc3339.nullable(),
  max_input_tokens: tokenLimit,
  max_tokens: tokenLimit,
  capabilities: z
    .looseObject({
      effort: z.looseObject({
        supported: z.boolean(),
        low: support,
        medium: support,
        high: support,
        xhigh: support.nullable(),
        max: support,
      }),
      structured_outputs: support,
      thinking: z.looseObject({
        supported: z.boolean(),
        types: z.looseObject({ adaptive: support, enabled: support, between_tools: support, disabled: support }),
      }),
    })
    .nullable(),
});

/** The UTC day of an RFC 3339 time. */
function dayOf(time: string): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** A Models API answer item as the fleet reads it, or what is wrong with it. */
export function readModelInfo(item: unknown): { ok: true; description: ProviderModelDescription } | { ok: false; id: string | null; problem: string } {
  const parsed = modelInfoSchema.safeParse(item);
  if (!parsed.success) {
    const id = typeof item === 'object' && item !== null && typeof (item as { id?: unknown }).id === 'string' ? (item as { id: string }).id : null;
    return { ok: false, id, problem: formatZodIssues({ issues: parsed.error.issues, whole: '(item)' }) };
  }
  const info = parsed.data;
  const capabilities = info.capabilities;
  const effort = capabilities?.effort;
  return {
    ok: true,
    description: {
      id: info.id,
      lifecycle: info.lifecycle,
      retiresOn: info.retires_at === null ? null : dayOf(info.retires_at),
      maxInputTokens: info.max_input_tokens,
      maxTokens: info.max_tokens,
      thinkingTypes: capabilities
        ? {
            enabled: capabilities.thinking.types.enabled.supported,
            adaptive: capabilities.thinking.types.adaptive.supported,
            betweenTools: capabilities.thinking.types.between_tools.supported,
            disabled: capabilities.thinking.types.disabled.supported,
          }
        : null,
      effortLevels: effort ? (effort.supported ? EFFORT_LEVELS.filter((level) => effort[level]?.supported === true) : []) : null,
      structuredOutputs: capabilities ? capabilities.structured_outputs.supported : null,
    },
  };
}
