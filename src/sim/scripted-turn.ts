// One turn of a scripted conversation (conversation-script.ts) as the answer to one request — or
// why the real API could not have given it. The script is the test author's; the request is the
// fleet's. A turn is served only when a real model could have answered that request with it:
//   - it calls only tools the request lets the model call at that point (declared, not deferred or
//     removed: MessagesRequest.toolNames);
//   - `tool_choice` holds: `none` — no call; `any` / `tool` — the API prefills the call, so the turn
//     starts with it, of the named tool ("we prefill the assistant message to force a tool to be
//     used … the models will not emit a natural language response or explanation before tool_use
//     content blocks", docs agents-and-tools/tool-use/implement-tool-use#forcing-tool-use);
//     `disable_parallel_tool_use` — at most one call (exactly one when forced);
//   - a strict tool's input matches its schema ("Tool `input` strictly follows the `input_schema`",
//     docs strict-tool-use), checked by conforming it (conform-strict-tool-inputs.ts) and seeing
//     nothing change;
//   - a `stop_sequence` stop names one of the request's `stop_sequences`, and no text contains any
//     of them (the API stops at the first occurrence of one and leaves it out);
//   - `expect_tools`, when the script gives it, is exactly the tools offered: the test's check of
//     the agent's phase and tier at that turn.
// A tool input may take a value from an earlier tool result: `{"$result": "deploy", "path":
// "deploy_id"}` anywhere in it stands for that field of the latest successful deploy result in the
// transcript (the id a script cannot know in advance). One it cannot find is a violation.
// A violation is answered 400 invalid_request_error naming the turn (simulator-server.ts): a
// simulator-only answer for a test whose agent and script disagree, which fails the run at once
// rather than after retries.
import { isDeepStrictEqual } from 'node:util';
import type { ScriptedTurn, ConversationScript } from './conversation-script.js';
import { conformStrictToolInputs } from './conform-strict-tool-inputs.js';
import type { MessagesRequest } from './messages-request.js';
import type { ResponseBlock, ResponsePlan } from './response-plan.js';
import { readTranscriptFacts, type TranscriptFacts } from './transcript-facts.js';

export type ScriptedAnswer = { kind: 'plan'; plan: ResponsePlan } | { kind: 'violation'; message: string };

const listed = (names: readonly string[]) => (names.length === 0 ? '(none)' : names.join(', '));

/** Why the real API could not answer `request` with `turn`, or null when it could. */
function violationOf(turn: ScriptedTurn, request: MessagesRequest): string | null {
  const calls = turn.content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
  if (turn.expect_tools) {
    const offered = [...request.toolNames].sort();
    const expected = [...turn.expect_tools].sort();
    if (!isDeepStrictEqual(offered, expected)) return `the request offers the tools ${listed(offered)}; the script expects ${listed(expected)}`;
  }
  const unoffered = calls.find((call) => !request.toolNames.includes(call.name));
  if (unoffered) return `it calls ${unoffered.name}, which the request does not offer (offered: ${listed(request.toolNames)})`;
  const choice = request.toolChoice;
  if (choice.type === 'none' && calls.length > 0) return 'tool_choice is none, and it calls a tool';
  if (choice.type === 'any' || choice.type === 'tool') {
    const first = turn.content[0];
    if (first?.type !== 'tool_use') return `tool_choice ${choice.type} forces a tool call, so the turn starts with one (no text before it)`;
    if (choice.type === 'tool' && calls.some((call) => call.name !== choice.name))
      return `tool_choice forces ${choice.name}, and it calls ${calls.find((call) => call.name !== choice.name)!.name}`;
  }
  if (choice.disableParallelToolUse && calls.length > 1) return `disable_parallel_tool_use is set, and it makes ${calls.length} calls`;
  if (turn.stop_sequence !== undefined && !request.stopSequences.includes(turn.stop_sequence)) {
    return `its stop_sequence ${JSON.stringify(turn.stop_sequence)} is not one of the request's (${listed(request.stopSequences)})`;
  }
  // Generation stops at the first of the request's stop sequences, whatever the turn says.
  const stopped = request.stopSequences.find((sequence) => turn.content.some((block) => block.type === 'text' && block.text.includes(sequence)));
  if (stopped !== undefined) return `its text contains the request's stop sequence ${JSON.stringify(stopped)}, where the API would have stopped`;
  return null;
}

