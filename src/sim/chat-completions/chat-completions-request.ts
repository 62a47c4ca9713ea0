// The simulator's view of a validated `POST /v1/chat/completions` body (OpenAI API reference,
// "Create chat completion"; openai-node src/resources/chat/completions/completions.ts
// `ChatCompletionCreateParamsBase`). Only what the answer depends on is kept.
import type { ChatModel } from './chat-model-catalog.js';

export interface ChatToolCall {
  id: string;
  name: string;
  /** The JSON text the model wrote, as the client sends it back. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; text: string };

export interface ChatTool {
  name: string;
  description: string | undefined;
  /** A JSON Schema with `type: 'object'`. */
  parameters: Record<string, unknown>;
}

export type ChatToolChoice = { type: 'auto' | 'none' | 'required' } | { type: 'function'; name: string };

export interface ChatCompletionsRequest {
  model: ChatModel;
  messages: ChatMessage[];
  tools: ChatTool[];
  toolChoice: ChatToolChoice;
  /** `parallel_tool_calls` (default true): false allows at most one call per answer. */
  parallelToolCalls: boolean;
  /** `max_completion_tokens`, else the deprecated `max_tokens`; null when neither is set. */
  maxTokens: number | null;
  stop: string[];
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with `usage` and no choices. */
  includeUsage: boolean;
}
