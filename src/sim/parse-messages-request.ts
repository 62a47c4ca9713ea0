// Validates a Messages API body the way the real API does and normalizes it. Every rule here is
// one the real API enforces, so a fleet that passes against the simulator will not get a 400 in
// production for the same transcript. Messages mirror the real API's wording where known.
import type { BindingMessage, MessagesRequest, NormalizedBlock, NormalizedMessage, ToolChoice } from './messages-request.js';
import { parseThinkingSetting, THINKING_BINDING_CONTROLS_BETA, ThinkingSettingInvalid } from './parse-thinking-setting.js';
import { checkForcedToolChoice } from './check-forced-tool-choice.js';
import { checkSamplingParameters } from './check-sampling-parameters.js';
import { EffortInvalid, parseEffort } from './parse-effort.js';
import { screenThinkingBlocks } from './screen-thinking-blocks.js';
import type { ThinkingSigner } from './thinking-signature.js';
import { CacheControlInvalid } from './cache-breakpoints.js';
import { checkExtraFields } from './check-extra-fields.js';
import { collectPromptBlocks } from './collect-prompt-blocks.js';
import { lookupServedModel, type ModelDescription } from './model-catalog.js';
import { availableTools } from './available-tools.js';
import { parseStrictTools, StrictToolInvalid } from './parse-strict-tools.js';
import { parseSystemMessage, SystemMessageInvalid, type SystemMessage } from './parse-system-message.js';
import { countModelTokens } from './count-model-tokens.js';
import { COUNT_TOKENS_REQUEST_FIELDS } from './request-fields.js';
import { FINE_GRAINED_TOOL_STREAMING_BETA, INTERLEAVED_THINKING_BETA } from './parse-beta-header.js';

/** A refusal's status: 400 invalid_request_error, or 404 not_found_error for an unknown model. */
export type ParseMessagesRequestResult = { ok: true; request: MessagesRequest } | { ok: false; status: 400 | 404; message: string };

const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** The API refuses any other tool_use id, and the tool_use_id answering it: 400 "messages.N.content.M.tool_use.id:
 * String should match pattern '^[a-zA-Z0-9_-]+$'" (the real wording, as clients report it, e.g.
 * github.com/maximhq/bifrost/issues/5097 for both fields). No length is documented, so none is enforced. */
const TOOL_USE_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const TOOL_CHOICE_TYPES = ['auto', 'any', 'tool', 'none'] as const;

class RequestInvalid extends Error {}

/** The real API answers an unknown model id with 404 not_found_error "model: <id>". */
class ModelNotFound extends Error {}

