// max_tokens against the context window through the real queues and the simulator: with a model
// whose window an operator set small (BUILDFLEET_MODEL_CAPABILITIES), every call's max_tokens is the
// run's lowered to what the window leaves after the estimated prompt, never below the thinking
// budget plus room for an answer, and the run's own max_tokens is left as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINIMUM_ANSWER_TOKENS } from '../../src/model/cap-max-tokens-to-context-window.js';
import { estimatePromptTokens } from '../../src/model/estimate-prompt-tokens.js';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

// Prompts of this run grow from about 1,500 to 5,500 estimated tokens.
const CONTEXT_WINDOW_TOKENS = 20_000;
// So small that a thinking run on it is held at its floor.
const TINY_CONTEXT_WINDOW_TOKENS = 6_000;
const RUN_MAX_TOKENS = 16_384;
const BUDGET_TOKENS = 2048;

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'ctxcap',
    modelWorkers: 2,
    toolWorkers: 2,
    env: {
      BUILDFLEET_MODEL_CAPABILITIES: JSON.stringify({
        'claude-sonnet-4-6': { contextWindowTokens: CONTEXT_WINDOW_TOKENS },
        'claude-opus-4-5': { contextWindowTokens: TINY_CONTEXT_WINDOW_TOKENS },
      }),
    },
  });
});
afterAll(async () => {
  await harness?.close();
});

interface SentBody {
  max_tokens: number;
  system: unknown;
  tools: unknown;
  messages: unknown;
  thinking?: { budget_tokens: number };
}

const requestsOf = (runId: string): RecordedRequest[] =>
  harness.simulator.requests.filter((request) => request.path.startsWith('/v1/messages') && request.headers['x-buildfleet-run-id'] === runId);

describe('max_tokens capped to the context window', () => {
  it('lowers each call’s max_tokens to what the window leaves, and the run still succeeds', async () => {
    const run = await harness.submit({ prompt: 'Build a small site for a bakery.' });
    expect(run.maxTokens).toBe(RUN_MAX_TOKENS);
    const finished = await harness.waitForRun(run.id, 30_000);
    expect(finished.status).toBe('succeeded');
    expect(finished.maxTokens).toBe(RUN_MAX_TOKENS);

    const bodies = requestsOf(run.id).map((request) => request.body as SentBody);
    expect(bodies.length).toBeGreaterThan(2);
    // The fleet estimates the prompt before it places its prompt-cache breakpoints (request
    // metadata, not prompt text; src/model/place-cache-breakpoints.ts): take them off again.
    const unmarked = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner)));
    const systemText = (system: unknown) => (Array.isArray(system) ? system.map((block: { text: string }) => block.text).join('') : system);
    for (const body of bodies) {
      const left = CONTEXT_WINDOW_TOKENS - estimatePromptTokens({ system: systemText(body.system), tools: unmarked(body.tools), messages: unmarked(body.messages), tokenizer: 'classic' });
      expect(body.max_tokens).toBe(Math.min(RUN_MAX_TOKENS, Math.max(MINIMUM_ANSWER_TOKENS, left)));
    }
    // The first call fits; the transcript grows, so later calls are capped below the run's max_tokens.
    expect(bodies[0]?.max_tokens).toBe(RUN_MAX_TOKENS);
    expect(bodies.at(-1)?.max_tokens).toBeLessThan(RUN_MAX_TOKENS);
    const events = await harness.fleet.store.readEvents(run.id);
    const turnStarts = events.filter((event) => event.event === 'turn-start').map((event) => (event as unknown as { max_tokens: number }).max_tokens);
    expect(turnStarts).toEqual(bodies.map((body) => body.max_tokens));
  }, 60_000);

  it('never lowers a thinking run’s max_tokens below its budget plus room for an answer', async () => {
    const run = await harness.submit({ prompt: 'Build a small site for a florist.', model: 'claude-opus-4-5', thinking: { budgetTokens: BUDGET_TOKENS } });
    expect(run.maxTokens).toBe(BUDGET_TOKENS + RUN_MAX_TOKENS);
    // The simulator's Opus 4.5 has its documented 200K window, so the calls go through.
    const finished = await harness.waitForRun(run.id, 30_000);
    expect(finished.status).toBe('succeeded');
    const bodies = requestsOf(run.id).map((request) => request.body as SentBody);
    expect(bodies.length).toBeGreaterThan(1);
    for (const body of bodies) {
      expect(body.thinking?.budget_tokens).toBe(BUDGET_TOKENS);
      expect(body.max_tokens).toBeGreaterThanOrEqual(BUDGET_TOKENS + MINIMUM_ANSWER_TOKENS);
      expect(body.max_tokens).toBeLessThan(TINY_CONTEXT_WINDOW_TOKENS);
    }
    expect(bodies.at(-1)?.max_tokens).toBe(BUDGET_TOKENS + MINIMUM_ANSWER_TOKENS);
  }, 60_000);
});
