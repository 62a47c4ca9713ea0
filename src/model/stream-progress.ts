// Progress of one streamed answer, for the run's `model-progress` events: how much the model has
// written so far, in what kind of block, and which tool it is writing. Throttled so a long answer
// adds a handful of events, not one per delta; a tool_use block starting is always reported
// because it says what the turn is about to do.
import type Anthropic from '@anthropic-ai/sdk';
import { estimateTextTokens, type Tokenizer } from '../domain/estimate-text-tokens.js';

export interface ModelStreamProgress {
  /** Output tokens so far: message_delta's count when the stream has sent one, else about
   * the estimate of the deltas' characters (text, tool input JSON, thinking) in the model's
   * tokenizer (domain/estimate-text-tokens.ts). */
  outputTokens: number;
  /** Whether outputTokens is the API's count or the estimate. */
  estimated: boolean;
  /** The block being written: text, tool_use, thinking, redacted_thinking, … */
  blockKind: string | null;
  /** The tool of the tool_use block being written. */
  tool: string | null;
  /** Content blocks started so far. */
  blocks: number;
  /** Milliseconds since the tracker began (the call started). */
  elapsedMs: number;
  /** Why this report: the throttle interval passed, or a tool_use block started. */
  reason: 'interval' | 'tool_start';
}

export interface StreamProgressTracker {
  /** Feeds one stream event; returns a report when one is due. */
  observe(event: Anthropic.MessageStreamEvent): ModelStreamProgress | null;
  /** Output tokens so far: the API's count when a message_delta gave one, else the estimate. */
  outputTokensSoFar(): number;
}

export function createStreamProgressTracker({
  intervalMs,
  tokenizer,
  now = () => performance.now(),
}: {
  intervalMs: number;
  /** The model's tokenizer generation, for the estimate before the API's count arrives. */
  tokenizer: Tokenizer;
  now?: () => number;
}): StreamProgressTracker {
  const started = now();
  let lastReport = started;
  let characters = 0;
  let reportedTokens: number | null = null;
  let blockKind: string | null = null;
  let tool: string | null = null;
  let blocks = 0;
  const report = (reason: ModelStreamProgress['reason']): ModelStreamProgress => {
    lastReport = now();
    const estimate = estimateTextTokens({ characters, tokenizer });
    return {
      outputTokens: reportedTokens ?? estimate,
      estimated: reportedTokens === null,
      blockKind,
      tool,
      blocks,
      elapsedMs: Math.round(lastReport - started),
      reason,
    };
  };
  return {
    outputTokensSoFar: () => reportedTokens ?? estimateTextTokens({ characters, tokenizer }),
    observe(event) {
      switch (event.type) {
        case 'content_block_start': {
          blocks += 1;
          blockKind = event.content_block.type;
          tool = event.content_block.type === 'tool_use' ? event.content_block.name : null;
          if (event.content_block.type === 'tool_use') return report('tool_start');
          break;
        }
        case 'content_block_delta': {
          const delta = event.delta;
          if (delta.type === 'text_delta') characters += delta.text.length;
          else if (delta.type === 'input_json_delta') characters += delta.partial_json.length;
          else if (delta.type === 'thinking_delta') characters += delta.thinking.length;
          break;
        }
        case 'message_start':
          // Usually 1 at the start: the message so far, not a running count.
          break;
        case 'message_delta':
          reportedTokens = event.usage.output_tokens;
          break;
        case 'content_block_stop':
        case 'message_stop':
          break;
      }
      return now() - lastReport >= intervalMs ? report('interval') : null;
    },
  };
}
