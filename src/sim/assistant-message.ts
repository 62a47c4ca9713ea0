// A response plan turned into the real API's Message: ids, signatures, the max_tokens cut
// (cut-at-max-tokens.ts), usage and the stop fields. Returns the wire blocks too, which the event
// stream (stream-message.ts) is written from, so a streamed answer and a JSON answer agree.
import { cutAtMaxTokens } from './cut-at-max-tokens.js';
import { createIdentifier } from './identifiers.js';
import type { ModelDescription } from './model-catalog.js';
import type { RefusalStopDetails, ResponseBlock, ResponsePlan } from './response-plan.js';
import type { ThinkingSigner } from './thinking-signature.js';
import type { PromptUsage } from './prompt-cache.js';
import { createUsage, type AnswerUsage } from './usage-accounting.js';
import { toolInputOf, type WireBlock } from './wire-block.js';

export type AssistantContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The answer's usage, built by usage-accounting.ts (prompt split by the prompt cache + output). */
export type AssistantMessageUsage = AnswerUsage;

export interface AssistantMessageBody {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AssistantContentBlock[];
  stop_reason: string;
  stop_sequence: string | null;
  stop_details: RefusalStopDetails | null;
  usage: AssistantMessageUsage;
}

export interface RenderedMessage {
  body: AssistantMessageBody;
  /** The content as written on the wire (tool input as JSON text, possibly cut). */
  blocks: WireBlock[];
}

function toWireBlock(block: ResponseBlock, signer: ThinkingSigner): WireBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: signer.sign({ thinking: block.thinking }) };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: signer.redact({ hiddenText: block.hiddenText }), hiddenCharacters: block.hiddenText.length };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id ?? createIdentifier({ prefix: 'toolu_' }),
        name: block.name,
        inputJson: block.partialJson ?? JSON.stringify(block.input),
        complete: block.partialJson === undefined,
      };
    default:
      return assertNeverResponseBlock(block);
  }
}

function assertNeverResponseBlock(block: never): never {
  throw new Error(`unexpected response block ${JSON.stringify(block)}`);
}

/** The Message body a client sees for one wire block. */
export function contentBlockOf(block: WireBlock): AssistantContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: toolInputOf(block) };
    default:
      return assertNeverResponseBlock(block);
  }
}

/** The Message for a plan. Output never exceeds max_tokens: what does not fit is cut off, as with the real API. */
export function createAssistantMessage({
  plan,
  model,
  modelDescription,
  maxTokens,
  signer,
  promptUsage,
}: {
  plan: ResponsePlan;
  model: string;
  /** The model whose tokenizer counts the output (model-catalog.ts). */
  modelDescription: Pick<ModelDescription, 'tokenizer'>;
  maxTokens: number;
  signer: ThinkingSigner;
  /** The prompt's tokens as the prompt cache split them (prompt-cache.ts). */
  promptUsage: PromptUsage;
}): RenderedMessage {
  const planned = plan.blocks.map((block) => toWireBlock(block, signer));
  const cut = cutAtMaxTokens({ blocks: planned, maxTokens, model: modelDescription });
  // A scenario that ends on max_tokens stands for a cut at the limit: the whole budget was spent.
  const scenarioTruncated = plan.stopReason === 'max_tokens';
  return {
    blocks: cut.blocks,
    body: {
      id: createIdentifier({ prefix: 'msg_' }),
      type: 'message',
      role: 'assistant',
      model,
      content: cut.blocks.map(contentBlockOf),
      stop_reason: cut.truncated ? 'max_tokens' : plan.stopReason,
      stop_sequence: cut.truncated ? null : plan.stopSequence,
      stop_details: cut.truncated ? null : plan.stopDetails,
      usage: createUsage({ prompt: promptUsage, outputTokens: cut.truncated || scenarioTruncated ? maxTokens : cut.outputTokens }),
    },
  };
}
