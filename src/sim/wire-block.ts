// A content block as it goes over the wire: ids and signatures attached, tool input kept as the JSON
// text the model wrote (so a cut-off call can be streamed as the real API streams it). Both the
// Message body (assistant-message.ts) and the event stream (stream-message.ts) are made from these.
import { assertNever } from '../domain/assert-never.js';
import { partialParse } from '@anthropic-ai/sdk/_vendor/partial-json-parser/parser';

export type WireBlock =
  | { type: 'text'; text: string }
  /** `hiddenCharacters`: reasoning generated but sent with empty text (display `omitted`), billed as output. */
  | { type: 'thinking'; thinking: string; signature: string; hiddenCharacters: number }
  /** `hiddenCharacters`: the size of the reasoning it hides, which the output token count includes. */
  | { type: 'redacted_thinking'; data: string; hiddenCharacters: number }
  /** `complete` false: the JSON was cut off by max_tokens. */
  | { type: 'tool_use'; id: string; name: string; inputJson: string; complete: boolean };

/** Characters the block costs in output (the token estimate divides by 4, token-estimate.ts). */
export function outputCharactersOf(block: WireBlock): number {
  switch (block.type) {
    case 'text':
      return block.text.length;
    case 'thinking':
      return block.thinking.length + block.hiddenCharacters;
    case 'redacted_thinking':
      return block.hiddenCharacters;
    case 'tool_use':
      return block.inputJson.length;
    default:
      return assertNever(block, 'unexpected wire block');
  }
}

/**
 * The input a tool_use block carries. A cut-off call carries what the SDK's own partial-JSON parser
 * reads from the cut text (MessageStream accumulates input_json_delta with it, see the SDK's
 * internal/message-stream-utils.ts), so a streamed and a non-streamed answer hold the same input.
 */
export function toolInputOf(block: Extract<WireBlock, { type: 'tool_use' }>): Record<string, unknown> {
  if (block.inputJson === '') return {};
  const parsed: unknown = block.complete ? JSON.parse(block.inputJson) : partialParse(block.inputJson);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
