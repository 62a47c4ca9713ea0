// The simulator's normalized view of a validated `POST /v1/messages` body. Only what the builder
// policy and the scenarios read is kept; everything else in the body is accepted and ignored.

export type NormalizedBlock =
  | { kind: 'text'; text: string }
  | { kind: 'tool_use'; id: string; name: string; input: unknown }
  | { kind: 'tool_result'; toolUseId: string; text: string; isError: boolean }
  | { kind: 'other'; type: string };

export interface NormalizedMessage {
  role: 'user' | 'assistant';
  blocks: NormalizedBlock[];
}

export type ToolChoice =
  | { type: 'auto' | 'any' | 'none'; disableParallelToolUse: boolean }
  | { type: 'tool'; name: string; disableParallelToolUse: boolean };

export interface MessagesRequest {
  model: string;
  maxTokens: number;
  messages: NormalizedMessage[];
  toolNames: string[];
  toolChoice: ToolChoice;
  stopSequences: string[];
  /** Characters of system prompt, messages and tools, for the input token estimate. */
  promptText: string;
}
