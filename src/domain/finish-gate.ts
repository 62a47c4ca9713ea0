// The finish gate: whether a run has really built, deployed and published its site, judged from
// what the tools recorded (the trail) rather than from what the model says it did. Pure, so the
// same answer comes out whichever worker asks and tests need no Redis. In the domain because the
// turn (agent) and the finish_turn tool both ask it; it reads the run's todos and trail through
// the structural types below, which the engine's TodoState and TrailEntry satisfy.

/** What the gate reads of a todo. */
export interface FinishGateTodo {
  id: string;
  title: string;
  done: boolean;
}

/** What the gate reads of a trail entry (one tool call's outcome, as the tool recorded it). */
export interface FinishGateTrailEntry {
  tool: string;
  ok: boolean;
  phase: string;
}

/** Tools whose success changes what a deploy would snapshot. */
export const WORKSPACE_CHANGING_TOOLS: ReadonlySet<string> = new Set(['write_file', 'delete_file', 'set_colors', 'set_fonts', 'fetch_image']);

export const MIN_FILES_WRITTEN = 3;

export interface FinishGateInput {
  todos: readonly FinishGateTodo[];
  trail: readonly FinishGateTrailEntry[];
  /** The run's latest and live deployment ids. Optional because the trail does not record which
   * deployment publish named; given, the gate also refuses a stale deployment being live. */
  deployments?: { latest: string | null; live: string | null };
}

export interface FinishGateResult {
  passed: boolean;
  /** One instruction per unmet requirement, worded for the model. */
  missing: string[];
}

function lastIndexWhere(trail: readonly FinishGateTrailEntry[], predicate: (entry: FinishGateTrailEntry) => boolean, after = -1): number {
  for (let index = trail.length - 1; index > after; index -= 1) {
    const entry = trail[index];
    if (entry && predicate(entry)) return index;
  }
  return -1;
}

function firstIndexWhere(trail: readonly FinishGateTrailEntry[], predicate: (entry: FinishGateTrailEntry) => boolean, after: number): number {
  for (let index = after + 1; index < trail.length; index += 1) {
    const entry = trail[index];
    if (entry && predicate(entry)) return index;
  }
  return -1;
}

/** Decides whether finish_turn may end the run; lists what is missing when it may not. */
export function evaluateFinishGate({ todos, trail, deployments }: FinishGateInput): FinishGateResult {
  const missing: string[] = [];

  if (todos.length === 0) {
    missing.push('Write a plan first: call todo_write with the steps of the build.');
  } else {
    for (const todo of todos) {
      if (!todo.done) missing.push(`Finish todo "${todo.id}" (${todo.title}), then mark it with todo_complete.`);
    }
  }

  const filesWritten = trail.filter((entry) => entry.ok && entry.tool === 'write_file' && entry.phase === 'building').length;
  if (filesWritten < MIN_FILES_WRITTEN) {
    missing.push(`Write at least ${MIN_FILES_WRITTEN} site files with write_file while building (${filesWritten} written so far).`);
  }

  const lastChange = lastIndexWhere(trail, (entry) => entry.ok && WORKSPACE_CHANGING_TOOLS.has(entry.tool));
  const anyDeploy = lastIndexWhere(trail, (entry) => entry.ok && entry.tool === 'deploy');
  // The first deploy after the last change is the earliest snapshot holding the final site; a
  // publish after it necessarily names that snapshot or a later identical one.
  const currentDeploy = firstIndexWhere(trail, (entry) => entry.ok && entry.tool === 'deploy', lastChange);
  if (anyDeploy === -1) {
    missing.push('Deploy the site with deploy.');
  } else if (currentDeploy === -1) {
    const changedBy = trail[lastChange]?.tool ?? 'a workspace change';
    missing.push(`Deploy again: the workspace changed (${changedBy}) after the last deploy.`);
  }

  const publishAfterDeploy = currentDeploy === -1 ? -1 : firstIndexWhere(trail, (entry) => entry.ok && entry.tool === 'publish', currentDeploy);
  if (publishAfterDeploy === -1) {
    missing.push('Publish the latest deployment with publish (pass the deploy_id that deploy returned).');
  } else if (deployments && deployments.latest !== null && deployments.live !== deployments.latest) {
    missing.push(`Publish the latest deployment: ${deployments.latest} is the newest, but ${deployments.live ?? 'nothing'} is live.`);
  }

  return { passed: missing.length === 0, missing };
}
