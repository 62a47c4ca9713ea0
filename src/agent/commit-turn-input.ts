// Step 1b of a model turn (run-model-turn.ts): commit the turn's input once and claim the turn for
// this job (one round trip). One owner per turn; an input another attempt committed in between is
// never overwritten by the one built here.
import { done, type LoadedTurn, type ModelTurnResult, type TurnContext, type TurnReload } from './turn-context.js';
import type { TurnInput } from './prepare-turn-input.js';
import type { TranscriptMessage } from '../domain/model-message.js';

/** Commits the input and claims the turn: the turn's context from here on, or how the attempt ends. */
export async function commitTurnInput({
  loaded,
  input,
  mayReload,
}: {
  loaded: LoadedTurn;
  input: TurnInput;
  mayReload: boolean;
}): Promise<{ kind: 'claimed'; context: TurnContext } | TurnReload | { kind: 'ended'; result: ModelTurnResult }> {
  const { deps, view, runId, turn, job, phase } = loaded;
  const ended = (result: ModelTurnResult) => ({ kind: 'ended' as const, result });
  const started = await deps.store.startTurn(runId, turn, { jobId: job.jobId, phase, messages: input.messages, events: input.events });
  if (started === 'missing') return ended(done('run_missing'));
  if (started === 'terminal') return ended(done('run_terminal'));
  // One owner per turn: a second job for the same turn (a resume racing the flow parent) stops
  // here; a retry of the owner carries the same job id and goes on.
  if (started.owner !== job.jobId) return ended(done(`turn_owned_by:${started.owner}`));
  // Loaded uncommitted, found committed: another attempt with this job id (a stalled job run
  // twice) committed the input in between. Load again rather than send a transcript built here.
  if (!view.turn.inputCommitted && !started.committedNow) return mayReload ? { kind: 'reload' } : ended(done('input_committed_elsewhere'));
  const messages = (view.turn.inputCommitted ? view.messages : [...view.messages, ...input.messages]) as TranscriptMessage[];
  const run = view.turn.inputCommitted ? loaded.run : { ...loaded.run, status: 'running' as const, phase, pendingPhase: null, turn, question: null };
  const transcriptCharacters = view.turn.inputCommitted ? view.transcriptCharacters : view.transcriptCharacters + started.appendedCharacters;
  return { kind: 'claimed', context: { ...loaded, run, messages, transcriptCharacters } };
}
