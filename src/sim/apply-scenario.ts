// Scenarios bend one turn of a normal build at a defined point of the transcript, then let the
// run go on. "Fired already" is read from the transcript (the scenario's marker text or call is
// in it) and, when requests carry `x-buildfleet-run-id`, also from the server's per-run memory,
// so a fleet that drops the odd response and retries still sees each once-scenario only once.
//
// Where each fires (first time the builder would make that call, unless noted):
//   multi_block_text          every final answer → three text blocks
//   empty_end_turn            the final answer right after finish_turn's result (and the note that
//                             may follow it) → content [] (once)
//   premature_end_turn        deploy → end_turn "All done!" (once)
//   parallel_tool_fail        write_file → the writes plus a read_file of a missing file (once)
//   max_tokens_text           first turn that opens with text → truncated text, max_tokens (once);
//                             a continuation (last message = that text) gets the rest + the calls
//   max_tokens_tool_use       write_file, right after a tool result → one write_file cut off inside its
//                             path, max_tokens (once): streamed, input_json_delta stops mid-JSON;
//                             either way the input holds what parses of it, here {}
//   max_tokens_after_tool_use deploy → complete deploy tool_use then truncated text, max_tokens (once)
//   stop_sequence_end         every final answer, if stop_sequences has "\n---END---"
//   stop_sequence_user        first build-tier turn right after a tool result, if stop_sequences has "\nUser:" (once)
//   pause_turn                write_file → text with pause_turn (once)
//   refusal                   the first assistant turn → refusal with stop_details (once)
//   context_window_exceeded   fetch_url_live → model_context_window_exceeded (once)
//   unknown_stop_reason       first build-tier turn → stop_reason "brand_new_reason" (once)
//   ask_user                  first build-tier turn → ask_user about the color scheme (once)
//   text_tool_calls           set_colors, deploy and publish → each written as text once
//   redacted_thinking         with thinking enabled, the run's first answer starts with a
//                             redacted_thinking block instead of a thinking block (once;
//                             add-thinking.ts, not a bent turn)
//   tool_call_after_finish    the final answer after a successful finish_turn, under tool_choice
//                             auto with read_session offered → a read_session call instead (once:
//                             a model that checks once more before its summary)
//   tool_calls_after_finish_always  the same on every such turn (a model that never writes the
//                             summary while it may call tools)
//   invalid_tool_input        the run's first tool call → its input loses its first field
//                             and gains one its schema does not have (once): what a model does
//                             "without strict mode" (strict-tool-use: "incompatible types … or
//                             missing required fields"; troubleshooting-tool-use: "Parameter that
//                             doesn't exist in your schema"). A strict tool's call stays valid
//                             (conform-strict-tool-inputs.ts)
//
// Adversarial faults, not model behaviour: the real API mints every tool_use id itself
// (`toolu_` and base62) and refuses any other in a request (400 "messages.N.content.M.tool_use.id:
// String should match pattern '^[a-zA-Z0-9_-]+$'", enforced in parse-messages-request.ts), so
// these stand for a broken or hostile upstream, to show the fleet never strands a run on an id:
//   hostile_tool_use_ids      first build-tier turn → every tool_use id outside the API's pattern
//                             (':', '/', spaces, unicode, whitespace only, empty) (once); the
//                             next request carrying them is refused like the real API refuses it
//   long_tool_use_ids         first build-tier turn → every tool_use id in the pattern but 10,000
//                             characters long (the API documents no length) (once)
import { BUILD_TOOLS } from '../domain/profile.js';
import { assertNever } from '../domain/assert-never.js';
import { isStrictTool, type MessagesRequest } from './messages-request.js';
import { parseTextToolCall } from './parse-text-tool-call.js';
import type { PlannedTurn } from './planned-turn.js';
import { blocksForTurn, type ResponseBlock, type ResponsePlan } from './response-plan.js';
import type { ScenarioName } from '../domain/scenario-names.js';
import { COLOR_SCHEME_QUESTION } from './standard-tool-input.js';
import { pickTextCallFormat } from './text-call-decision.js';
import type { TextToolCallFormat } from './text-tool-call-format.js';
import { planTextToolCall } from './text-tool-call-plan.js';
import type { TranscriptFacts } from './transcript-facts.js';

/** Texts the scenarios emit; each doubles as the marker that the scenario already fired. */
export const SCENARIO_TEXTS = {
  prematureEndTurn: 'All done!',
  truncatedToolUsePreface: 'Writing the pages now, starting with index.html.',
  truncatedText: 'Here is the approach: a landing page, an about page and a shared styl',
  truncatedTextRest: 'esheet.',
  truncatedAfterToolUse: 'Deploy started. Once it finishes I will open the live page and check that every ima',
  userDrift: "I'll set up the colors and fonts next. Would you prefer a light or a dark theme?",
  pause: 'Let me sketch the page structure before writing the files.',
  refusal: "I'm not able to help with building this site.",
  contextWindow: "I'll open the live page and compare it with the plan, starting with the hea",
  unknownStopReason: 'Choosing a palette and fonts for the site.',
  askUserPreface: 'Before I style the site, one question.',
  callAfterFinishPreface: 'Before I summarise, let me look at the session once more.',
} as const;

