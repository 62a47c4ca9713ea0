// With thinking enabled an answer that starts an assistant turn starts with a thinking block (docs
// build-with-claude/extended-thinking: "the response will include thinking content blocks …
// followed by text/tool_use"), bent answers included, so a fleet sees the real shape on every stop
// reason. An answer that continues a tool-use loop (the last user message holds only tool results)
// thinks only with interleaved thinking (assistant-turn.ts): without it "Claude thinks once at the
// start of the assistant turn". The `redacted_thinking` scenario makes the run's first answer carry a redacted_thinking
// block instead ("Thinking redaction": some reasoning comes back encrypted and must be passed back
// unchanged). An answer that continues a trailing assistant message (pause_turn / max_tokens
// continuation) adds none: the message it extends already starts with one.
import { composeThinking } from './compose-thinking.js';
import type { MessagesRequest } from './messages-request.js';
import type { ResponsePlan } from './response-plan.js';
import type { ScenarioName } from './scenario-names.js';
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
  if (holdsOnlyToolResults(facts.lastMessage) && !thinksBetweenToolCalls(request)) return plan;
  const thinking = composeThinking({ blocks: plan.blocks, facts, budgetTokens: request.thinking.budgetTokens, size });
  const redactedBefore = request.messages.some((message) => message.blocks.some((block) => block.kind === 'redacted_thinking'));
  const redacts = scenario === 'redacted_thinking' && !firedForRun && !redactedBefore && facts.assistantMessageCount === 0;
  if (redacts) {
    return { ...plan, blocks: [{ type: 'redacted_thinking', hiddenText: thinking }, ...plan.blocks], firesOncePerRun: true, source: scenario };
  }
  return { ...plan, blocks: [{ type: 'thinking', thinking }, ...plan.blocks] };
}