class UnresolvedReference extends Error {}

const isPlainRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function isReference(value: unknown): value is { $result: string; path: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 2 && typeof (value as Record<string, unknown>).$result === 'string' && typeof (value as Record<string, unknown>).path === 'string';
}

/** `value` with every `{"$result", "path"}` replaced by what the transcript's results hold there. */
function resolveReferences(value: unknown, facts: TranscriptFacts): unknown {
  if (isReference(value)) {
    const call = facts.calls.findLast((candidate) => candidate.name === value.$result && candidate.outcome === 'success');
    if (!call) throw new UnresolvedReference(`${JSON.stringify(value)}: the transcript holds no successful ${value.$result} result`);
    let found: unknown = call.output?.json;
    // Own fields only: a path such as `constructor` names nothing a result holds.
    for (const key of value.path.split('.')) found = isPlainRecord(found) && Object.hasOwn(found, key) ? found[key] : undefined;
    if (found === undefined)
      throw new UnresolvedReference(
        `${JSON.stringify(value)}: the latest ${value.$result} result has no ${value.path} (it reads ${call.output?.text.slice(0, 200) ?? ''})`,
      );
    return found;
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, facts));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, facts)]));
  return value;
}

/** The turn with its tool inputs' references resolved against the request's transcript. */
function resolvedTurn(turn: ScriptedTurn, request: MessagesRequest): ScriptedTurn {
  if (!turn.content.some((block) => block.type === 'tool_use')) return turn;
  const facts = readTranscriptFacts({ messages: request.messages });
  return {
    ...turn,
    content: turn.content.map((block) =>
      block.type === 'tool_use' ? { ...block, input: resolveReferences(block.input, facts) as Record<string, unknown> } : block,
    ),
  };
}

/** The plan of a turn whose content passed violationOf, before the strict-input check. */
function planOf(turn: ScriptedTurn): ResponsePlan {
  const blocks = turn.content.map((block): ResponseBlock =>
    block.type === 'text' ? { type: 'text', text: block.text } : { type: 'tool_use', name: block.name, input: block.input },
  );
  const stopReason = turn.stop_reason ?? (blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return {
    blocks,
    stopReason,
    stopSequence: turn.stop_sequence ?? null,
    // A refusal carries stop_details (docs api/handling-stop-reasons#refusal).
    stopDetails: stopReason === 'refusal' ? { type: 'refusal', category: null, explanation: 'Scripted refusal.' } : null,
    source: 'script',
    firesOncePerRun: false,
  };
}

/** The script's answer to `request`: the turn its transcript is at, or the violation. */
export function answerFromScript({ script, request }: { script: ConversationScript; request: MessagesRequest }): ScriptedAnswer {
  const index = request.messages.filter((message) => message.role === 'assistant').length;
  const written = script.turns[index];
  const at = `scripted conversation, turn ${index + 1} of ${script.turns.length}`;
  if (!written) return { kind: 'violation', message: `${at}: the script has no turn ${index + 1} (the transcript holds ${index} assistant messages)` };
  let turn: ScriptedTurn;
  try {
    turn = resolvedTurn(written, request);
  } catch (error) {
    if (error instanceof UnresolvedReference) return { kind: 'violation', message: `${at}: ${error.message}` };
    throw error;
  }
  const violation = violationOf(turn, request);
  if (violation) return { kind: 'violation', message: `${at}: ${violation}` };
  const plan = planOf(turn);
  const conformed = conformStrictToolInputs({ plan, strictTools: request.strictTools });
  const misfit = plan.blocks.find((block, position) => block.type === 'tool_use' && !isDeepStrictEqual(block, conformed.blocks[position]));
  if (misfit?.type === 'tool_use')
    return { kind: 'violation', message: `${at}: the input of strict tool ${misfit.name} does not match its input_schema, which strict tool use guarantees` };
  return { kind: 'plan', plan };
}
