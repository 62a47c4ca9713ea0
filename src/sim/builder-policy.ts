// The simulated model's mind: a competent, deterministic website builder. It decides each turn
// from the offered tools, tool_choice and the transcript alone (no server state), in this order:
// plan (todo_write) → style (set_colors + set_fonts in parallel) → files (parallel write_file) →
// deploy → todo_complete build → fetch_url_live → check_broken_images → set_meta → publish →
// todo_complete verify → finish_turn → final answer. Once finish_turn succeeded the answer is the
// final summary in text, whatever tools are still offered under tool_choice auto: a builder whose
// work passed the gate has nothing left to call (only the scenarios tool_call_after_finish* make
// it call one). Failed steps are retried once; a step that fails twice is skipped when optional and
// ends the turn with an explanation when essential.
import { ALL_TOOLS } from '../domain/profile.js';
import { failuresOf, readBuilderProgress, successesOf, type BuilderProgress } from './builder-progress.js';
import { composeFinalAnswer } from './final-answer.js';
import type { ToolChoice } from './messages-request.js';
import type { PlannedToolCall, PlannedTurn } from './planned-turn.js';
import { PLAN_TODOS, SMALL_SITE, siteFiles, type SiteOptions } from './site-plan.js';
import { standardToolInput } from './standard-tool-input.js';
import type { ToolCallRecord, TranscriptFacts } from './transcript-facts.js';

/** A step is tried at most this many times before the builder gives up on it. */
const MAX_ATTEMPTS_PER_STEP = 2;
/** finish_turn may be refused this many times (each followed by a remedy) before giving up. */
const MAX_FINISH_TURN_ATTEMPTS = 4;
const NEEDS_DEPLOYMENT: ReadonlySet<string> = new Set(['fetch_url_live', 'screenshot', 'check_broken_images', 'publish']);
/** Beyond this transcript length the builder stops rather than risk looping. */
export const MAX_TRANSCRIPT_MESSAGES = 60;

export interface BuilderContext {
  toolNames: readonly string[];
  toolChoice: ToolChoice;
  facts: TranscriptFacts;
  /** The site it writes; default the small one. */
  site?: SiteOptions;
}

interface StepContext {
  offered: (name: string) => boolean;
  progress: BuilderProgress;
  site: SiteOptions;
}

function toolCalls(preface: string, calls: PlannedToolCall[]): PlannedTurn {
  return { kind: 'tool-calls', preface, calls };
}

function call(name: string, { progress, site }: { progress: BuilderProgress; site: SiteOptions }, input?: Record<string, unknown>): PlannedToolCall {
  return { name, input: input ?? standardToolInput({ name, progress, site }) };
}

function lastErrorText(calls: readonly ToolCallRecord[]): string {
  const failed = calls[calls.length - 1];
  return failed?.output?.text || `${failed?.name ?? 'a tool'} failed`;
}

/** Decides the next turn. */
export function decideBuilderTurn({ toolNames, toolChoice, facts, site = SMALL_SITE }: BuilderContext): PlannedTurn {
  const progress = readBuilderProgress({ facts });
  const offered = (name: string) => toolNames.includes(name);
  const context: StepContext = { offered, progress, site };

  if (toolChoice.type === 'tool') {
    return { kind: 'tool-calls', preface: null, calls: [call(toolChoice.name, { progress, site })] };
  }
  if (toolChoice.type === 'none' || toolNames.length === 0) {
    const reason = progress.finishTurnDone ? 'published' : toolNames.length === 0 ? 'no-tools' : 'progress-report';
    return composeFinalAnswer({ reason, progress });
  }

  let turn: PlannedTurn =
    facts.messageCount > MAX_TRANSCRIPT_MESSAGES
      ? composeFinalAnswer({ reason: 'transcript-too-long', progress })
      : (planStep(context) ?? buildingSteps(context) ?? verifyingSteps(context) ?? finishStep(context));

  if (turn.kind === 'final-answer' && toolChoice.type === 'any') turn = anyToolFallback(context, toolNames);
  if (turn.kind === 'final-answer') return turn;

  // Real models put no text before a forced tool call, and a continuation picks up mid-turn.
  const prefaceAllowed = toolChoice.type === 'auto' && facts.lastMessage.role === 'user';
  const calls = toolChoice.disableParallelToolUse ? turn.calls.slice(0, 1) : turn.calls;
  return { kind: 'tool-calls', preface: prefaceAllowed ? turn.preface : null, calls };
}