export const END_STOP_SEQUENCE = '\n---END---';
export const USER_STOP_SEQUENCE = '\nUser:';
export const UNKNOWN_STOP_REASON = 'brand_new_reason';
/** The file `parallel_tool_fail` reads; the fleet's workspace never has it. */
export const MISSING_FILE_PATH = 'content/brief.md';
/** `max_tokens_tool_use` cuts the write_file JSON here: inside the path string, so nothing parses. */
const TRUNCATED_TOOL_JSON_CHARACTERS = 12;
/** The field `invalid_tool_input` adds, which no tool schema of the fleet has. */
export const INVENTED_TOOL_FIELD = 'unrequested_option';
/** `text_tool_calls` writes the first call of these steps as text, once each. */
const TEXT_CALL_STEPS: readonly string[] = ['set_colors', 'deploy', 'publish'];

export interface ScenarioContext {
  scenario: ScenarioName;
  turn: PlannedTurn;
  facts: TranscriptFacts;
  request: MessagesRequest;
  /** The server's memory says this run already saw this once-scenario. */
  firedForRun: boolean;
  seed: number;
  transcriptHash: string;
  /** From header `x-buildfleet-text-format`: the format `text_tool_calls` writes; null: rotate. */
  textFormat?: TextToolCallFormat | null;
}

const ONCE_PER_RUN: ReadonlySet<ScenarioName> = new Set<ScenarioName>([
  'empty_end_turn',
  'premature_end_turn',
  'parallel_tool_fail',
  'max_tokens_text',
  'max_tokens_tool_use',
  'max_tokens_after_tool_use',
  'stop_sequence_user',
  'pause_turn',
  'refusal',
  'context_window_exceeded',
  'unknown_stop_reason',
  'ask_user',
  'tool_call_after_finish',
  'hostile_tool_use_ids',
  'long_tool_use_ids',
  'invalid_tool_input',
]);

/** The i-th id of `hostile_tool_use_ids`: each outside the API's pattern in its own way, all distinct. */
export function hostileToolUseId(index: number): string {
  const shapes = [`toolu_${index}:colon`, `toolu/${index} slash and space`, `工具-${index}-ツール`, ' '.repeat(index + 1), `toolu_${index}\u0000nul`, ''];
  return shapes[index % shapes.length]! + (index >= shapes.length ? `:${index}` : '');
}

/** The i-th id of `long_tool_use_ids`: in the API's pattern, 10,000 characters. */
export function longToolUseId(index: number): string {
  return `toolu_${index}_`.padEnd(LONG_TOOL_USE_ID_CHARACTERS, 'x');
}
export const LONG_TOOL_USE_ID_CHARACTERS = 10_000;

function plan(scenario: ScenarioName, blocks: ResponseBlock[], stopReason: string, stopSequence: string | null = null): ResponsePlan {
  return { blocks, stopReason, stopSequence, stopDetails: null, source: scenario, firesOncePerRun: ONCE_PER_RUN.has(scenario) };
}

function text(value: string): ResponseBlock {
  return { type: 'text', text: value };
}

