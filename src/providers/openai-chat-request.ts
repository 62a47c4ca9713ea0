// The fleet's canonical (Anthropic-shaped) request as an OpenAI chat completions request, for
// OpenAI-compatible servers (vLLM, llama.cpp's server, Ollama, SGLang). The wire fields follow the
// OpenAI API reference (api-reference/chat/create) and the SDK's types
// (openai resources/chat/completions/completions.ts). docs/providers.md has the table.
import type OpenAI from 'openai';
import type { AssistantBlock, TranscriptMessage, UserBlock } from '../domain/model-message.js';
import type { ToolChoice } from '../domain/tool-choice.js';
import { assertNever } from '../domain/assert-never.js';
import type { ModelRequest } from '../model/model-client.js';

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
type ChatToolCall = OpenAI.Chat.ChatCompletionMessageFunctionToolCall;

/** OpenAI accepts "Up to 4 sequences where the API will stop generating further tokens"
 * (api-reference/chat/create, `stop`); vLLM and llama.cpp take more, OpenAI answers 400. */
export const MAX_STOP_SEQUENCES = 4;

/** The body fields the fleet sets (toChatCompletionRequest), which an `extraBody` must not set:
 * the model and conversation, the tools and the choice among them, the output limit and stop
 * sequences the turn's decisions rest on, streaming with usage (the answer reader's only input),
 * and `n` (the reader takes one choice). `functions`/`function_call` are the deprecated tool
 * fields, `max_completion_tokens` the newer name of `max_tokens`: either would fight the fleet's. */
export const FLEET_SET_BODY_FIELDS = [
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'stream',
  'stream_options',
  'n',
] as const;

/** The body field the output limit goes in: `max_tokens`, which every open server reads (vLLM,
 * llama.cpp's server, SGLang, and Ollama, whose compatibility layer lists no other: docs.ollama.com
 * api/openai-compatibility, "Supported request fields"), or `max_completion_tokens`, OpenAI's newer
 * name, the only one its reasoning models take (o-series, gpt-5: "max_tokens … is not compatible
 * with o-series models", api-reference/chat/create `max_tokens`; they answer 400
 * `unsupported_parameter`). The provider option `maxTokensField` picks it. */
export const MAX_TOKENS_FIELDS = ['max_tokens', 'max_completion_tokens'] as const;
export type MaxTokensField = (typeof MAX_TOKENS_FIELDS)[number];

/** A tool choice the Messages API has and the fleet may send one day (`any`: some tool). */
export type RequestToolChoice = ToolChoice | { type: 'any' };

/** How a provider's server is to be asked (its options, openai-compatible-provider.ts). */
export interface ChatRequestSettings {
  /** A server's own parameters (none of FLEET_SET_BODY_FIELDS), merged in at the top level. */
  extraBody?: Readonly<Record<string, unknown>>;
  /** The field the output limit goes in (MAX_TOKENS_FIELDS); default `max_tokens`. */
  maxTokensField?: MaxTokensField;
  /** Whether the server turns the model's calls into `tool_calls` (vLLM `--enable-auto-tool-choice
   * --tool-call-parser`); default true. Without one, a turn left to the model goes out as
   * `tool_choice: "none"` (toChatToolChoice). */
  toolParser?: boolean;
}

/** The body of one streamed chat completion; `extraBody` (a provider's option, none of
 * FLEET_SET_BODY_FIELDS) is merged in at the top level, as a server's own parameters go, and the
 * output limit goes in `maxTokensField` (MAX_TOKENS_FIELDS). */