function planStep({ offered, progress, site }: StepContext): PlannedTurn | null {
  if (progress.planWritten || !offered('todo_write')) return null;
  const failures = failuresOf(progress, 'todo_write');
  if (failures.length >= MAX_ATTEMPTS_PER_STEP) {
    return composeFinalAnswer({ reason: 'gave-up', progress, detail: lastErrorText(failures) });
  }
  return toolCalls("I'll plan the site first.", [call('todo_write', { progress, site })]);
}

function buildingSteps({ offered, progress, site }: StepContext): PlannedTurn | null {
  if (!offered('write_file')) return null;

  const styleCalls = ['set_colors', 'set_fonts']
    .filter((name) => offered(name) && successesOf(progress, name).length === 0)
    .filter((name) => failuresOf(progress, name).length < MAX_ATTEMPTS_PER_STEP)
    .map((name) => call(name, { progress, site }));
  if (styleCalls.length > 0) return toolCalls("I'll set the color palette and fonts first.", styleCalls);

  const pathIs = (path: string) => (record: ToolCallRecord) => record.input.path === path;
  const fileCalls = siteFiles({ title: progress.siteTitle, site, palette: progress.palette })
    .filter((file) => !progress.writtenFiles.has(file.path))
    .filter((file) => failuresOf(progress, 'write_file', -1, pathIs(file.path)).length < MAX_ATTEMPTS_PER_STEP)
    .map((file) => call('write_file', { progress, site }, { path: file.path, content: file.content }));
  if (fileCalls.length > 0) return toolCalls('Now the pages, the stylesheet and the logo.', fileCalls);

  const deployment = progress.latestDeployment;
  const deployIsCurrent = deployment !== undefined && deployment.position > progress.lastWritePosition;
  if (offered('deploy') && !deployIsCurrent) {
    const failures = failuresOf(progress, 'deploy', progress.lastWritePosition);
    if (failures.length >= MAX_ATTEMPTS_PER_STEP) {
      return composeFinalAnswer({ reason: 'gave-up', progress, detail: lastErrorText(failures) });
    }
    // Three sentences: a note long enough to come back as a progress update on Sonnet 5.5 (progress-updates.ts).
    return toolCalls('The pages, the stylesheet and the logo are written. Nothing is live yet, so the next step is a deploy. Deploying the site now.', [
      call('deploy', { progress, site }),
    ]);
  }

  return todoStep({ offered, progress, site }, 'build', 'The site is deployed, so the build step is done.');
}

function todoStep({ offered, progress, site }: StepContext, id: string, preface: string): PlannedTurn | null {
  if (!offered('todo_complete') || progress.completedTodos.has(id)) return null;
  const idIs = (record: ToolCallRecord) => record.input.id === id;
  if (failuresOf(progress, 'todo_complete', -1, idIs).length >= MAX_ATTEMPTS_PER_STEP) return null;
  return toolCalls(preface, [call('todo_complete', { progress, site }, { id })]);
}

function verifyingSteps({ offered, progress, site }: StepContext): PlannedTurn | null {
  if (!offered('publish')) return null;
  const deployment = progress.latestDeployment;
  if (!deployment?.deployId) {
    const detail = deployment ? 'the deploy result did not include a deploy_id' : 'there is no deployment to verify';
    return composeFinalAnswer({ reason: 'gave-up', progress, detail });
  }
  const since = deployment.position;
  const pending = (name: string, after: number) =>
    offered(name) && successesOf(progress, name, after).length === 0 && failuresOf(progress, name, after).length < MAX_ATTEMPTS_PER_STEP;

  if (deployment.url && pending('fetch_url_live', since)) {
    return toolCalls('Let me check the live page.', [call('fetch_url_live', { progress, site })]);
  }
  if (pending('check_broken_images', since)) {
    return toolCalls('Now I will make sure no images are broken.', [call('check_broken_images', { progress, site })]);
  }
  if (pending('set_meta', -1)) return toolCalls('Setting the page title and description.', [call('set_meta', { progress, site })]);
  if (successesOf(progress, 'publish', since).length === 0) {
    const failures = failuresOf(progress, 'publish', since);
    if (failures.length >= MAX_ATTEMPTS_PER_STEP) {
      return composeFinalAnswer({ reason: 'gave-up', progress, detail: lastErrorText(failures) });
    }
    return toolCalls('Everything checks out; publishing.', [call('publish', { progress, site })]);
  }
  return todoStep({ offered, progress, site }, 'verify', 'The live site is verified and published.');
}