function reject(message: string): never {
  throw new RequestInvalid(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates and normalizes a parsed JSON body; the failure message is what the 400 (or 404)
 * carries. `acceptsBetaFields`: the request came with an `anthropic-beta` header, so the beta-only
 * top-level fields are known (request-fields.ts). `betas`: the header's betas (parse-beta-header.ts).
 * `apiVersion`: the `anthropic-version` header. `signer`: checks the thinking blocks sent back
 * (screen-thinking-blocks.ts); without one they are taken as they come.
 */
export function parseMessagesRequest({
  body,
  acceptsBetaFields = false,
  betas = [],
  apiVersion,
  signer,
  countingTokens = false,
}: {
  body: unknown;
  acceptsBetaFields?: boolean;
  betas?: readonly string[];
  apiVersion?: string | undefined;
  signer?: ThinkingSigner | undefined;
  /** The body of `POST /v1/messages/count_tokens`: the same validation, without `max_tokens` (docs
   * build-with-claude/token-counting; SDK MessageCountTokensParams has none). */
  countingTokens?: boolean;
}): ParseMessagesRequestResult {
  try {
    return { ok: true, request: parseBody({ body, acceptsBetaFields, betas, apiVersion, signer, countingTokens }) };
  } catch (error) {
    if (error instanceof ModelNotFound) return { ok: false, status: 404, message: error.message };
    if (
      error instanceof RequestInvalid ||
      error instanceof ThinkingSettingInvalid ||
      error instanceof CacheControlInvalid ||
      error instanceof EffortInvalid ||
      error instanceof SystemMessageInvalid ||
      error instanceof StrictToolInvalid
    ) {
      return { ok: false, status: 400, message: error.message };
    }
    throw error;
  }
}

function parseBody({
  body,
  acceptsBetaFields,
  betas,
  apiVersion,
  signer,
  countingTokens,
}: {
  body: unknown;
  acceptsBetaFields: boolean;
  betas: readonly string[];
  apiVersion: string | undefined;
  signer: ThinkingSigner | undefined;
  countingTokens: boolean;
}): MessagesRequest {
  if (!isRecord(body)) reject('request body must be a JSON object');
  const extraField = checkExtraFields({ body, acceptsBetaFields, ...(countingTokens ? { topLevelFields: COUNT_TOKENS_REQUEST_FIELDS } : {}) });
  if (extraField !== null) reject(extraField);
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') reject('stream: Input should be a valid boolean');

  if (!('model' in body) || body.model === undefined || body.model === null) reject('model: Field required');
  if (typeof body.model !== 'string') reject('model: Input should be a valid string');
  if (body.model.trim() === '') reject('model: String should have at least 1 character');

  if (!countingTokens) {
    if (body.max_tokens === undefined || body.max_tokens === null) reject('max_tokens: Field required');
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
      reject('max_tokens: Input should be a valid integer');
    }
    if (body.max_tokens < 1) reject('max_tokens: Input should be greater than or equal to 1');
  }
  const modelDescription = lookupServedModel({ model: body.model });
  if (!modelDescription) throw new ModelNotFound(`model: ${body.model}`);
  // Counting has no output; the model's own ceiling stands in wherever a rule weighs max_tokens.
  const maxTokens = countingTokens ? modelDescription.maxOutputTokens : (body.max_tokens as number);
  // The real wording: "max_tokens: 128001 > 64000, which is the maximum allowed number of output
  // tokens for claude-opus-4-5-20251101" (docs about-claude/models/overview, "Max output").
  if (maxTokens > modelDescription.maxOutputTokens) {
    reject(`max_tokens: ${maxTokens} > ${modelDescription.maxOutputTokens}, which is the maximum allowed number of output tokens for ${modelDescription.id}`);
  }

  checkSampling(body);
  const effort = parseEffort({ outputConfig: body.output_config, model: modelDescription });
  const { setting: thinking, prefixMismatchBehavior } = parseThinkingSetting({
    thinking: body.thinking,
    model: modelDescription,
    maxTokens,
    effort,
    betas,
    interleavedThinking: betas.includes(INTERLEAVED_THINKING_BETA),
  });
  const systemPrompt = parseSystem(body.system);
  const stopSequences = parseStopSequences(body.stop_sequences);
  const toolNames = parseTools(body.tools);
  const deferredTools = deferredToolsOf(body.tools);
  const strictTools = parseStrictTools({ tools: body.tools, model: modelDescription });
  const eagerInputStreamingTools = eagerInputStreamingToolsOf(body.tools, betas);
  const toolChoice = parseToolChoice(body.tool_choice, toolNames);
  const forcedProblem = checkForcedToolChoice({ toolChoice, thinking, model: modelDescription });
  if (forcedProblem) reject(forcedProblem);
  const samplingProblem = checkSamplingParameters({ body, model: modelDescription, thinking, apiVersion });
  if (samplingProblem) reject(samplingProblem);
  const {
    conversation: sentMessages,
    systemMessages,
    bindingMessages: sentBindingMessages,
  } = parseMessages(body.messages, {
    model: modelDescription,
    betas,
    declaredTools: toolNames,
  });
  // "This model does not support assistant message prefill. The conversation must end with a user
  // message." (models/sonnet-5-5/migration-guide; the models in model-catalog.ts `refusesPrefill`).
  if (modelDescription.refusesPrefill && sentMessages[sentMessages.length - 1]?.role === 'assistant') {
    reject('This model does not support assistant message prefill. The conversation must end with a user message.');
  }
  const available = availableTools({ declared: toolNames, deferred: deferredTools, systemMessages });
  // Not documented; chosen so the model never calls a tool outside the available set: forcing a
  // removed or still-deferred tool is refused rather than answered with a call to it.
  if (toolChoice.type === 'tool' && !available.includes(toolChoice.name)) {
    reject(`tool_choice.name: Tool '${toolChoice.name}' is not available at this point of the conversation (removed or deferred)`);
  }
  const tools = Array.isArray(body.tools) ? body.tools.map((tool: Record<string, unknown>) => ({ ...tool, cache_control: undefined })) : [];
  const bindingBase = JSON.stringify([systemPrompt, tools]);
  const bindingBeta = betas.includes(THINKING_BINDING_CONTROLS_BETA);
  // Screened over every message in the request's order, system messages included: editing one
  // invalidates the thinking blocks after it (build-with-claude/mid-conversation-system-messages),
  // and the paths the errors name are the request's own indices.
  const screened = signer
    ? screenThinkingBlocks({ messages: sentBindingMessages, bindingBase, model: modelDescription, signer, prefixMismatchBehavior, bindingBeta })
    : { ok: true as const, messages: sentBindingMessages, droppedPaths: new Set<string>(), transformations: [] };
  if (!screened.ok) reject(screened.message);
  const bindingMessages = screened.messages;
  const messages = bindingMessages.filter((message): message is NormalizedMessage => message.role !== 'system');
  // Dropped blocks are not input: the prompt is collected without them.
  const promptBody = screened.droppedPaths.size === 0 ? body : withoutBlocks(body, screened.droppedPaths);
  const promptBlocks = collectPromptBlocks({
    body: promptBody,
    toolChoice,
    thinking,
    keepsThinkingOfEarlierTurns: modelDescription.keepsThinkingOfEarlierTurns,
  });
  const promptText = promptBlocks.map((block) => block.text).join('');
  // In the model's own tokens (count-model-tokens.ts): the same prompt fills more of the window on the newer tokenizer.
  const promptTokens = Math.max(1, countModelTokens({ characters: promptText.length, model: modelDescription }));
  // The real wording: "prompt is too long: 208310 tokens > 200000 maximum" (docs
  // build-with-claude/context-windows: the prompt must fit the model's context window).
  if (promptTokens > modelDescription.contextWindowTokens) {
    reject(`prompt is too long: ${promptTokens} tokens > ${modelDescription.contextWindowTokens} maximum`);
  }
  // prompt + max_tokens beyond the window is accepted on every model still served: "On Claude 4.5
  // models and newer … the API accepts the request" and stops with model_context_window_exceeded
  // (build-with-claude/extended-thinking, "Max tokens and context window size"); the models that
  // answered 400 instead (Claude 3.7 Sonnet, the Claude 4 models before 4.5) are retired.

  return {
    model: body.model,
    stream: body.stream === true,
    thinking,
    maxTokens,
    messages,
    toolNames: available,
    declaredToolNames: toolNames,
    toolInputSchemas: inputSchemasOf(body.tools),
    strictTools,
    instructions: systemMessages.findLast((message) => message.text !== '')?.text ?? systemPrompt,
    eagerInputStreamingTools,
    betas: [...betas],
    toolChoice,
    stopSequences,
    promptText,
    promptTokens,
    modelDescription,
    promptBlocks,
    effort,
    bindingBase,
    inputTransformations: bindingBeta && modelDescription.thinkingTypes.length > 0 ? screened.transformations : null,
    bindingMessages,
  };
}

/** The body without the message content blocks at `paths` ("messages.N.content.M"). */
function withoutBlocks(body: Record<string, unknown>, paths: ReadonlySet<string>): Record<string, unknown> {
  const messages = (body.messages as Array<Record<string, unknown>>).map((message, messageIndex) =>
    Array.isArray(message.content)
      ? { ...message, content: message.content.filter((_block: unknown, blockIndex: number) => !paths.has(`messages.${messageIndex}.content.${blockIndex}`)) }
      : message,
  );
  return { ...body, messages };
}

function checkSampling(body: Record<string, unknown>): void {
  for (const field of ['temperature', 'top_p'] as const) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number') reject(`${field}: Input should be a valid number`);
    if (value < 0) reject(`${field}: Input should be greater than or equal to 0`);
    if (value > 1) reject(`${field}: Input should be less than or equal to 1`);
  }
  const topK = body.top_k;
  if (topK !== undefined && topK !== null && (typeof topK !== 'number' || !Number.isInteger(topK))) reject('top_k: Input should be a valid integer');
}

