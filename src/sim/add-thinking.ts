// With thinking enabled an answer that starts an assistant turn starts with a thinking block (docs
// build-with-claude/extended-thinking: "the response will include thinking content blocks …
// followed by text/tool_use"), bent answers included, so a fleet sees the real shape on every stop
// reason. An answer that continues a tool-use loop (the last user message holds only tool results)
// thinks only with interleaved thinking (assistant-turn.ts): without it "Claude thinks once at the
// start of the assistant turn". The `redacted_thinking` scenario makes the run's first answer carry a redacted_thinking
// block instead ("Thinking redaction": some reasoning comes back encrypted and must be passed back
// unchanged). An answer that continues a trailing assistant message (pause_turn / max_tokens
// continuation) adds none: the message it extends already starts with one. A forced tool call
// thinks nothing ("a forced tool call skips thinking", models/fable-5-1/whats-new-fable-5-1; Haiku
// 5.5: "no thinking block", models/haiku-5-5/migration-guide), and `between_tools` thinks nothing up
// front (models/sonnet-5-5/migration-guide). The block's text goes out only with display
// `summarized`; `omitted` and `updates` send reasoning with empty text and a signature
// (build-with-claude/thinking#controlling-thinking-display). How much it thinks follows the effort
// (compose-thinking.ts).
import { composeThinking } from './compose-thinking.js';
import type { MessagesRequest } from './messages-request.js';
import type { ResponsePlan } from './response-plan.js';
import type { ScenarioName } from '../domain/scenario-names.js';
import type { SiteSize } from './site-plan.js';
import type { TranscriptFacts } from './transcript-facts.js';
import { holdsOnlyToolResults, thinksBetweenToolCalls } from './assistant-turn.js';

/** The plan with its thinking block, or unchanged when thinking is off, the answer continues one, or it continues a tool loop without interleaved thinking. */
export function addThinking({
  plan,
  request,
  facts,
  scenario,
  firedForRun,
  size,
}: {
  plan: ResponsePlan;
  request: MessagesRequest;
  facts: TranscriptFacts;
  scenario: ScenarioName;
  firedForRun: boolean;
  size: SiteSize;
}): ResponsePlan {
  if (request.thinking.type !== 'enabled' || facts.lastMessage.role === 'assistant') return plan;
  if (request.toolChoice.type === 'any' || request.toolChoice.type === 'tool') return plan;
  if (holdsOnlyToolResults(facts.lastMessage) && !thinksBetweenToolCalls(request)) return plan;
  const effort = request.effort ?? 'high';
  const thinking = composeThinking({ blocks: plan.blocks, facts, budgetTokens: request.thinking.budgetTokens, size, effort });
  const redactedBefore = request.messages.some((message) => message.blocks.some((block) => block.kind === 'redacted_thinking'));
  const redacts = scenario === 'redacted_thinking' && !firedForRun && !redactedBefore && facts.assistantMessageCount === 0;
  if (redacts) {
    return { ...plan, blocks: [{ type: 'redacted_thinking', hiddenText: thinking }, ...plan.blocks], firesOncePerRun: true, source: scenario };
  }
  return { ...plan, blocks: [{ type: 'thinking', thinking, textShown: request.thinking.display === 'summarized' }, ...plan.blocks] };
}
