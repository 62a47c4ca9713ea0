// The simulator's normalized view of a validated `POST /v1/messages` body. Only what the builder
// policy and the scenarios read is kept; other documented fields are accepted and ignored.
import type { PromptBlock } from './cache-breakpoints.js';
import type { EffortLevel, ModelDescription, ThinkingDisplay } from './model-catalog.js';
import type { StrictTool } from './parse-strict-tools.js';

export type NormalizedBlock =
  | { kind: 'text'; text: string }
  | { kind: 'tool_use'; id: string; name: string; input: unknown }
  | { kind: 'tool_result'; toolUseId: string; text: string; isError: boolean }
  /** Sent back verbatim from an earlier answer; the server checks the signature (verify-thinking-blocks.ts). */
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted_thinking'; data: string }
  | { kind: 'other'; type: string };

export interface NormalizedMessage {
  role: 'user' | 'assistant';
  blocks: NormalizedBlock[];
}

export type ToolChoice = { type: 'auto' | 'any' | 'none'; disableParallelToolUse: boolean } | { type: 'tool'; name: string; disableParallelToolUse: boolean };

/**
 * The request's `thinking` field as the model runs it (parse-thinking-setting.ts): an omitted field
 * is `disabled` or adaptive, per model. `{type: 'adaptive'}` is `enabled` with a budget the
 * simulator chose from the effort and `adaptive: true`. `display` is the request's or the model's
 * default. `between_tools` (Sonnet 5.5) thinks nothing up front; only its progress updates come back
 * as thinking blocks, with their text.
 */
export type ThinkingSetting =
  { type: 'enabled'; budgetTokens: number; adaptive?: boolean; display: ThinkingDisplay } | { type: 'between_tools' } | { type: 'disabled' };

/** A thinking block the API removed before the model saw it (SDK BetaThinkingDroppedInputTransformation). */
export interface InputTransformation {
  type: 'thinking_dropped';
  path: string;
  reason: 'model_binding_mismatch' | 'prefix_binding_mismatch';
}

/** A message as a thinking block's binding sees it: the conversation's turns and, in their place,
 * the mid-conversation system messages (conversation-prefix.ts). */
export type BindingMessage = NormalizedMessage | { role: 'system'; blocks: NormalizedBlock[] };

export interface MessagesRequest {
  model: string;
  /** `stream: true`: answer as server-sent events (stream-message.ts). */
  stream: boolean;
  thinking: ThinkingSetting;
  maxTokens: number;
  messages: NormalizedMessage[];
  /** The tools the model may call at the end of the transcript: the declared ones minus deferred and
   * removed, plus added (available-tools.ts). The policy, the scenarios and drift call only these. */
  toolNames: string[];
  /** Every tool in the top-level `tools`, in order. */
  declaredToolNames: string[];
  /** Each custom tool's `input_schema` (an object schema), by name. */
  toolInputSchemas: Record<string, Record<string, unknown>>;
  /** Tools with `strict: true`, whose complete calls always match their schema (conform-strict-tool-inputs.ts). */
  strictTools: StrictTool[];
  /** The instructions in force for the next turn: the latest mid-conversation system message's text,
   * else the top-level `system` ("Later system messages win over earlier ones, and over the
   * top-level system field", docs build-with-claude/mid-conversation-system-messages). */
  instructions: string;
  /** Tools whose input streams as it is generated (`eager_input_streaming`, or the fine-grained
   * tool streaming beta); the others' input is buffered per parameter (stream-message.ts). */
  eagerInputStreamingTools: string[];
  /** The `anthropic-beta` header's betas (parse-beta-header.ts). */
  betas: string[];
  toolChoice: ToolChoice;
  stopSequences: string[];
  /** Characters of system prompt, messages and tools, for the input token estimate. */
  promptText: string;
  /** The prompt's tokens in the model's own tokens (count-model-tokens.ts): what usage splits by the
   * prompt cache and what `count_tokens` answers. */
  promptTokens: number;
  /** The known model the request names (model-catalog.ts). */
  modelDescription: ModelDescription;
  /** The prompt as cacheable blocks, tools → system → messages, with their breakpoints (cache-breakpoints.ts). */
  promptBlocks: PromptBlock[];
  /** `output_config.effort`, or the model's default; null on a model without effort levels (parse-effort.ts). */
  effort: EffortLevel | null;
  /** Digest of the top-level system and tools, the start of every thinking block's binding (conversation-prefix.ts). */
  bindingBase: string;
  /** Every message in the request's order, system messages included, without dropped blocks: what
   * the answer's thinking blocks are bound to (assistant-message.ts). */
  bindingMessages: BindingMessage[];
  /** The thinking blocks dropped for their binding; null without the `thinking-binding-controls` beta,
   * which alone reports them (screen-thinking-blocks.ts). */
  inputTransformations: InputTransformation[] | null;
}

/** Whether `name` is one of the request's strict tools. */
export function isStrictTool({ request, name }: { request: Pick<MessagesRequest, 'strictTools'>; name: string }): boolean {
  return request.strictTools.some((tool) => tool.name === name);
}
