// Part of step 5 of a model turn (run-model-turn.ts): the decision as the outcome the next turn
// needs. Calls outside the tier or with invalid input are answered right here with an is_error
// result and never reach a tool worker.
import type { Phase } from '../domain/profile.js';
import type { Agent } from '../agents/index.js';
import { assertNever } from '../domain/assert-never.js';
import { wrapToolError } from '../domain/tool-result-envelope.js';
import { type RunEvent, type StoredToolResult, type TrailEntry, type TurnOutcome, type RunRecord } from '../engine/index.js';
import { rejectCall } from './reject-call.js';
import type { TurnDecision } from './stop-reason-handler.js';

export interface PlannedOutcome {
  outcome: TurnOutcome;
  /** The refused calls' results, committed with the answer. */
  answered: Array<{ result: StoredToolResult; trail: TrailEntry }>;
  events: RunEvent[];
}

/** Turns the decision into the stored outcome: the calls to dispatch and those refused here. */
export function planTurnOutcome({
  agent,
  run,
  turn,
  phase,
  decision,
  allowed,
}: {
  agent: Agent;
  run: RunRecord;
  turn: number;
  phase: Phase;
  decision: TurnDecision;
  allowed: readonly string[];
}): PlannedOutcome {
  switch (decision.kind) {
    case 'tools': {
      const dispatchList: TurnOutcome['dispatch'] = [];
      const answered: Array<{ result: StoredToolResult; trail: TrailEntry }> = [];
      const events: RunEvent[] = [];
      for (const call of decision.calls) {
        const planMissing = agent.planFirst && phase === agent.initialPhase && run.todos.length === 0;
        const rejection = rejectCall({ agent, call, allowed, planMissing, finishVerified: run.finishVerified });
        if (rejection) {
          answered.push({
            result: {
              content: wrapToolError({ toolName: call.name, label: rejection.code, message: rejection.message }),
              is_error: true,
              error_code: rejection.code,
            },
            trail: { tool: call.name, ok: false, phase, turn, toolUseId: call.toolUseId, detail: rejection.code },
          });
          events.push({ run_id: run.id, step: turn, event: 'tool-call-reject', tool: call.name, tool_use_id: call.toolUseId, reason: rejection.code });
          continue;
        }
        dispatchList.push({ runId: run.id, turn, toolUseId: call.toolUseId, name: call.name, input: call.input, parseMode: call.parseMode });
      }
      return {
        outcome: {
          decision: 'tools',
          nextInput: { kind: 'tool_results', toolUseIds: decision.calls.map((call) => call.toolUseId), note: decision.note },
          dispatch: dispatchList,
        },
        answered,
        events,
      };
    }
    case 'continue':
      return { outcome: { decision: 'continue', nextInput: decision.input, dispatch: [] }, answered: [], events: [] };
    case 'succeed':
    case 'end':
      return { outcome: { decision: decision.kind, nextInput: null, dispatch: [] }, answered: [], events: [] };
    default:
      return assertNever(decision);
  }
}
