// A response plan turned into the real API's Message: ids, signatures, the max_tokens cut
// (cut-at-max-tokens.ts), usage and the stop fields. Returns the wire blocks too, which the event
// stream (stream-message.ts) is written from, so a streamed answer and a JSON answer agree. Each
// thinking block's signature binds the producing model and the conversation before it: the
// request's messages, then the answer's own earlier blocks, in the assistant message the client
// sends back (the trailing one it continues, or a new one) (thinking-signature.ts).
import { conversationPrefixDigest } from './conversation-prefix.js';
import { cutAtMaxTokens } from './cut-at-max-tokens.js';
import type { BindingMessage, InputTransformation, NormalizedBlock } from './messages-request.js';
import { createIdentifier } from './identifiers.js';
import { assertNever } from '../domain/assert-never.js';
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
  /** Present with the `thinking-binding-controls-2026-08-01` beta (SDK BetaMessage.input_transformations). */
  input_transformations?: InputTransformation[];
}

/** What the answer's thinking blocks are bound to. */
export interface AnswerBinding {
  /** The model id producing the answer. */
  producer: string;
  /** conversation-prefix.ts base: the request's system and tools. */
  bindingBase: string;
  /** The request's messages as the model saw them, mid-conversation system messages included. */
  messages: readonly BindingMessage[];
}

export interface RenderedMessage {
  body: AssistantMessageBody;
  /** The content as written on the wire (tool input as JSON text, possibly cut). */
  blocks: WireBlock[];
}

function toWireBlock(block: ResponseBlock, signer: ThinkingSigner, binding: { producer: string; prefixDigest: () => string }): WireBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking': {
      const signature = signer.sign({ thinking: block.thinking, textShown: block.textShown, producer: binding.producer, prefixDigest: binding.prefixDigest() });
      return block.textShown
        ? { type: 'thinking', thinking: block.thinking, signature, hiddenCharacters: 0 }
        : { type: 'thinking', thinking: '', signature, hiddenCharacters: block.thinking.length };
    }
    case 'redacted_thinking': {
      const data = signer.redact({ hiddenText: block.hiddenText, producer: binding.producer, prefixDigest: binding.prefixDigest() });
      return { type: 'redacted_thinking', data, hiddenCharacters: block.hiddenText.length };
    }
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id ?? createIdentifier({ prefix: 'toolu_' }),
        name: block.name,
        inputJson: block.partialJson ?? JSON.stringify(block.input),
        complete: block.partialJson === undefined,
      };
    default:
      return assertNever(block, 'unexpected response block');
  }
}

/** The block as the client will send it back, for the binding of the blocks after it. */
function normalizedOf(block: WireBlock): NormalizedBlock {
  switch (block.type) {
    case 'text':
      return { kind: 'text', text: block.text };
    case 'thinking':
      return { kind: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { kind: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return { kind: 'tool_use', id: block.id, name: block.name, input: toolInputOf(block) };
    default:
      return assertNever(block, 'unexpected response block');
  }
}

/** The plan's blocks on the wire, each thinking block bound to the conversation before it. */
function renderBlocks(plan: ResponsePlan, signer: ThinkingSigner, binding: AnswerBinding): WireBlock[] {
  const last = binding.messages[binding.messages.length - 1];
  const continues = last?.role === 'assistant';
  const earlier = continues ? binding.messages.slice(0, -1) : binding.messages;
  const answerBlocks: NormalizedBlock[] = continues ? [...last.blocks] : [];
  const prefixDigest = () =>
    conversationPrefixDigest({ bindingBase: binding.bindingBase, messages: [...earlier, { role: 'assistant', blocks: answerBlocks }] });
  return plan.blocks.map((block) => {
    const wire = toWireBlock(block, signer, { producer: binding.producer, prefixDigest });
    answerBlocks.push(normalizedOf(wire));
    return wire;
  });
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
      return assertNever(block, 'unexpected response block');
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
  binding,
  inputTransformations = null,
}: {
  plan: ResponsePlan;
  model: string;
  /** The model whose tokenizer counts the output (model-catalog.ts). */
  modelDescription: Pick<ModelDescription, 'tokenizer'>;
  maxTokens: number;
  signer: ThinkingSigner;
  /** The prompt's tokens as the prompt cache split them (prompt-cache.ts). */
  promptUsage: PromptUsage;
  binding: AnswerBinding;
  /** The request's dropped thinking blocks, when the beta asks for them (screen-thinking-blocks.ts). */
  inputTransformations?: InputTransformation[] | null;
}): RenderedMessage {
  const planned = renderBlocks(plan, signer, binding);
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
      ...(inputTransformations ? { input_transformations: inputTransformations } : {}),
    },
  };
}