function parseSystem(system: unknown): string {
  if (system === undefined || system === null) return '';
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) reject('system: Input should be a valid string or list of text blocks');
  return system
    .map((block, index) => {
      if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') {
        reject(`system.${index}: Input should be a text block`);
      }
      if (block.text === '') reject(`system.${index}.text: text content blocks must be non-empty`);
      return block.text;
    })
    .join('\n');
}

function parseStopSequences(stopSequences: unknown): string[] {
  if (stopSequences === undefined || stopSequences === null) return [];
  if (!Array.isArray(stopSequences)) reject('stop_sequences: Input should be a valid list');
  return stopSequences.map((sequence, index) => {
    if (typeof sequence !== 'string') reject(`stop_sequences.${index}: Input should be a valid string`);
    if (sequence.trim() === '') reject(`stop_sequences.${index}: stop sequences must contain non-whitespace`);
    return sequence;
  });
}

function parseTools(tools: unknown): string[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) reject('tools: Input should be a valid list');
  const names: string[] = [];
  tools.forEach((tool, index) => {
    if (!isRecord(tool)) reject(`tools.${index}: Input should be a valid dictionary`);
    if (typeof tool.name !== 'string') reject(`tools.${index}.name: Field required`);
    if (!TOOL_NAME_PATTERN.test(tool.name)) {
      reject(`tools.${index}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    }
    // Only custom tools (no type, or type 'custom') need a schema; server tools carry a versioned type.
    const isCustomTool = tool.type === undefined || tool.type === null || tool.type === 'custom';
    if (isCustomTool) {
      if (tool.input_schema === undefined) reject(`tools.${index}.input_schema: Field required`);
      if (!isRecord(tool.input_schema)) reject(`tools.${index}.input_schema: Input should be a valid dictionary`);
      if (tool.input_schema.type !== 'object') reject(`tools.${index}.input_schema.type: Input should be 'object'`);
    }
    if (names.includes(tool.name)) reject(`tools: Tool names must be unique. Duplicate name: '${tool.name}'`);
    names.push(tool.name);
  });
  return names;
}

/** Each custom tool's input_schema by name (parseTools checked each is an object schema). */
function inputSchemasOf(tools: unknown): Record<string, Record<string, unknown>> {
  if (!Array.isArray(tools)) return {};
  return Object.fromEntries(tools.flatMap((tool: Record<string, unknown>) => (isRecord(tool.input_schema) ? [[tool.name as string, tool.input_schema]] : [])));
}

/**
 * The tools whose input streams as generated: `eager_input_streaming: true`, or unset with the
 * fine-grained tool streaming beta; `false` turns it off even with the beta (SDK Tool
 * .eager_input_streaming: "When false, streaming is disabled for this tool even if the
 * fine-grained-tool-streaming beta is active. When null (default), uses the default behavior based
 * on beta headers.").
 */
/** Tools declared with `defer_loading: true`: withheld until a tool_addition surfaces them (available-tools.ts). */
function deferredToolsOf(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: Record<string, unknown>, index) => {
    const setting = tool.defer_loading;
    if (setting !== undefined && setting !== null && typeof setting !== 'boolean')
      reject(`tools.${index}.custom.defer_loading: Input should be a valid boolean`);
    return setting === true ? [String(tool.name)] : [];
  });
}

function eagerInputStreamingToolsOf(tools: unknown, betas: readonly string[]): string[] {
  if (!Array.isArray(tools)) return [];
  const betaOn = betas.includes(FINE_GRAINED_TOOL_STREAMING_BETA);
  const eager: string[] = [];
  tools.forEach((tool: Record<string, unknown>, index) => {
    const setting = tool.eager_input_streaming;
    if (setting !== undefined && setting !== null && typeof setting !== 'boolean') {
      reject(`tools.${index}.custom.eager_input_streaming: Input should be a valid boolean`);
    }
    if (setting === true || ((setting === undefined || setting === null) && betaOn)) eager.push(String(tool.name));
  });
  return eager;
}

function parseToolChoice(toolChoice: unknown, toolNames: readonly string[]): ToolChoice {
  if (toolChoice === undefined || toolChoice === null) return { type: 'auto', disableParallelToolUse: false };
  if (!isRecord(toolChoice)) reject('tool_choice: Input should be a valid dictionary');
  const type = toolChoice.type;
  if (typeof type !== 'string' || !(TOOL_CHOICE_TYPES as readonly string[]).includes(type)) {
    reject(`tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none' (got ${JSON.stringify(type)})`);
  }
  const disable = toolChoice.disable_parallel_tool_use;
  if (disable !== undefined && typeof disable !== 'boolean') {
    reject('tool_choice.disable_parallel_tool_use: Input should be a valid boolean');
  }
  const disableParallelToolUse = disable === true;
  if ((type === 'any' || type === 'tool') && toolNames.length === 0) {
    reject('tool_choice: tool_choice may only be specified while providing tools');
  }
  if (type === 'tool') {
    if (typeof toolChoice.name !== 'string' || toolChoice.name === '') reject('tool_choice.name: Field required');
    if (!toolNames.includes(toolChoice.name)) {
      reject(`tool_choice.name: Tool '${toolChoice.name}' not found in the provided tools`);
    }
    return { type: 'tool', name: toolChoice.name, disableParallelToolUse };
  }
  return { type: type as 'auto' | 'any' | 'none', disableParallelToolUse };
}

function parseMessages(
  messages: unknown,
  context: { model: ModelDescription; betas: readonly string[]; declaredTools: readonly string[] },
): { conversation: NormalizedMessage[]; systemMessages: SystemMessage[]; bindingMessages: BindingMessage[] } {
  if (messages === undefined || messages === null) reject('messages: Field required');
  if (!Array.isArray(messages)) reject('messages: Input should be a valid list');
  if (messages.length === 0) reject('messages: at least one message is required');

  // System messages sit between the turns (parse-system-message.ts); the turns alternate around them.
  const systemMessages: SystemMessage[] = [];
  const conversation: NormalizedMessage[] = [];
  const positions: number[] = [];
  // Every message in the request's order, system messages as their text and tool changes: what a
  // thinking block's binding covers (conversation-prefix.ts).
  const bindingMessages: BindingMessage[] = [];
  messages.forEach((message, index) => {
    if (isRecord(message) && message.role === 'system') {
      const system = parseSystemMessage({ messages, index, ...context });
      systemMessages.push(system);
      bindingMessages.push({
        role: 'system',
        blocks: [
          { kind: 'text', text: system.text },
          ...system.toolChanges.map((change) => ({ kind: 'other' as const, type: `tool_${change.kind}:${change.name}` })),
        ],
      });
      return;
    }
    const parsed = parseMessage(message, index, index === messages.length - 1);
    conversation.push(parsed);
    bindingMessages.push(parsed);
    positions.push(index);
  });

  conversation.forEach((message, index) => {
    if (index === 0 && message.role !== 'user') reject(`messages.${positions[0]}.role: the first message must use the "user" role`);
    const previous = conversation[index - 1];
    if (previous && previous.role === message.role) {
      reject(
        `messages.${positions[index]}.role: roles must alternate between "user" and "assistant", ` + `but found multiple "${message.role}" roles in a row`,
      );
    }
  });
  checkToolPairing(conversation, positions);
  return { conversation, systemMessages, bindingMessages };
}

function parseMessage(message: unknown, index: number, isLast: boolean): NormalizedMessage {
  if (!isRecord(message)) reject(`messages.${index}: Input should be a valid dictionary`);
  const role = message.role;
  if (role !== 'user' && role !== 'assistant') {
    reject(`messages.${index}.role: Input should be 'user', 'assistant' or 'system'`);
  }
  const content = message.content;
  const emptyContentMessage = `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
  const mayBeEmpty = isLast && role === 'assistant';

  if (typeof content === 'string') {
    if (content === '' && !mayBeEmpty) reject(emptyContentMessage);
    if (content !== '' && content.trim() === '') reject(`messages.${index}.content: text content must contain non-whitespace text`);
    if (isLast && role === 'assistant' && content !== content.trimEnd()) {
      reject('final assistant content cannot end with trailing whitespace');
    }
    return { role, blocks: content === '' ? [] : [{ kind: 'text', text: content }] };
  }
  if (!Array.isArray(content)) {
    reject(`messages.${index}.content: Input should be a valid string or list of content blocks`);
  }
  if (content.length === 0 && !mayBeEmpty) reject(emptyContentMessage);

  const blocks = content.map((block, blockIndex) => parseBlock(block, `messages.${index}.content.${blockIndex}`, role));

  let sawNonResult = false;
  blocks.forEach((block, blockIndex) => {
    if (block.kind === 'tool_result' && sawNonResult) {
      reject(`messages.${index}.content.${blockIndex}: tool_result blocks must come first in the user message content, before any other content`);
    }
    if (block.kind !== 'tool_result') sawNonResult = true;
  });

  if (isLast && role === 'assistant') {
    const lastBlock = blocks[blocks.length - 1];
    if (lastBlock?.kind === 'text' && lastBlock.text !== lastBlock.text.trimEnd()) {
      reject('final assistant content cannot end with trailing whitespace');
    }
  }
  return { role, blocks };
}

function parseBlock(block: unknown, path: string, role: 'user' | 'assistant'): NormalizedBlock {
  if (!isRecord(block) || typeof block.type !== 'string') reject(`${path}: Input should be a content block with a type`);
  switch (block.type) {
    case 'text': {
      if (typeof block.text !== 'string') reject(`${path}.text: Field required`);
      if (block.text === '') reject(`${path}.text: text content blocks must be non-empty`);
      if (block.text.trim() === '') reject(`${path}.text: text content blocks must contain non-whitespace text`);
      return { kind: 'text', text: block.text };
    }
    case 'tool_use': {
      if (role !== 'assistant') reject(`${path}: tool_use blocks are only allowed in assistant messages`);
      if (typeof block.id !== 'string' || block.id === '') reject(`${path}.id: Field required`);
      if (!TOOL_USE_ID_PATTERN.test(block.id)) reject(`${path}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof block.name !== 'string' || block.name === '') reject(`${path}.name: Field required`);
      if (!isRecord(block.input)) reject(`${path}.input: Input should be a valid dictionary`);
      return { kind: 'tool_use', id: block.id, name: block.name, input: block.input };
    }
    case 'tool_result': {
      if (role !== 'user') reject(`${path}: tool_result blocks are only allowed in user messages`);
      if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') reject(`${path}.tool_use_id: Field required`);
      if (!TOOL_USE_ID_PATTERN.test(block.tool_use_id)) reject(`${path}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean') {
        reject(`${path}.is_error: Input should be a valid boolean`);
      }
      return { kind: 'tool_result', toolUseId: block.tool_use_id, text: toolResultText(block.content, path), isError: block.is_error === true };
    }
    case 'thinking': {
      // Thinking blocks come only from the model and go back unchanged (docs extended-thinking,
      // "Preserving thinking blocks"); the server checks the signature with its secret.
      if (role !== 'assistant') reject(`${path}: thinking blocks are only allowed in assistant messages`);
      if (typeof block.thinking !== 'string') reject(`${path}.thinking: Field required`);
      if (typeof block.signature !== 'string') reject(`${path}.signature: Field required`);
      return { kind: 'thinking', thinking: block.thinking, signature: block.signature };
    }
    case 'redacted_thinking': {
      if (role !== 'assistant') reject(`${path}: redacted_thinking blocks are only allowed in assistant messages`);
      if (typeof block.data !== 'string') reject(`${path}.data: Field required`);
      return { kind: 'redacted_thinking', data: block.data };
    }
    case 'tool_addition':
    case 'tool_removal':
      return reject(`${path}: ${block.type} blocks are only allowed in system messages`);
    default:
      return { kind: 'other', type: block.type };
  }
}

function toolResultText(content: unknown, path: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) reject(`${path}.content: Input should be a valid string or list of content blocks`);
  return content
    .map((inner, index) => {
      if (!isRecord(inner) || typeof inner.type !== 'string') reject(`${path}.content.${index}: Input should be a content block with a type`);
      if (inner.type !== 'text') return '';
      if (typeof inner.text !== 'string') reject(`${path}.content.${index}.text: Field required`);
      if (inner.text === '') reject(`${path}.content.${index}.text: text content blocks must be non-empty`);
      return inner.text;
    })
    .filter((text) => text !== '')
    .join('\n');
}

/** `positions`: each message's index in the request (system messages left out in between). */
function checkToolPairing(messages: readonly NormalizedMessage[], positions: readonly number[]): void {
  const seenToolUseIds = new Set<string>();
  messages.forEach((message, at) => {
    const index = positions[at] ?? at;
    if (message.role === 'assistant') {
      const ids: string[] = [];
      message.blocks.forEach((block, blockIndex) => {
        if (block.kind !== 'tool_use') return;
        if (seenToolUseIds.has(block.id)) reject(`messages.${index}.content.${blockIndex}: tool_use ids must be unique (duplicate: ${block.id})`);
        seenToolUseIds.add(block.id);
        ids.push(block.id);
      });
      const next = messages[at + 1];
      // A trailing assistant message is a prefill/continuation; nothing can answer it yet.
      if (!next || ids.length === 0) return;
      const answered = new Set(next.blocks.flatMap((block) => (block.kind === 'tool_result' ? [block.toolUseId] : [])));
      const unanswered = ids.filter((id) => !answered.has(id));
      if (unanswered.length > 0) {
        reject(
          `messages.${positions[at + 1] ?? index + 1}: tool_use ids were found without tool_result blocks immediately after: ${unanswered.join(', ')}. ` +
            'Each tool_use block must have a corresponding tool_result block in the next message.',
        );
      }
      return;
    }
    const previous = messages[at - 1];
    const offered = new Set(previous?.role === 'assistant' ? previous.blocks.flatMap((block) => (block.kind === 'tool_use' ? [block.id] : [])) : []);
    const answeredHere = new Set<string>();
    message.blocks.forEach((block, blockIndex) => {
      if (block.kind !== 'tool_result') return;
      if (!offered.has(block.toolUseId)) {
        reject(
          `messages.${index}.content.${blockIndex}: unexpected tool_use_id found in tool_result blocks: ${block.toolUseId}. ` +
            'Each tool_result block must have a corresponding tool_use block in the previous message.',
        );
      }
      if (answeredHere.has(block.toolUseId)) {
        reject(`messages.${index}.content.${blockIndex}: each tool_use must have a single result (duplicate tool_result for ${block.toolUseId})`);
      }
      answeredHere.add(block.toolUseId);
    });
  });
}
