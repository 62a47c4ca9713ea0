// The CLI's run commands (issue #18 item 6) against a real in-process fleet over HTTP — the real
// API, queue, Redis and simulator: a build's submit --follow, status, logs and tail; a question
// answered from tail with --answer and at a (simulated) terminal; a failed run resumed, and
// rerun; list with filters and paging; and the exit codes of the API's refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import { runCli } from '../../src/cli/run-cli.js';
import type { CliIo } from '../../src/cli/cli-io.js';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;

beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'cli-runs', env: { BUILDFLEET_RETRY_BASE_MS: '20' } });
});
afterAll(async () => {
  await harness?.close();
});

/** Runs `buildfleet …` against the fleet; collects what it printed and what it asked. */
async function cli(argv: string[], { answers = [] }: { answers?: string[] } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const asked: string[] = [];
  const io: CliIo = {
    print: (line) => out.push(...line.split('\n')),
    printError: (line) => err.push(...line.split('\n')),
    // A terminal when the test gives answers; piped stdin (nobody to ask) when it gives none.
    ask: async (question) => {
      asked.push(question);
      return answers.shift() ?? null;
    },
  };
  const code = await runCli([...argv, '--api', harness.apiUrl, '--key', harness.apiKey], io);
  return { code, out, err, asked, text: out.join('\n') };
}

/** The timeline's lines without their clock, for comparing two renderings of one run. */
const withoutClock = (lines: string[]) => lines.map((line) => line.replace(/^\d\d:\d\d:\d\d {2}/, ''));

