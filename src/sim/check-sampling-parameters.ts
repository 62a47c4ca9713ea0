// `temperature`, `top_p` and `top_k`, refused where the real API refuses them:
// - under API version 2026-10-21 (header `anthropic-version`) the three are removed: "A request that
//   sends any of them returns 400, even at default values" (docs api/migration-2026-10-21). The
//   message is not documented; a removed field reading as an unknown one ("<field>: Extra inputs are
//   not permitted", request-fields.ts) is an assumption.
// - on the models that refuse sampling (model-catalog.ts `refusesSampling`: Opus 4.7 and later,
//   Sonnet 5+, Haiku 5.5, Fable / Mythos; their migration guides: "Non-default temperature, top_p,
//   and top_k are not supported") a non-default value is a 400. Default: temperature 1, top_p at
//   least 0.99 (Haiku 5.5's guide: "top_p must be 0.99"; the Bedrock Fable card: "≥ 0.99"), and no
//   top_k at all. The message is an assumption (none documented).
// - with thinking on (docs build-with-claude/extended-thinking: "Thinking isn't compatible with
//   temperature or top_k modifications"; "you can set top_p to values between 1 and 0.95"), in the
//   live API's wording.
import type { ThinkingSetting } from './messages-request.js';
import type { ModelDescription } from './model-catalog.js';

/** The API version that removed the sampling parameters. */
export const API_VERSION_WITHOUT_SAMPLING = '2026-10-21';
const DOCUMENTATION = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
const SAMPLING_FIELDS = ['temperature', 'top_p', 'top_k'] as const;

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** The 400 message for the first sampling parameter the request may not send, or null. */
export function checkSamplingParameters({
  body,
  model,
  thinking,
  apiVersion,
}: {
  body: Record<string, unknown>;
  model: ModelDescription;
  thinking: ThinkingSetting;
  /** The `anthropic-version` header. */
  apiVersion: string | undefined;
}): string | null {
  const { temperature, top_p: topP, top_k: topK } = body;
  if (apiVersion === API_VERSION_WITHOUT_SAMPLING) {
    const sent = SAMPLING_FIELDS.find((field) => field in body);
    if (sent !== undefined) return `${sent}: Extra inputs are not permitted`;
  }
  if (model.refusesSampling) {
    const nonDefault =
      typeof temperature === 'number' && temperature !== 1 ? 'temperature' : typeof topP === 'number' && topP < 0.99 ? 'top_p' : isSet(topK) ? 'top_k' : null;
    if (nonDefault !== null) return `${nonDefault}: non-default sampling parameters are not supported for this model. Remove temperature, top_p and top_k.`;
  }
  if (thinking.type !== 'enabled') return null;
  if (typeof temperature === 'number' && temperature !== 1) {
    return (
      `\`temperature\` may only be set to 1 when thinking is enabled. Please consult our ` +
      `documentation at ${DOCUMENTATION}#important-considerations-when-using-extended-thinking`
    );
  }
  if (typeof topP === 'number' && topP < 0.95) return '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled';
  if (isSet(topK)) return '`top_k` must be unset when thinking is enabled or in adaptive mode';
  return null;
}
