// One model turn, as the model worker runs it, over the run engine (src/engine/run-engine.ts):
// load the turn (one round trip), commit its input and claim it (one), check the model pause of the
// call's provider and rate-limit class (one), call the model, then commit the answer with everything decided from it (one) and hand the
// tool calls to the queue. Every step that must happen once is a once-only engine transition, so a
// worker that dies anywhere in here leaves a turn that the retried job finishes without a second
// set of tool calls.
//
// This file is the orchestrator: each step is a function of its own file, taking the turn's
// context (turn-context.ts) as one object, and returns either what the next step needs or how the
// job ends (`ended`), so the order of the steps reads top to bottom here.
import type { ModelJobData } from '../jobs/job-catalog.js';
import { loadTurnForJob } from './load-turn-for-job.js';
import { prepareTurnInput } from './prepare-turn-input.js';
import { commitTurnInput } from './commit-turn-input.js';
import { checkTurnBounds } from './check-turn-bounds.js';
import { buildTurnRequest } from './build-turn-request.js';
import { checkTurnBudget } from './check-turn-budget.js';
import { reserveTurnAdmission } from './reserve-turn-admission.js';
import { checkModelPause } from './check-model-pause.js';
import { callModelForTurn } from './call-model-for-turn.js';
import { decideTurnFromAnswer } from './decide-turn-from-answer.js';
import { commitTurnAnswer } from './commit-turn-answer.js';
import { dispatchTurnOutcome } from './dispatch-turn-outcome.js';
import { done, type ModelJobContext, type ModelTurnDependencies, type ModelTurnResult, type TurnReload } from './turn-context.js';

export type { ModelJobContext, ModelTurnDependencies, ModelTurnHooks, ModelTurnResult, ToolsOffered } from './turn-context.js';
export { tieredTools } from './tiered-tools.js';
export { MAX_RATE_LIMIT_CYCLES } from './retry-or-fail-turn.js';

/** How many times one job loads its turn again after the state moved under it (an answer to the
 * run's question arrived, another attempt committed the input): then it goes on, or stops. */
const MAX_TURN_RELOADS = 2;

/** Runs the job's turn: loads it again while its state moves under it, a bounded number of times. */
export async function runModelTurn(deps: ModelTurnDependencies, data: ModelJobData, job: ModelJobContext): Promise<ModelTurnResult> {
  for (let reloads = 0; ; reloads += 1) {
    const attempt = await runTurnOnce({ deps, data, job, mayReload: reloads < MAX_TURN_RELOADS });
    if (attempt.kind !== 'reload') return attempt;
  }
}

/** One pass over the turn's steps, from its load to the dispatch of its outcome. */
async function runTurnOnce({
  deps,
  data,
  job,
  mayReload,
}: {
  deps: ModelTurnDependencies;
  data: ModelJobData;
  job: ModelJobContext;
  /** false on the last load: a step that would load again goes on, or stops, instead. */
  mayReload: boolean;
}): Promise<ModelTurnResult | TurnReload> {
  const loaded = await loadTurnForJob({ deps, data, job });
  if (loaded.kind === 'ended') return loaded.result;

  // 1. The turn's user input, committed once, and the turn claimed by this job.
  const input = await prepareTurnInput({ loaded: loaded.loaded, mayReload });
  if (input.kind !== 'input') return input.kind === 'ended' ? input.result : input;
  const claimed = await commitTurnInput({ loaded: loaded.loaded, input, mayReload });
  if (claimed.kind !== 'claimed') return claimed.kind === 'ended' ? claimed.result : claimed;
  const { context } = claimed;

  // 2. Bounds, before paying for a call.
  const outOfTurns = await checkTurnBounds({ context });
  if (outOfTurns) return outOfTurns;

  // 3. The model call: its request, the run's budgets, admission, the pause, the call itself.
  const request = await buildTurnRequest({ context });
  const overBudget = await checkTurnBudget({ context, request });
  if (overBudget) return overBudget;
  const admission = await reserveTurnAdmission({ context, request });
  if (admission.kind === 'ended') return admission.result;
  const pause = await checkModelPause({ context, reservation: admission.reservation });
  if (pause.kind === 'ended') return pause.result;
  const called = await callModelForTurn({ context, request, reservation: admission.reservation, pause: pause.pause, pauseScope: pause.pauseScope });
  if (called.kind === 'ended') return called.result;

  // 4. The decision: exhaustive over stop_reason.
  const decided = decideTurnFromAnswer({ context, request, answer: called.answer });

  // 5. Commit the answer and its outcome once, then act on it.
  const committed = await commitTurnAnswer({ context, request, answer: called.answer, decided });
  if (committed.kind === 'ended') return committed.result;
  await dispatchTurnOutcome({ deps, run: context.run, turn: context.turn, outcome: committed.outcome, trace: data.trace, replay: committed.replay });
  return done(committed.detail);
}
