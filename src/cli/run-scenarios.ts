// Runs the stop-reason matrix against a running fleet through its REST API and reports, for each
// scenario, the state it ended in against the state it should have ended in.
import { SCENARIO_MATRIX, type ScenarioExpectation } from '../agent/scenario-matrix.js';
import type { ApiClient } from './api-client.js';
import type { RunView } from './follow-run.js';
import { isTerminal } from '../domain/run-outcomes.js';

export interface ScenarioRow {
  scenario: string;
  exercises: string;
  expected: string;
  actual: string;
  turns: number;
  passed: boolean;
  runId: string;
  detail: string;
}

function describeState(view: { status: string; error: { code: string } | null }): string {
  return view.error && view.status !== 'succeeded' ? `${view.status}(${view.error.code})` : view.status;
}

/** What every run of the matrix is submitted with besides its scenario. */
export interface ScenarioRunSettings {
  model?: string;
  thinking?: { enabled?: boolean; budgetTokens?: number; effort?: string };
}

async function runOne(client: ApiClient, expectation: ScenarioExpectation, timeoutMs: number, settings: ScenarioRunSettings): Promise<ScenarioRow> {
  const expected = expectation.expectedErrorCode ? `${expectation.expectedStatus}(${expectation.expectedErrorCode})` : expectation.expectedStatus;
  const created = await client.request<{ id: string }>('POST', '/v1/runs', {
    prompt: `Scenario ${expectation.scenario}: build a small site for a bakery.`,
    options: { scenario: expectation.scenario },
    ...settings,
  });
  const deadline = Date.now() + timeoutMs;
  let answered = false;
  let view: RunView & { question?: unknown } = await client.request('GET', `/v1/runs/${created.id}`);
  while (!isTerminal(view.status) && Date.now() < deadline) {
    if (view.status === 'waiting_for_input' && expectation.answer && !answered) {
      await client.request('POST', `/v1/runs/${created.id}/input`, { text: expectation.answer });
      answered = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    view = await client.request('GET', `/v1/runs/${created.id}`);
  }
  const actual = isTerminal(view.status) ? describeState(view) : `${view.status} (timed out)`;
  const resultOk = (expectation.resultIncludes ?? []).every((fragment) => view.result?.includes(fragment));
  const answerOk = !expectation.answer || answered;
  return {
    scenario: expectation.scenario,
    exercises: expectation.exercises,
    expected,
    actual,
    turns: view.turn,
    passed: actual === expected && resultOk && answerOk,
    runId: created.id,
    detail: view.error?.message ?? '',
  };
}

/** Runs every scenario (a few at a time) and returns one row each, in matrix order. */
export async function runScenarioMatrix(
  client: ApiClient,
  options: { timeoutMs?: number; concurrency?: number; only?: string[]; settings?: ScenarioRunSettings } = {},
): Promise<ScenarioRow[]> {
  const cases = SCENARIO_MATRIX.filter((entry) => !options.only || options.only.includes(entry.scenario));
  const rows: ScenarioRow[] = new Array(cases.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(options.concurrency ?? 4, cases.length) }, async () => {
    while (next < cases.length) {
      const index = next;
      next += 1;
      rows[index] = await runOne(client, cases[index]!, options.timeoutMs ?? 60_000, options.settings ?? {});
    }
  });
  await Promise.all(lanes);
  return rows;
}

export function formatScenarioTable(rows: ScenarioRow[]): string {
  const header = ['scenario', 'exercises', 'expected', 'actual', 'turns', 'result'];
  const body = rows.map((row) => [row.scenario, row.exercises, row.expected, row.actual, String(row.turns), row.passed ? 'pass' : 'FAIL']);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const passed = rows.filter((row) => row.passed).length;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...body.map(line), '', `${passed} passed, ${rows.length - passed} failed`].join('\n');
}
