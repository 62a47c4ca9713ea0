// What the per-model experiments (`experiment cost --model`, `experiment production --model`)
// count of a run, read from its event stream — so it works whether the workers run in this
// process or in others: the same rates as the tool-use experiments' decision hooks
// (experiment-arm-tally.ts), plus how many of the model's tool calls had an input the fleet
// refused (reject-call.ts `tool_input_invalid`), the rate strict tool use is meant to bring to 0.
import type { StoredEvent } from '../engine/index.js';

export interface RunTally {
  runs: number;
  verifiedFinishes: number;
  /** Committed model answers. */
  turns: number;
  /** Turns where the model chose whether to call a tool: tool_choice auto, before the summary. */
  turnsExpectingTool: number;
  toolUseTurns: number;
  jsonInTextTurns: number;
  recoveredTurns: number;
  /** Tool calls the fleet planned (dispatched or refused). */
  toolCalls: number;
  invalidInputCalls: number;
}

export function newRunTally(): RunTally {
  return {
    runs: 0,
    verifiedFinishes: 0,
    turns: 0,
    turnsExpectingTool: 0,
    toolUseTurns: 0,
    jsonInTextTurns: 0,
    recoveredTurns: 0,
    toolCalls: 0,
    invalidInputCalls: 0,
  };
}

/** Counts one settled run into `tally`: its record's end and its events. */
export function tallyRunEvents(tally: RunTally, run: { status: string; finishVerified: boolean } | null, events: readonly StoredEvent[]): void {
  tally.runs += 1;
  if (run?.status === 'succeeded' && run.finishVerified) tally.verifiedFinishes += 1;
  const choiceOfStep = new Map<number, string>();
  const stepsWithCalls: number[] = [];
  for (const event of events) {
    if (event.event === 'turn-start') choiceOfStep.set(event.step, String(event.tool_choice));
    if (event.event === 'model-call-end' && Array.isArray(event.tool_uses) && event.tool_uses.length > 0) stepsWithCalls.push(event.step);
  }
  // A verified run's turns after its last call are its summary: no tool is expected there.
  const summaryAfter = run?.finishVerified ? Math.max(-1, ...stepsWithCalls) : Number.POSITIVE_INFINITY;
  const expecting = (step: number) => choiceOfStep.get(step) === 'auto' && step <= summaryAfter;
  const jsonSteps = new Set<number>();
  const recoveredSteps = new Set<number>();
  for (const event of events) {
    switch (event.event) {
      case 'model-call-end':
        tally.turns += 1;
        if (expecting(event.step)) {
          tally.turnsExpectingTool += 1;
          if (event.stop_reason === 'tool_use') tally.toolUseTurns += 1;
        }
        break;
      case 'text-call-detect':
      case 'fence-only-stop':
        if (expecting(event.step)) jsonSteps.add(event.step);
        break;
      case 'tool-call-recover':
        if (expecting(event.step)) recoveredSteps.add(event.step);
        break;
      case 'tool-call-dispatch':
        tally.toolCalls += 1;
        break;
      case 'tool-call-reject':
        tally.toolCalls += 1;
        if (event.reason === 'tool_input_invalid') tally.invalidInputCalls += 1;
        break;
      default:
        break;
    }
  }
  tally.jsonInTextTurns += jsonSteps.size;
  tally.recoveredTurns += recoveredSteps.size;
}