describe('a real build through the CLI', () => {
  let runId: string;

  it('submit --follow prints the live timeline, the cost and the site, and exits 0', async () => {
    const result = await cli(['submit', 'a bakery landing page', '--follow']);
    expect(result.err).toEqual([]);
    expect(result.code).toBe(EXIT_CODES.ok);
    runId = result.out[0]!;
    expect(runId).toMatch(/^run_/);
    expect(result.text).toMatch(/\d\d:\d\d:\d\d {2}created · model \S+/);
    expect(result.text).toMatch(/turn 0 · planning · stop tool_use · [\d,]+ in \/ [\d,]+ out · \$0\.\d{4}/);
    expect(result.text).toContain('▸ phase planning → building');
    expect(result.text).toMatch(/→ write_file \{path: "index\.html", content: "<!doctype html>.*\(\d+ chars\)\}/);
    expect(result.text).toMatch(/✓ valid · \d+ ms/);
    expect(result.text).toMatch(/← \{path: "index\.html", bytes: \d+/);
    expect(result.text).toMatch(/│ The .* site is built, verified and published\./);
    expect(result.text).toMatch(/■ run succeeded/);
    expect(result.out.at(-2)).toMatch(/^ {2}cost \$0\.\d{4} · cache hit [\d.]+% · tokens:/);
    expect(result.out.at(-1)).toMatch(/^site: http:\/\/127\.0\.0\.1:\d+\/sites\/run_/);
  }, 60_000);

  it('status prints a readable summary; --json the API’s record', async () => {
    const summary = await cli(['status', runId]);
    expect(summary.code).toBe(EXIT_CODES.ok);
    expect(summary.out[0]).toBe(`${runId}  succeeded`);
    expect(summary.text).toMatch(/ {2}agent {4}site-builder · phase verifying · turn \d+\n {2}model {4}/);
    expect(summary.text).toMatch(/ {2}cost {5}\$0\.\d{4} · cache hit/);
    expect(summary.text).toMatch(/ {2}todos {4}☑ /);
    expect(summary.text).toMatch(/ {2}files {4}\d+ \([\d,]+ bytes\): .*index\.html/);
    expect(summary.text).toMatch(/ {2}site {5}http:\/\/127\.0\.0\.1:\d+\/sites\//);
    expect(summary.text).toMatch(/ {2}result {3}The .* site is built/);
    const raw = await cli(['status', runId, '--json']);
    expect(JSON.parse(raw.text)).toMatchObject({ id: runId, status: 'succeeded', error: null });
  });

  it('logs prints the same timeline as following it did, and tail of the ended run replays it', async () => {
    const logs = await cli(['logs', runId]);
    expect(logs.code).toBe(EXIT_CODES.ok);
    expect(logs.out[0]).toMatch(new RegExp(`^${runId} · succeeded · model `));
    const turns = logs.out.filter((line) => / {2}turn \d+ · /.test(line));
    const calls = logs.out.flatMap((line) => /^\d\d:\d\d:\d\d {4}→ (\S+) /.exec(line)?.[1] ?? []);
    // Every turn of the run, and every one of its tool calls, each once.
    const view = (JSON.parse((await cli(['status', runId, '--json'])).text) as { turn: number }).turn;
    expect(turns).toHaveLength(view);
    const toolCalls = (await (await fetch(`${harness.apiUrl}/v1/runs/${runId}/tool-calls?limit=100`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).json()) as { toolCalls: Array<{ tool: string }> };
    expect(calls).toEqual(toolCalls.toolCalls.map((call) => call.tool));
    const tail = await cli(['tail', runId]);
    expect(tail.code).toBe(EXIT_CODES.ok);
    expect(withoutClock(tail.out)).toEqual(withoutClock(logs.out.slice(1)));
  });
});

describe('a run that asks a question', () => {
  async function askingRun(): Promise<string> {
    const run = await harness.submit({ options: { scenario: 'ask_user' } });
    const waiting = await harness.waitForRun(run.id, 60_000);
    expect(waiting.status).toBe('waiting_for_input');
    return run.id;
  }

  it('tail stops at the question when nobody can answer (exit 3), and answers it with --answer', async () => {
    const runId = await askingRun();
    const stopped = await cli(['tail', runId]);
    expect(stopped.code).toBe(EXIT_CODES.waitingForInput);
    expect(stopped.text).toContain('? the agent asks: Which color scheme do you prefer?');
    expect(stopped.out.at(-1)).toBe(`the run waits for an answer: buildfleet input ${runId} "<text>"  (then: buildfleet tail ${runId})`);
    expect((await harness.fleet.store.getRun(runId))?.status).toBe('waiting_for_input');

    const answered = await cli(['tail', runId, '--answer', 'navy and cream']);
    expect(answered.code).toBe(EXIT_CODES.ok);
    expect(answered.asked).toEqual([]);
    const lines = answered.out;
    const askedAt = lines.findIndex((line) => line.includes('? the agent asks'));
    expect(lines[askedAt + 1]).toBe(`${' '.repeat(12)}answered: navy and cream`);
    expect(lines.slice(askedAt)).toEqual(expect.arrayContaining([expect.stringContaining('✓ the question was answered: navy and cream'), expect.stringContaining('■ run succeeded')]));
    // The answer reached the model as the ask_user call's result.
    const calls = (await (await fetch(`${harness.apiUrl}/v1/runs/${runId}/tool-calls?limit=100`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).json()) as {
      toolCalls: Array<{ tool: string; result: { content: string } | null }>;
    };
    expect(calls.toolCalls.find((call) => call.tool === 'ask_user')?.result?.content).toContain('navy and cream');
    // Replayed later, the answered question is not asked again.
    const replay = await cli(['tail', runId]);
    expect(replay.code).toBe(EXIT_CODES.ok);
    expect(replay.asked).toEqual([]);
  }, 90_000);

  it('input and cancel say what they did in a line, not in raw JSON', async () => {
    const [answering, cancelling] = await Promise.all([harness.submit({ options: { scenario: 'ask_user' } }), harness.submit({ options: { scenario: 'ask_user' } })]);
    for (const run of [answering, cancelling]) expect((await harness.waitForRun(run.id, 60_000)).status).toBe('waiting_for_input');
    const answered = await cli(['input', answering.id, 'navy and cream']);
    expect(answered.code).toBe(EXIT_CODES.ok);
    // The run goes on at once: the status it had when the answer was recorded.
    expect(answered.out).toHaveLength(1);
    expect(answered.out[0]).toMatch(new RegExp(`^${answering.id}: answer sent \\(status (queued|running|succeeded)\\)$`));
    const cancelled = await cli(['cancel', cancelling.id]);
    expect(cancelled.code).toBe(EXIT_CODES.ok);
    expect(cancelled.out).toEqual([`${cancelling.id}: cancelled (status cancelled)`]);
    // The simulated builder took the answer's colours, and its title from the prompt.
    expect((await harness.waitForRun(answering.id, 60_000)).status).toBe('succeeded');
    const calls = (await (await fetch(`${harness.apiUrl}/v1/runs/${answering.id}/tool-calls?limit=100`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).json()) as {
      toolCalls: Array<{ tool: string; input: Record<string, unknown> }>;
    };
    expect(calls.toolCalls.find((call) => call.tool === 'set_colors')?.input).toMatchObject({ primary: '#1f2a44', background: '#fff8e7' });
    const page = await (await fetch(`${harness.sitesUrl}/sites/${answering.id}/`)).text();
    expect(page).toContain('<h1>Bakery</h1>');
  }, 60_000);

  it('submit --follow asks at the terminal when the run asks, and goes on with the answer', async () => {
    const result = await cli(['submit', 'a bakery landing page', '--follow', '--scenario', 'ask_user'], { answers: ['forest green'] });
    expect(result.asked).toEqual(['answer> ']);
    expect(result.text).toContain(`${' '.repeat(12)}answered: forest green`);
    expect(result.code).toBe(EXIT_CODES.ok);
    expect(result.text).toMatch(/■ run succeeded/);
  }, 60_000);
});

describe('a failed run: logs, resume, rerun', () => {
  let runId: string;

  it('logs shows the failed calls and the end; resume --follow continues it to success', async () => {
    runId = newRunId();
    // Two turns answer, then the model API answers 503 to every attempt of the third.
    harness.simulator.faults.add([
      { kind: 'slow', delayMs: 0, runId, count: 2 },
      { kind: 'server_error', status: 503, runId, count: 5 },
    ]);
    await harness.submit({ runId });
    const failed = await harness.waitForRun(runId, 60_000);
    expect(failed.error?.code).toBe('model_unavailable');

    const logs = await cli(['logs', runId]);
    expect(logs.code).toBe(EXIT_CODES.ok);
    expect(logs.out.filter((line) => line.includes('! model call failed (transient, 503'))).toHaveLength(5);
    expect(logs.text).toMatch(/■ run failed \(model_unavailable: /);
    const status = await cli(['status', runId]);
    expect(status.text).toMatch(/ {2}error {4}model_unavailable: /);

    const resumed = await cli(['resume', runId, '--follow']);
    expect(resumed.err).toEqual([]);
    expect(resumed.out[0]).toBe(`${runId} running`);
    expect(resumed.text).toContain('↻ resumed at turn 2 after model_unavailable (resume 1)');
    expect(resumed.text).toMatch(/■ run succeeded/);
    expect(resumed.code).toBe(EXIT_CODES.ok);
  }, 90_000);

  it('resuming a run that did not fail is refused: exit 6 with the API’s code and a hint', async () => {
    const again = await cli(['resume', runId]);
    expect(again.code).toBe(EXIT_CODES.conflict);
    expect(again.err[0]).toMatch(/^buildfleet: the API answered 409 run_not_resumable: The run is succeeded/);
    expect(again.err[1]).toBe(`  hint: start its input again as a new run: buildfleet rerun ${runId}`);
  });

  it('rerun starts the input again as a new run with the edits, linked to the original', async () => {
    const rerun = await cli(['rerun', runId, '--prompt', 'a florist landing page', '--follow']);
    expect(rerun.code).toBe(EXIT_CODES.ok);
    const newId = rerun.out[0]!;
    expect(newId).toMatch(/^run_/);
    expect(newId).not.toBe(runId);
    const status = await cli(['status', newId]);
    expect(status.text).toContain(`  rerun of ${runId}`);
    expect((await harness.fleet.store.getRun(newId))?.prompt).toBe('a florist landing page');
  }, 60_000);
});

describe('list', () => {
  it('filters by prompt and status, pages with a cursor or --all, and prints JSON', async () => {
    const word = `zebracorn${Date.now()}`;
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const run = await harness.submit({ prompt: `Build a ${word} bakery site, number ${index}.` });
      ids.push(run.id);
      await harness.waitForRun(run.id, 60_000);
    }
    const newestFirst = [...ids].reverse();

    const first = await cli(['list', '--prompt', word, '--limit', '2']);
    expect(first.code).toBe(EXIT_CODES.ok);
    expect(first.out[0]).toMatch(/^ID +STATUS +AGENT +PHASE\/TURN +COST +CREATED +PROMPT$/);
    expect(first.out.slice(1, 3).map((line) => line.split(/\s+/)[0])).toEqual(newestFirst.slice(0, 2));
    expect(first.out[1]).toMatch(/^run_\S+ +succeeded +site-builder +verifying\/\d+ +\$0\.\d{4} +\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ +Build a zebracorn\d+ bakery site, num…$/);
    const more = first.out.at(-1)!;
    expect(more).toMatch(/^more: --cursor \S+$/);

    const second = await cli(['list', '--prompt', word, '--limit', '2', '--cursor', more.slice('more: --cursor '.length)]);
    expect(second.out.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(newestFirst.slice(2));

    const all = await cli(['list', '--prompt', word, '--limit', '1', '--all']);
    expect(all.out.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(newestFirst);
    expect(all.text).not.toContain('more:');

    expect((await cli(['list', '--prompt', word, '--status', 'failed'])).out).toEqual(['no runs']);
    const json = JSON.parse((await cli(['list', '--prompt', word, '--json'])).text) as { runs: Array<{ id: string }>; nextCursor: string | null };
    expect(json.runs.map((run) => run.id)).toEqual(newestFirst);
    expect(json.nextCursor).toBeNull();

    const invalid = await cli(['list', '--from', 'yesterday']);
    expect(invalid.code).toBe(EXIT_CODES.usage);
    expect(invalid.err[0]).toMatch(/^buildfleet: the API answered 400 invalid_query: /);
  }, 120_000);
});

describe('errors', () => {
  it('names an unknown run (4), a refused key (5), an unreachable fleet (8) and a usage error (2)', async () => {
    const missing = await cli(['logs', 'run_doesnotexist0000']);
    expect(missing.code).toBe(EXIT_CODES.notFound);
    expect(missing.err[0]).toMatch(/^buildfleet: the API answered 404 run_not_found: /);
    expect(missing.err[1]).toMatch(/hint: check the id; `buildfleet list`/);

    const out: string[] = [];
    const io: CliIo = { print: (line) => out.push(line), printError: (line) => out.push(line), ask: async () => null };
    expect(await runCli(['status', 'run_doesnotexist0000', '--api', harness.apiUrl, '--key', 'bf_not_a_key'], io)).toBe(EXIT_CODES.unauthorized);
    expect(out[0]).toMatch(/the API answered 401 unauthorized/);
    // A port nothing listens on: the fleet's API closed behind a free port's number.
    expect(await runCli(['list', '--api', 'http://127.0.0.1:9', '--key', 'x'], io)).toBe(EXIT_CODES.unavailable);
    expect(out.at(-1)).toMatch(/^buildfleet: cannot reach the API at http:\/\/127\.0\.0\.1:9: /);

    const usage = await cli(['tail']);
    expect(usage.code).toBe(EXIT_CODES.usage);
    expect(usage.err[0]).toBe('buildfleet: tail needs a run id: buildfleet tail <runId>');
    expect((await cli(['list', '--limit', '500'])).code).toBe(EXIT_CODES.usage);
    expect((await cli(['status', 'x', '--nope'])).code).toBe(EXIT_CODES.usage);
  });
});