/** The scenario's bent response for this turn, or null when the scenario does not fire here. */
export function applyScenario(context: ScenarioContext): ResponsePlan | null {
  const { scenario, turn, facts, request } = context;
  const continuation = continueTruncatedText(context);
  if (continuation) return continuation;
  if (context.firedForRun && ONCE_PER_RUN.has(scenario)) return null;

  const calledBefore = (name: string) => facts.calls.some((call) => call.name === name);
  const firstTimeCalling = (name: string) => turn.kind === 'tool-calls' && turn.calls.some((call) => call.name === name) && !calledBefore(name);
  const buildTools: readonly string[] = BUILD_TOOLS;
  const isFirstBuildTurn =
    turn.kind === 'tool-calls' && turn.calls.some((call) => buildTools.includes(call.name)) && !facts.calls.some((call) => buildTools.includes(call.name));
  const said = (marker: string) => facts.assistantTexts.some((candidate) => candidate.includes(marker));
  const textAllowed = request.toolChoice.type === 'auto' || request.toolChoice.type === 'none';
  const isContinuation = facts.lastMessage.role === 'assistant';
  const answersToolResults = facts.lastMessage.role === 'user' && facts.lastMessage.blocks.some((block) => block.kind === 'tool_result');

  switch (scenario) {
    case 'happy':
      return null;
    case 'multi_block_text':
      if (turn.kind !== 'final-answer') return null;
      return plan(scenario, turn.paragraphs.map(text), 'end_turn');
    case 'empty_end_turn': {
      if (turn.kind !== 'final-answer' || facts.lastMessage.role !== 'user') return null;
      // The results may be followed by text (the fleet asks for the summary there).
      const answeredIds = new Set(facts.lastMessage.blocks.flatMap((block) => (block.kind === 'tool_result' ? [block.toolUseId] : [])));
      const finishJustAnswered = facts.calls.some((call) => call.name === 'finish_turn' && call.outcome === 'success' && answeredIds.has(call.id));
      return finishJustAnswered ? plan(scenario, [], 'end_turn') : null;
    }
    case 'premature_end_turn':
      if (!firstTimeCalling('deploy') || !textAllowed || said(SCENARIO_TEXTS.prematureEndTurn)) return null;
      return plan(scenario, [text(SCENARIO_TEXTS.prematureEndTurn)], 'end_turn');
    case 'parallel_tool_fail': {
      const readBefore = facts.calls.some((call) => call.name === 'read_file' && call.input.path === MISSING_FILE_PATH);
      if (turn.kind !== 'tool-calls' || !firstTimeCalling('write_file') || readBefore) return null;
      if (!request.toolNames.includes('read_file') || request.toolChoice.disableParallelToolUse) return null;
      const blocks = blocksForTurn({ turn });
      blocks.splice(turn.preface ? 2 : 1, 0, { type: 'tool_use', name: 'read_file', input: { path: MISSING_FILE_PATH } });
      return plan(scenario, blocks, 'tool_use');
    }
    case 'max_tokens_text':
      if (turn.kind !== 'tool-calls' || !turn.preface || said(SCENARIO_TEXTS.truncatedText)) return null;
      return plan(scenario, [text(`${turn.preface} ${SCENARIO_TEXTS.truncatedText}`)], 'max_tokens');
    case 'max_tokens_tool_use': {
      // The fleet drops a cut-off tool_use from its transcript, so the preface is the marker.
      const truncatedBefore =
        said(SCENARIO_TEXTS.truncatedToolUsePreface) || facts.calls.some((call) => call.name === 'write_file' && call.input.path === undefined);
      if (turn.kind !== 'tool-calls' || !firstTimeCalling('write_file') || truncatedBefore || !answersToolResults) return null;
      const preface = textAllowed && !isContinuation ? [text(SCENARIO_TEXTS.truncatedToolUsePreface)] : [];
      const write = turn.calls.find((call) => call.name === 'write_file');
      const partialJson = JSON.stringify(write?.input ?? { path: 'index.html' }).slice(0, TRUNCATED_TOOL_JSON_CHARACTERS);
      return plan(scenario, [...preface, { type: 'tool_use', name: 'write_file', input: {}, partialJson }], 'max_tokens');
    }
    case 'max_tokens_after_tool_use':
      if (!firstTimeCalling('deploy') || !textAllowed || said(SCENARIO_TEXTS.truncatedAfterToolUse)) return null;
      return plan(scenario, [{ type: 'tool_use', name: 'deploy', input: {} }, text(SCENARIO_TEXTS.truncatedAfterToolUse)], 'max_tokens');
    case 'stop_sequence_end':
      if (turn.kind !== 'final-answer' || !request.stopSequences.includes(END_STOP_SEQUENCE)) return null;
      return plan(scenario, blocksForTurn({ turn }), 'stop_sequence', END_STOP_SEQUENCE);
    case 'stop_sequence_user':
      // The fleet discards drifted text, so "right after a tool result" keeps it from re-firing.
      if (!isFirstBuildTurn || !textAllowed || !answersToolResults || !request.stopSequences.includes(USER_STOP_SEQUENCE)) return null;
      if (said(SCENARIO_TEXTS.userDrift)) return null;
      return plan(scenario, [text(SCENARIO_TEXTS.userDrift)], 'stop_sequence', USER_STOP_SEQUENCE);
    case 'pause_turn':
      if (!firstTimeCalling('write_file') || !textAllowed || isContinuation || said(SCENARIO_TEXTS.pause)) return null;
      return plan(scenario, [text(SCENARIO_TEXTS.pause)], 'pause_turn');
    case 'refusal':
      if (facts.assistantMessageCount > 0 || said(SCENARIO_TEXTS.refusal)) return null;
      return {
        ...plan(scenario, [text(SCENARIO_TEXTS.refusal)], 'refusal'),
        stopDetails: { type: 'refusal', category: null, explanation: 'The simulator was asked to refuse this request.' },
      };
    case 'context_window_exceeded':
      if (!firstTimeCalling('fetch_url_live') || said(SCENARIO_TEXTS.contextWindow)) return null;
      return plan(scenario, [text(SCENARIO_TEXTS.contextWindow)], 'model_context_window_exceeded');
    case 'unknown_stop_reason':
      if (!isFirstBuildTurn || said(SCENARIO_TEXTS.unknownStopReason)) return null;
      return plan(scenario, [text(SCENARIO_TEXTS.unknownStopReason)], UNKNOWN_STOP_REASON);
    case 'ask_user': {
      if (!isFirstBuildTurn || !request.toolNames.includes('ask_user') || calledBefore('ask_user')) return null;
      if (request.toolChoice.type === 'tool') return null;
      const preface = textAllowed && !isContinuation ? [text(SCENARIO_TEXTS.askUserPreface)] : [];
      return plan(scenario, [...preface, { type: 'tool_use', name: 'ask_user', input: { question: COLOR_SCHEME_QUESTION } }], 'tool_use');
    }
    case 'text_tool_calls': {
      if (turn.kind !== 'tool-calls' || request.toolChoice.type !== 'auto') return null;
      const firstCall = turn.calls[0];
      if (!firstCall || !TEXT_CALL_STEPS.includes(firstCall.name) || calledBefore(firstCall.name)) return null;
      // A strict tool's call is grammar-constrained, never written as text (respond-to-messages.ts).
      if (isStrictTool({ request, name: firstCall.name })) return null;
      const drifted = facts.assistantTexts.some((candidate) => parseTextToolCall({ text: candidate })?.name === firstCall.name);
      if (drifted) return null;
      const format = pickTextCallFormat({ seed: context.seed, transcriptHash: context.transcriptHash, pinned: context.textFormat ?? null });
      return planTextToolCall({ format, call: firstCall, stopSequences: request.stopSequences, source: scenario });
    }
    case 'redacted_thinking':
      return null;
    case 'tool_call_after_finish':
    case 'tool_calls_after_finish_always': {
      // Only where a real model could call a tool: tool_choice auto (`none` forbids it; `any` or
      // `tool` would have made the builder call one anyway) and read_session offered.
      if (turn.kind !== 'final-answer' || request.toolChoice.type !== 'auto' || !request.toolNames.includes('read_session')) return null;
      const passed = facts.calls.find((call) => call.name === 'finish_turn' && call.outcome === 'success');
      if (!passed) return null;
      const calledSince = facts.calls.some((call) => call.name === 'read_session' && call.position > passed.position);
      if (scenario === 'tool_call_after_finish' && calledSince) return null;
      const preface = isContinuation ? [] : [text(SCENARIO_TEXTS.callAfterFinishPreface)];
      return plan(scenario, [...preface, { type: 'tool_use', name: 'read_session', input: {} }], 'tool_use');
    }
    case 'invalid_tool_input': {
      if (turn.kind !== 'tool-calls' || facts.calls.length > 0) return null;
      let bent = false;
      const blocks = blocksForTurn({ turn }).map((block) => {
        if (block.type !== 'tool_use' || bent) return block;
        bent = true;
        const [, ...kept] = Object.entries(block.input);
        return { ...block, input: { ...Object.fromEntries(kept), [INVENTED_TOOL_FIELD]: true } };
      });
      return plan(scenario, blocks, 'tool_use');
    }
    case 'hostile_tool_use_ids':
    case 'long_tool_use_ids': {
      const bent = scenario === 'hostile_tool_use_ids' ? hostileToolUseId : longToolUseId;
      if (!isFirstBuildTurn || facts.calls.some((call) => call.id === bent(0))) return null;
      let index = 0;
      const blocks = blocksForTurn({ turn }).map((block) => (block.type === 'tool_use' ? { ...block, id: bent(index++) } : block));
      return plan(scenario, blocks, 'tool_use');
    }
    default:
      return assertNever(scenario);
  }
}

/** `max_tokens_text`, second half: the request continues the truncated text, so finish the word. */
function continueTruncatedText({ scenario, turn, facts }: ScenarioContext): ResponsePlan | null {
  if (scenario !== 'max_tokens_text' || facts.lastMessage.role !== 'assistant') return null;
  const lastBlock = facts.lastMessage.blocks[facts.lastMessage.blocks.length - 1];
  if (lastBlock?.kind !== 'text' || !lastBlock.text.endsWith(SCENARIO_TEXTS.truncatedText)) return null;
  const stopReason = turn.kind === 'final-answer' ? 'end_turn' : 'tool_use';
  return { ...plan(scenario, [text(SCENARIO_TEXTS.truncatedTextRest), ...blocksForTurn({ turn })], stopReason), firesOncePerRun: false };
}
