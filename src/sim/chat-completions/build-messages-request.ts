// A validated chat completions request as the simulator's internal (Messages-shaped) request, so
// the same builder policy, scenarios and text-call drift decide the turn for both endpoints. The
// transcript is converted the way an OpenAI-compatible server feeds a chat template: system and
// developer messages become the system prompt; an assistant's `tool_calls` become tool_use blocks
// (arguments parsed from their JSON text); each `tool` message becomes a tool_result answering its
// `tool_call_id`; consecutive messages of one side merge into one turn. The result then goes through
// the Messages endpoint's own parser (parse-messages-request.ts), which also splits the prompt into
// cacheable blocks: one automatic breakpoint on the last block stands for OpenAI's automatic prompt
// caching ("Caching is enabled automatically for prompts that are 1024 tokens or longer", docs
// guides/prompt-caching), which vLLM's automatic prefix caching matches in effect.
import { createHash } from 'node:crypto';
import type { MessagesRequest } from '../messages-request.js';
import { parseMessagesRequest } from '../parse-messages-request.js';
import { estimateTokens } from '../token-estimate.js';
import type { ChatCompletionsRequest, ChatMessage } from './chat-completions-request.js';
import { ChatRequestRefused } from './openai-error.js';

/** The internal request's ids must match the Messages API's pattern; OpenAI's may be anything. */
const INTERNAL_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
/** Stands in for a transcript with no user message (a system prompt alone), which a chat template renders but the Messages shape cannot. */
const EMPTY_USER_TEXT = '(no user message)';

type Block = Record<string, unknown>;
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/** A tool_call id as the internal transcript carries it: itself when it fits the pattern, else a stable digest of it. */
export function internalToolCallId(id: string): string {
  return INTERNAL_ID_PATTERN.test(id) ? id : `call_sim_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // A chat template renders whatever text it was given; the builder reads no input it cannot parse.
    return {};
  }
}

function blocksOf(message: Exclude<ChatMessage, { role: 'system' }>): Block[] {
  switch (message.role) {
    case 'user':
      return message.text.trim() === '' ? [] : [{ type: 'text', text: message.text }];
    case 'tool':
      return [{ type: 'tool_result', tool_use_id: internalToolCallId(message.toolCallId), content: message.text }];
    case 'assistant':
      return [
        ...(message.text.trim() === '' ? [] : [{ type: 'text', text: message.text }]),
        ...message.toolCalls.map((call) => ({ type: 'tool_use', id: internalToolCallId(call.id), name: call.name, input: parseArguments(call.arguments) })),
      ];
    default:
      return [];
  }
}

function toTurns(messages: readonly ChatMessage[]): Turn[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = blocksOf(message);
    if (content.length === 0) continue;
    const previous = turns[turns.length - 1];
    if (previous?.role === role) previous.content.push(...content);
    else turns.push({ role, content });
  }
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', content: [{ type: 'text', text: EMPTY_USER_TEXT }] });
  // A trailing assistant message is a prefix the answer continues; the Messages shape refuses trailing whitespace there.
  const last = turns[turns.length - 1];
  const lastBlock = last?.content[last.content.length - 1];
  if (last?.role === 'assistant' && lastBlock?.type === 'text') {
    const trimmed = String(lastBlock.text).trimEnd();
    if (trimmed === '') last.content.pop();
    else lastBlock.text = trimmed;
    if (last.content.length === 0) turns.pop();
  }
  return turns;
}

function toolChoiceOf(request: ChatCompletionsRequest): Block | undefined {
  if (request.tools.length === 0) return undefined;
  const disable_parallel_tool_use = !request.parallelToolCalls;
  switch (request.toolChoice.type) {
    case 'auto':
    case 'none':
      return { type: request.toolChoice.type, disable_parallel_tool_use };
    case 'required':
      return { type: 'any', disable_parallel_tool_use };
    case 'function':
      return { type: 'tool', name: request.toolChoice.name, disable_parallel_tool_use };
    default:
      return undefined;
  }
}

/** The internal request for a chat completions request; refuses a prompt the model's window cannot hold. */
export function buildMessagesRequest({ request }: { request: ChatCompletionsRequest }): MessagesRequest {
  const { model } = request;
  const system = request.messages.flatMap((message) => (message.role === 'system' && message.text.trim() !== '' ? [message.text] : [])).join('\n\n');
  const toolChoice = toolChoiceOf(request);
  // The internal limit only bounds the simulated output (cut-at-max-tokens.ts); the request's own
  // limit is checked against the window below, as the server checks it.
  const internalMaxTokens = Math.min(request.maxTokens ?? Number.POSITIVE_INFINITY, model.description.maxOutputTokens, model.maxOutputTokens);
  const body: Record<string, unknown> = {
    model: model.internalModel,
    max_tokens: Math.max(1, Math.min(internalMaxTokens, model.description.maxOutputTokens)),
    messages: toTurns(request.messages),
    cache_control: { type: 'ephemeral' },
    ...(system === '' ? {} : { system }),
    ...(request.tools.length === 0
      ? {}
      : {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            input_schema: tool.parameters,
          })),
        }),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    // The Messages shape refuses whitespace-only stop sequences, which the chat API accepts ("\n").
    ...(request.stop.some((sequence) => sequence.trim() !== '') ? { stop_sequences: request.stop.filter((sequence) => sequence.trim() !== '') } : {}),
  };
  const parsed = parseMessagesRequest({ body });
  if (!parsed.ok) throw refusalFor(parsed.message);
  const promptTokens = estimateTokens({ text: parsed.request.promptText });
  checkContextWindow({ request, promptTokens });
  const maxTokens = request.maxTokens ?? (model.openWeights ? Math.max(1, model.contextWindowTokens - promptTokens) : model.maxOutputTokens);
  return {
    ...parsed.request,
    model: model.name,
    stream: request.stream,
    maxTokens: Math.min(maxTokens, parsed.request.maxTokens),
    modelDescription: model.description,
  };
}

function checkContextWindow({ request, promptTokens }: { request: ChatCompletionsRequest; promptTokens: number }): void {
  const window = request.model.contextWindowTokens;
  // OpenAI's wording for a prompt over the window (code context_length_exceeded).
  if (promptTokens > window) {
    throw new ChatRequestRefused({
      message:
        `This model's maximum context length is ${window} tokens. However, your messages ` +
        `resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
      param: 'messages',
      code: 'context_length_exceeded',
    });
  }
  // vLLM holds prompt + max_tokens to max_model_len (vllm/entrypoints/openai/serving_engine.py
  // `_validate_input`), in these words.
  if (request.model.openWeights && request.maxTokens !== null && promptTokens + request.maxTokens > window) {
    throw new ChatRequestRefused({
      message:
        `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens + request.maxTokens} tokens ` +
        `(${promptTokens} in the messages, ${request.maxTokens} in the completion). Please reduce the length of the messages or completion.`,
      param: 'messages',
      code: 'context_length_exceeded',
    });
  }
}

/** A refusal of the internal parser: the Claude model's own window, or a transcript the conversion could not express. */
function refusalFor(message: string): ChatRequestRefused {
  const tooLong = /^prompt is too long: (\d+) tokens > (\d+) maximum/.exec(message);
  if (tooLong) {
    return new ChatRequestRefused({
      message:
        `This model's maximum context length is ${tooLong[2]} tokens. However, your ` +
        `messages resulted in ${tooLong[1]} tokens. Please reduce the length of the messages.`,
      param: 'messages',
      code: 'context_length_exceeded',
    });
  }
  return new ChatRequestRefused({ message, param: 'messages' });
}
