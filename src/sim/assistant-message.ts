// A response plan turned into the real API's Message JSON: ids, usage and the stop fields.
import { createIdentifier } from './identifiers.js';
import type { RefusalStopDetails, ResponsePlan } from './response-plan.js';
import { estimateTokens } from './token-estimate.js';

export type AssistantContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface AssistantMessageBody {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AssistantContentBlock[];
  stop_reason: string;
  stop_sequence: string | null;
  stop_details: RefusalStopDetails | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
}

/** The Message body for a plan; output tokens never exceed max_tokens, as with the real API. */
export function createAssistantMessage({
  plan,
  model,
  promptText,
  maxTokens,
}: {
  plan: ResponsePlan;
  model: string;
  promptText: string;
  maxTokens: number;
}): AssistantMessageBody {
  const content = plan.blocks.map(
    (block): AssistantContentBlock =>
      block.type === 'text'
        ? { type: 'text', text: block.text }
        : { type: 'tool_use', id: createIdentifier({ prefix: 'toolu_' }), name: block.name, input: block.input },
  );
  const outputTokens = Math.min(maxTokens, estimateTokens({ text: JSON.stringify(content) }));
  return {
    id: createIdentifier({ prefix: 'msg_' }),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: plan.stopReason,
    stop_sequence: plan.stopSequence,
    stop_details: plan.stopDetails,
    usage: {
      input_tokens: estimateTokens({ text: promptText }),
      output_tokens: outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}
