// Runs with extended thinking on, through the real queues and the simulator, which signs its
// thinking blocks, refuses altered or missing ones and answers 400 to thinking combined with a
// forced tool_choice, as the Messages API does. So a scenario passes here only if the fleet never
// forces a tool on a thinking run and sends every thinking block back verbatim through each
// rewrite path (recovery, pause_turn continuation, max_tokens continuation, drift re-prompt).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/cli/api-client.js';
import { formatScenarioTable, runScenarioMatrix } from '../../src/cli/run-scenarios.js';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const THINKING_SCENARIOS = [
  'happy',
  'text_tool_calls',
  'pause_turn',
  'max_tokens_text',
  'max_tokens_tool_use',
  'max_tokens_after_tool_use',
  'stop_sequence_user',
  'ask_user',
  // After the finish gate: the refused call's message (tool results + the summary request) starts a
  // new turn, whose answer brings its own thinking block.
  'tool_call_after_finish',
];
const BUDGET_TOKENS = 2048;

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'thinking', modelWorkers: 2, toolWorkers: 2 });
});
afterAll(async () => {
  await harness?.close();
});

interface SentBody {
  thinking?: { type: string; budget_tokens?: number };
  tool_choice?: { type: string };
  max_tokens: number;
  messages: Array<{ role: string; content: string | Array<{ type: string }> }>;
}

const messageRequests = (): RecordedRequest[] => harness.simulator.requests.filter((request) => request.path.startsWith('/v1/messages'));

describe('thinking runs', () => {
  it('run the rewrite-path scenarios to their expected states with thinking on, never forcing a tool', async () => {
    const rows = await runScenarioMatrix(new ApiClient(harness.apiUrl, harness.apiKey), {
      timeoutMs: 30_000,
      concurrency: 4,
      only: THINKING_SCENARIOS,
      settings: { thinking: { budgetTokens: BUDGET_TOKENS } },
    });
    expect(rows.map((row) => row.scenario).sort()).toEqual([...THINKING_SCENARIOS].sort());
    expect(rows.filter((row) => !row.passed), formatScenarioTable(rows)).toEqual([]);

    const requests = messageRequests();
    const rejected = requests.filter((request) => request.status >= 400 && request.status < 500);
    expect(
      rejected.map((request) => `${request.status} ${request.scenario}: ${JSON.stringify(request.body).slice(0, 200)}`),
      'the simulator answered 4xx to the fleet',
    ).toEqual([]);

    // The calls themselves: count_tokens requests (the estimate's calibration, token-calibration.ts) carry no max_tokens.
    const bodies = requests.filter((request) => request.path === '/v1/messages').map((request) => request.body as SentBody);
    expect(bodies.length).toBeGreaterThan(THINKING_SCENARIOS.length);
    for (const body of bodies) {
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: BUDGET_TOKENS });
      expect(body.max_tokens).toBeGreaterThan(BUDGET_TOKENS);
      // Never forced, and never none: the summary turn keeps auto (src/agent/tool-choice-policy.ts).
      expect(['auto', undefined], 'thinking with a forced tool_choice').toContain(body.tool_choice?.type);
    }
    // The thinking the simulator signed came back: later requests carry thinking blocks in their
    // assistant messages (the simulator verified each signature, or it would have answered 400).
    const sentBack = bodies.flatMap((body) =>
      body.messages.filter((message) => message.role === 'assistant' && Array.isArray(message.content)).flatMap((message) => message.content as Array<{ type: string }>),
    );
    expect(sentBack.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking')).toBe(true);
  }, 120_000);

  it('asks for the plan in the first message instead of forcing it, and the run still plans before building', async () => {
    const run = await harness.submit({ prompt: 'Build a small site for a florist.', thinking: { budgetTokens: BUDGET_TOKENS } });
    const finished = await harness.waitForRun(run.id, 30_000);
    expect(finished.status).toBe('succeeded');
    const ofRun = messageRequests().filter((request) => request.headers['x-buildfleet-run-id'] === run.id);
    const first = ofRun[0]?.body as SentBody;
    expect(first.tool_choice?.type ?? 'auto').toBe('auto');
    expect(JSON.stringify(first.messages[0])).toContain('Start by calling todo_write');
    const trail = await harness.fleet.store.getTrail(run.id);
    const firstBuild = trail.findIndex((entry) => entry.phase === 'building');
    const plan = trail.findIndex((entry) => entry.tool === 'todo_write' && entry.ok);
    expect(plan).toBeGreaterThanOrEqual(0);
    expect(plan).toBeLessThan(firstBuild);
  }, 60_000);

  it('run the same rewrite paths on the 5.x generation, thinking by default: no prefill, no forced tool, every bound thinking block sent back unchanged', async () => {
    // Claude Sonnet 5.5 (model-catalog.ts): adaptive thinking unless turned off, the `updates`
    // display, forced tool_choice refused, an assistant prefill refused, thinking blocks bound to
    // the conversation before them, phase changes as mid-conversation tool changes. The simulator
    // answers 400 to each of those the fleet gets wrong (src/sim/README.md, "Model generations").
    const before = harness.simulator.requests.length;
    const rows = await runScenarioMatrix(new ApiClient(harness.apiUrl, harness.apiKey), {
      timeoutMs: 30_000,
      concurrency: 4,
      only: THINKING_SCENARIOS,
      settings: { model: 'claude-sonnet-5-5', thinking: { effort: 'low' } },
    });
    expect(rows.filter((row) => !row.passed), formatScenarioTable(rows)).toEqual([]);
    const requests = harness.simulator.requests.slice(before).filter((request) => request.path === '/v1/messages');
    const rejected = requests.filter((request) => request.status >= 400 && request.status < 500);
    expect(rejected.map((request) => `${request.status} ${request.scenario}: ${JSON.stringify(request.body).slice(0, 300)}`), 'the simulator answered 4xx to the fleet').toEqual([]);
    const bodies = requests.map((request) => request.body as SentBody & { output_config?: { effort: string } });
    for (const body of bodies) {
      expect(body.thinking).toMatchObject({ type: 'adaptive' });
      expect(body.output_config).toEqual({ effort: 'low' });
      expect(['auto', undefined]).toContain(body.tool_choice?.type);
      expect(body.messages.at(-1)?.role, 'a conversation that ends with an assistant message (prefill)').not.toBe('assistant');
    }
  }, 180_000);
});

