// Fuzzing an agent's contracts (issue #33 item 6b): the simulator's schema policy, which knows no
// agent, calls whatever tools each request offers with inputs drawn from their JSON Schemas, through
// the real SDK into the real fleet. Whatever it sends, the site builder must answer every call with
// a recorded result — a refusal the model can read, never a crash — and end the run cleanly.
import { afterEach, describe, expect, it } from 'vitest';
import { isTerminal, type RunRecord } from '../../src/engine/index.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Error codes that would mean a call broke the fleet rather than being answered. */
const INFRASTRUCTURE_CODES = ['tool_infrastructure_error', 'job_attempts_exhausted', 'tool_outcome_unknown'];

/** Waits for the run to end, answering each question it asks (at most `answers`). */
async function runToEnd(fleet: InProcessFleet, runId: string, answers = 5): Promise<RunRecord> {
  for (let answered = 0; ; answered += 1) {
    const run = await fleet.waitForRun(runId, 60_000);
    if (isTerminal(run.status) || answered >= answers) return run;
    expect(run.status).toBe('waiting_for_input');
    const response = await fetch(`${fleet.apiUrl}/v1/runs/${runId}/input`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fleet.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Decide for me.' }),
    });
    expect(response.status).toBe(202);
  }
}

async function resultsOf(fleet: InProcessFleet, runId: string) {
  const trail = await fleet.fleet.store.getTrail(runId);
  return Promise.all(trail.map(async (entry) => ({ entry, result: await fleet.fleet.store.getStoredToolResult(runId, entry.toolUseId) })));
}

describe('the schema policy against the site builder', () => {
  it('gets a recorded answer for every call it makes, valid inputs under strict tool use', async () => {
    harness = await startInProcessFleet({ label: 'schemafuzz', simulator: { policy: 'schema', seed: 3 } });
    const created = await harness.submit({ prompt: 'A website for a bakery called Harbor Lights.', maxTurns: 24 });
    const run = await runToEnd(harness, created.id);
    const calls = await resultsOf(harness, run.id);
    // A model that calls tools at random does not build a site: the run ends, saying why.
    expect(run.status).toBe('failed');
    expect(['unverified_finish', 'max_turns_exceeded', 'budget_exceeded']).toContain(run.error?.code);
    for (const { entry, result } of calls) {
      expect(result, `${entry.tool} ${entry.toolUseId} has no recorded result`).not.toBeNull();
      expect(INFRASTRUCTURE_CODES).not.toContain(entry.detail);
    }
    // The schema the API enforces for a strict tool is looser than the fleet's own (strict mode
    // keeps no length or pattern limits): what slips through is refused by the fleet, fail-closed,
    // and the model reads why.
    const refusals = calls.filter(({ entry }) => entry.detail === 'tool_input_invalid');
    for (const { result } of refusals) expect(JSON.stringify(result)).toMatch(/tool_input_invalid/);
    // It followed the phases: the planning tier's tool first, then what the plan unlocked — every
    // tool of the building tier called at least once (seed 3 reaches no deploy-ready workspace, so
    // the finish gate keeps the run out of verifying).
    expect(calls[0]!.entry).toMatchObject({ phase: 'planning', tool: 'todo_write', ok: true });
    const built = new Set(calls.filter(({ entry }) => entry.phase === 'building').map(({ entry }) => entry.tool));
    expect([...built].sort()).toEqual(['ask_user', 'delete_file', 'deploy', 'fetch_image', 'finish_turn', 'list_files', 'read_file', 'read_session', 'set_colors', 'set_fonts', 'todo_complete', 'write_file']);
    // A failed call is an answer with a code the model can act on.
    expect(calls.filter(({ entry }) => !entry.ok).every(({ entry }) => typeof entry.detail === 'string' && entry.detail.length > 0)).toBe(true);
  }, 120_000);

  it('has every invalid input refused before its tool runs, and the run ends at its turn limit', async () => {
    harness = await startInProcessFleet({ label: 'schemafuzzinvalid', env: { BUILDFLEET_STRICT_TOOLS: 'false' }, simulator: { policy: 'schema', invalidInputShare: 1 } });
    const created = await harness.submit({ prompt: 'A website for a bakery called Harbor Lights.', maxTurns: 6 });
    const run = await runToEnd(harness, created.id);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'max_turns_exceeded' } });
    const calls = await resultsOf(harness, run.id);
    expect(calls).toHaveLength(6);
    expect(calls.map(({ entry }) => `${entry.tool}:${entry.ok}:${entry.detail}`)).toEqual(Array.from({ length: 6 }, () => 'todo_write:false:tool_input_invalid'));
    // Nothing was written: no plan, no file.
    expect((await harness.fleet.store.getRun(run.id))?.todos).toEqual([]);
    expect(await harness.fleet.store.listFiles(run.id)).toEqual([]);
  }, 120_000);
});
