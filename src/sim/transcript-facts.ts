// Everything the builder policy and the scenarios know, read from the request's transcript alone:
// the simulator keeps no conversation state, so the transcript is the memory.
import type { NormalizedMessage } from './messages-request.js';
import { readToolOutput, type ToolOutput } from './read-tool-output.js';

export interface ToolCallRecord {
  /** Chronological index among all tool calls of the transcript. */
  position: number;
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** `pending` only for calls in a trailing assistant message. */
  outcome: 'success' | 'error' | 'pending';
  output: ToolOutput | undefined;
}

export interface TranscriptFacts {
  messageCount: number;
  assistantMessageCount: number;
  lastMessage: NormalizedMessage;
  calls: ToolCallRecord[];
  /** Every assistant text block, in order. */
  assistantTexts: string[];
  /** The first text of the first user message: the site brief as its author wrote it. Later blocks
   * of that message are the fleet's (the plan-first instruction for a model it cannot force), whose
   * quoted words — "build", "verify" — must not be read as the site's name. */
  brief: string;
}

/** Pairs every tool_use with its tool_result and collects the assistant's texts. */
export function readTranscriptFacts({ messages }: { messages: readonly NormalizedMessage[] }): TranscriptFacts {
  const calls: ToolCallRecord[] = [];
  const assistantTexts: string[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const results = new Map((messages[index + 1]?.blocks ?? []).flatMap((block) => (block.kind === 'tool_result' ? [[block.toolUseId, block] as const] : [])));
    for (const block of message.blocks) {
      if (block.kind === 'text') assistantTexts.push(block.text);
      if (block.kind !== 'tool_use') continue;
      const result = results.get(block.id);
      calls.push({
        position: calls.length,
        id: block.id,
        name: block.name,
        input: (block.input ?? {}) as Record<string, unknown>,
        outcome: result === undefined ? 'pending' : result.isError ? 'error' : 'success',
        output: result === undefined ? undefined : readToolOutput({ text: result.text }),
      });
    }
  });
  const firstMessage = messages[0];
  const lastMessage = messages[messages.length - 1];
  if (!firstMessage || !lastMessage) throw new Error('a validated transcript has at least one message');
  return {
    messageCount: messages.length,
    assistantMessageCount: messages.filter((message) => message.role === 'assistant').length,
    lastMessage,
    calls,
    assistantTexts,
    brief: firstMessage.blocks.find((block) => block.kind === 'text')?.text ?? '',
  };
}
