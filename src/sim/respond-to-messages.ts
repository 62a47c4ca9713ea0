// The model itself: a validated request in, a response plan out. Policy first, then the
// scenario may bend the turn, then (if nothing bent it) text-call drift may write the call as text.
// With a scripted conversation the script's turn stands in for all three (scripted-turn.ts);
// thinking and progress updates are added alike, as the request asks for them.
import { addThinking } from './add-thinking.js';
import { conformStrictToolInputs } from './conform-strict-tool-inputs.js';
import { applyScenario } from './apply-scenario.js';
import type { ConversationScript } from './conversation-script.js';
import { answerFromScript } from './scripted-turn.js';
import { decideBuilderTurn } from './builder-policy.js';
import { decideSchemaTurn, type SimulatorPolicy } from './schema-policy.js';
import { hashTranscript } from './deterministic-random.js';
import { isStrictTool, type MessagesRequest } from './messages-request.js';
import { applyProgressUpdates } from './progress-updates.js';
import { planFromTurn, type ResponsePlan } from './response-plan.js';
import type { ScenarioName } from '../domain/scenario-names.js';
import { SMALL_SITE, type SiteOptions } from './site-plan.js';
import { decideTextToolCall, type TextCallMode, type TextCallProbabilityTable } from './text-call-decision.js';
import type { TextToolCallFormat } from './text-tool-call-format.js';
import { planTextToolCall } from './text-tool-call-plan.js';
import { readTranscriptFacts, type TranscriptFacts } from './transcript-facts.js';

export interface RespondToMessagesInput {
  request: MessagesRequest;
  scenario: ScenarioName;
  textCallMode: TextCallMode;
  textCallTable: TextCallProbabilityTable;
  /** From header `x-buildfleet-text-format`: the format a drifting turn writes; null: rotate. */
  textFormat?: TextToolCallFormat | null;
  seed: number;
  /** Whether this run already saw `scenario` fire (per-run memory of the server). */
  scenarioFiredForRun: boolean;
  /** The site the builder writes; default the small one. */
  site?: SiteOptions;
  /** Answer from this script instead of the builder policy (conversation-script.ts). */
  script?: ConversationScript;
  /** Which policy decides the turn; default `builder` (schema-policy.ts). */
  policy?: SimulatorPolicy;
  /** The schema policy's share of invalid inputs (0–1); default 0. */
  invalidInputShare?: number;
}

/** A scripted turn the real API could not have given in answer to the request (scripted-turn.ts). */
export class ScriptViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptViolation';
  }
}

/** Decides the response to one Messages request, thinking blocks and progress updates included. Deterministic apart from ids. */
export function respondToMessages(input: RespondToMessagesInput): ResponsePlan {
  const site = input.site ?? SMALL_SITE;
  const facts = readTranscriptFacts({ messages: input.request.messages });
  const plan = input.script
    ? scriptedPlan(input.script, input.request)
    : conformStrictToolInputs({ plan: decideResponse(input, facts, site), strictTools: input.request.strictTools });
  const thought = addThinking({
    plan,
    request: input.request,
    facts,
    scenario: input.scenario,
    firedForRun: input.scenarioFiredForRun,
    size: site.size,
  });
  return applyProgressUpdates({ plan: thought, request: input.request });
}

function scriptedPlan(script: ConversationScript, request: RespondToMessagesInput['request']): ResponsePlan {
  const answer = answerFromScript({ script, request });
  if (answer.kind === 'violation') throw new ScriptViolation(answer.message);
  return answer.plan;
}

function decideResponse(input: RespondToMessagesInput, facts: TranscriptFacts, site: SiteOptions): ResponsePlan {
  const { request, seed } = input;
  const transcriptHash = hashTranscript({ messages: request.messages, toolNames: request.toolNames });
  const turn =
    input.policy === 'schema'
      ? decideSchemaTurn({ request, facts, seed, transcriptHash, invalidShare: input.invalidInputShare ?? 0 })
      : decideBuilderTurn({ toolNames: request.toolNames, toolChoice: request.toolChoice, facts, site });

  const bent = applyScenario({
    scenario: input.scenario,
    turn,
    facts,
    request,
    firedForRun: input.scenarioFiredForRun,
    seed,
    transcriptHash,
    textFormat: input.textFormat ?? null,
  });
  if (bent) return bent;

  const firstCall = turn.kind === 'tool-calls' ? turn.calls[0] : undefined;
  // Forced tool_choice guarantees a tool_use block, so only `auto` turns can drift; a strict tool's
  // call is sampled under its grammar (strict-tool-use: "Tool `name` is always valid"), never as text.
  if (firstCall && request.toolChoice.type === 'auto' && !isStrictTool({ request, name: firstCall.name })) {
    const format = decideTextToolCall({
      mode: input.textCallMode,
      table: input.textCallTable,
      toolCount: request.toolNames.length,
      seed,
      transcriptHash,
      pinned: input.textFormat ?? null,
    });
    if (format) return planTextToolCall({ format, call: firstCall, stopSequences: request.stopSequences, source: 'text-tool-call' });
  }
  return planFromTurn({ turn });
}