function finishStep({ offered, progress, site }: StepContext): PlannedTurn {
  if (progress.finishTurnDone) return composeFinalAnswer({ reason: 'published', progress });
  if (!offered('finish_turn')) return composeFinalAnswer({ reason: 'progress-report', progress });

  const finishCalls = progress.calls.filter((record) => record.name === 'finish_turn');
  const lastFinish = finishCalls[finishCalls.length - 1];
  if (!lastFinish || lastFinish.outcome !== 'error') {
    return toolCalls('Everything is in place; wrapping up.', [call('finish_turn', { progress, site })]);
  }
  const refusal = lastErrorText([lastFinish]);
  if (failuresOf(progress, 'finish_turn').length >= MAX_FINISH_TURN_ATTEMPTS) {
    return composeFinalAnswer({ reason: 'gave-up', progress, detail: refusal });
  }
  const remedy = findRemedy({ offered, progress, site }, refusal, lastFinish.position);
  if (remedy) return toolCalls('finish_turn says something is missing; doing that first.', [remedy]);
  const remediedSince = progress.calls.some((record) => record.position > lastFinish.position && record.outcome === 'success');
  if (remediedSince) return toolCalls('That should cover it; wrapping up again.', [call('finish_turn', { progress, site })]);
  return composeFinalAnswer({ reason: 'gave-up', progress, detail: refusal });
}

/** A call that does what a finish_turn refusal says is missing, if the offered tools allow it.
 * The refusal is read line by line: a line naming a todo asks for todo_complete, any other line
 * asks for the first tool it names ("Deploy the site with deploy.", "Publish … with publish"). */
function findRemedy({ offered, progress, site }: StepContext, refusal: string, after: number): PlannedToolCall | null {
  const stillMissing = (name: string, filter?: (record: ToolCallRecord) => boolean) =>
    successesOf(progress, name, after, filter).length === 0 && failuresOf(progress, name, after, filter).length < MAX_ATTEMPTS_PER_STEP;
  // A todo is completed only when its work is really done: never mark unverified work verified.
  const todoIsEarned = (id: string) =>
    (id === 'build' && progress.latestDeployment !== undefined) || (id === 'verify' && successesOf(progress, 'publish').length > 0);

  for (const line of refusal.toLowerCase().split('\n')) {
    const todoId = /todo\s+["'`]?([a-z0-9][a-z0-9_-]*)/.exec(line)?.[1];
    if (todoId && PLAN_TODOS.some((todo) => todo.id === todoId)) {
      const idIs = (record: ToolCallRecord) => record.input.id === todoId;
      if (offered('todo_complete') && !progress.completedTodos.has(todoId) && todoIsEarned(todoId) && stillMissing('todo_complete', idIs)) {
        return call('todo_complete', { progress, site }, { id: todoId });
      }
      continue;
    }
    const named = ALL_TOOLS.filter((name) => name !== 'finish_turn')
      .map((name) => ({ name, index: line.search(new RegExp(`(^|[^a-z0-9_])${name}($|[^a-z0-9_])`)) }))
      .filter((mention) => mention.index >= 0)
      .sort((left, right) => left.index - right.index)[0]?.name;
    if (!named || !offered(named) || named === 'todo_complete' || named === 'todo_write') continue;
    if (NEEDS_DEPLOYMENT.has(named) && !progress.latestDeployment?.deployId) continue;
    if (stillMissing(named)) return call(named, { progress, site });
  }
  return null;
}

/** tool_choice `any` forbids a text-only answer: call the most harmless offered tool. */
function anyToolFallback({ offered, progress, site }: StepContext, toolNames: readonly string[]): PlannedTurn {
  const name = ['finish_turn', 'read_session', 'list_files'].find(offered) ?? toolNames[0] ?? 'finish_turn';
  return { kind: 'tool-calls', preface: null, calls: [call(name, { progress, site })] };
}