export function toChatCompletionRequest(
  request: ModelRequest,
  model: string,
  { extraBody = {}, maxTokensField = 'max_tokens', toolParser = true }: ChatRequestSettings = {},
): OpenAI.Chat.ChatCompletionCreateParamsStreaming {
  const system = typeof request.system === 'string' ? request.system : request.system.map((block) => block.text).join('\n\n');
  return {
    // First, so the fleet's own fields win even if a caller skipped the option's schema.
    ...extraBody,
    model,
    [maxTokensField]: request.maxTokens,
    messages: [...(system === '' ? [] : [{ role: 'system' as const, content: system }]), ...request.messages.flatMap(toChatMessages)],
    ...(request.tools.length > 0
      ? {
          // cache_control (and any other Anthropic-only field of a tool) is dropped: OpenAI's
          // function tool has name, description, parameters and strict only.
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.input_schema as Record<string, unknown> },
          })),
          tool_choice: toChatToolChoice(request.toolChoice, toolParser),
        }
      : {}),
    // The first four only: OpenAI refuses a fifth (MAX_STOP_SEQUENCES). The fleet sends two
    // (stop-reason-handler.ts DEFAULT_STOP_SEQUENCES), so nothing is lost today.
    ...(request.stopSequences.length > 0 ? { stop: request.stopSequences.slice(0, MAX_STOP_SEQUENCES) } : {}),
    stream: true,
    // The usage arrives in one last chunk with no choices (api-reference/chat/create,
    // `stream_options.include_usage`); vLLM, llama.cpp, Ollama and SGLang honour it too.
    stream_options: { include_usage: true },
  };
}

/** tool_choice: auto → auto, none → none, a named tool → that function, any → required
 * (api-reference/chat/create, `tool_choice`). Without a tool parser on the server, auto → none:
 * vLLM refuses `auto` there with 400 `"auto" tool choice requires --enable-auto-tool-choice and
 * --tool-call-parser to be set` (serving_chat.py), while `none` still renders the tools into the
 * prompt (docs.vllm.ai features/tool_calling, "None Function Calling"), so the model writes its
 * call as text and the fleet's text recovery reads it; `required` and a named tool need no parser
 * (structured outputs, same page: "Named Function Calling", "Required Function Calling"). */
export function toChatToolChoice(choice: RequestToolChoice, toolParser = true): OpenAI.Chat.ChatCompletionToolChoiceOption {
  switch (choice.type) {
    case 'auto':
      return toolParser ? 'auto' : 'none';
    case 'none':
      return 'none';
    case 'any':
      return 'required';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default:
      return assertNever(choice, 'Unhandled tool choice');
  }
}

/** One transcript message as chat messages: a user message whose tool results each become a
 * `tool` message (ids verbatim), and its text a user message after them; an assistant message as
 * one assistant message with its text and its tool calls (same ids); a mid-conversation system
 * message as a chat `system` message with its text. Its tool_addition / tool_removal blocks have
 * no chat-completions counterpart and are dropped: the fleet never uses tool changes on this
 * provider (src/agent/phase-tools.ts), which gets the phase's tier in `tools` every turn. */
export function toChatMessages(message: TranscriptMessage): ChatMessage[] {
  switch (message.role) {
    case 'user':
      return userMessages(message.content);
    case 'assistant':
      return [assistantMessage(message.content)];
    case 'system': {
      const text =
        typeof message.content === 'string' ? message.content : message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
      return text === '' ? [] : [{ role: 'system', content: text }];
    }
    default:
      return assertNever(message, 'Unhandled transcript message');
  }
}

function userMessages(content: string | UserBlock[]): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const messages: ChatMessage[] = [];
  const texts: string[] = [];
  for (const block of content) {
    if (block.type === 'tool_result') {
      // A tool message answers the assistant's call of the same id; OpenAI requires every call of
      // the previous assistant message answered before anything else (api-reference/chat/create,
      // tool message `tool_call_id`). The fleet's results are text (tool-result-envelope.ts); an
      // error is already worded as one inside it, so is_error has no separate field to go to.
      messages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: block.content });
    } else if (block.type === 'text') {
      texts.push(block.text);
    }
  }
  // Text after the tool results (the fleet's notes ride with them: turn-input.ts) goes in a user
  // message of its own, after every tool message.
  if (texts.length > 0) messages.push({ role: 'user', content: texts.join('\n\n') });
  return messages;
}

function assistantMessage(content: AssistantBlock[]): ChatMessage {
  const texts: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of content) {
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'tool_use') {
      const call = block as { id: string; name: string; input: unknown };
      toolCalls.push({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) } });
    }
    // thinking and redacted_thinking are Anthropic's, signed for Anthropic's API: an OpenAI server
    // has no field for them, so they stay in the transcript and are not sent. (An open model's own
    // reasoning, where a server returns it as `reasoning_content`, is not kept: see
    // openai-chat-answer.ts.)
  }
  const text = texts.join('\n\n');
  return {
    role: 'assistant',
    // content may be null when the message carries tool calls (api-reference/chat/create).
    content: text === '' && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}
