// The prompt estimate per tokenizer generation, through the real queues, the real SDK and the
// simulator (which counts in each model's own tokenizer: ×1.3 on the newer one, src/sim/
// count-model-tokens.ts). A real build transcript on claude-sonnet-5-5 (newer tokenizer) and on
// claude-sonnet-4-6 (classic) is estimated within a stated margin of what count_tokens and the
// answer's usage report, never below; admission reserves the larger estimate on 5.5; and a token
// budget that a 4.6 run's first call fits stops the same prompt on 5.5 before its call, with the
// existing `budget_exceeded`.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookupModelCapabilities } from '../../src/domain/model-capabilities.js';
import { estimatePromptTokens } from '../../src/model/estimate-prompt-tokens.js';
import type { AdmissionObservation } from '../../src/model/model-rate-limiter.js';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const NEWER = 'claude-sonnet-5-5';
const CLASSIC = 'claude-sonnet-4-6';
const PROMPT = 'Build a small site for a bakery.';
const MAX_TOKENS = 1024;
/** The estimate is at most this many times the model's count: characters / 4 of the whole JSON
 * body with its 15% margin and 512 tokens of overhead, against the simulator's count of the prompt
 * text alone. Measured: see the report this test prints. */
const MARGIN = 1.75;

const observations: AdmissionObservation[] = [];
let harness: InProcessFleet;
let client: Anthropic;
beforeAll(async () => {
  harness = await startInProcessFleet({
    label: 'tokenizer',
    env: {
      BUILDFLEET_MAX_TOKENS: String(MAX_TOKENS),
      BUILDFLEET_ADMISSION: 'on',
      BUILDFLEET_ADMISSION_LIMITS: '10000,10000000,10000000',
      BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
      BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
    },
    modelWorker: { hooks: { onAdmission: (observation) => observations.push(observation) } },
  });
  // The test's own counts are marked, apart from the worker's calibration counts.
  client = new Anthropic({ apiKey: 'simulator', baseURL: harness.simulator.url, maxRetries: 0, defaultHeaders: { 'x-buildfleet-test': 'count' } });
});
afterAll(async () => {
  await harness?.close();
});

interface SentBody {
  model: string;
  system: unknown;
  tools: unknown;
  messages: unknown;
  tool_choice?: Anthropic.ToolChoice;
  thinking?: Anthropic.ThinkingConfigParam;
  output_config?: Anthropic.OutputConfig;
}

const callsOf = (runId: string): RecordedRequest[] =>
  harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === runId && request.status === 200);
// The fleet estimates before it places its prompt-cache breakpoints (request metadata, not prompt text).
const unmarked = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner)));
const systemText = (system: unknown) => (Array.isArray(system) ? system.map((block: { text: string }) => block.text).join('') : system);
const tokenizerOf = (model: string) => lookupModelCapabilities({ model, overrides: {} }).capabilities.tokenizer;
const estimateOf = (body: SentBody) =>
  estimatePromptTokens({ system: systemText(body.system), tools: unmarked(body.tools), messages: unmarked(body.messages), tokenizer: tokenizerOf(body.model) });
const firstReservation = (runId: string) =>
  observations.find((observation) => observation.kind === 'reserve' && observation.decision.kind === 'go' && observation.decision.reservation.chainId === runId);

const ratios: Record<string, { min: number; max: number; calls: number }> = {};

describe('prompt estimates per tokenizer generation', () => {
  for (const model of [NEWER, CLASSIC]) {
    it(`${model}: a real build's every prompt is estimated at or above count_tokens and usage.input_tokens, within ${MARGIN}x`, async () => {
      const run = await harness.submit({ prompt: PROMPT, model });
      const finished = await harness.waitForRun(run.id, 60_000);
      expect(finished.status).toBe('succeeded');
      const calls = callsOf(run.id);
      expect(calls.length).toBeGreaterThan(3);
      let min = Number.POSITIVE_INFINITY;
      let max = 0;
      for (const call of calls) {
        const body = call.body as SentBody;
        const usage = call.usage!;
        const input = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
        const counted = await client.messages.countTokens({
          model: body.model,
          system: body.system as string,
          tools: body.tools as Anthropic.Tool[],
          messages: body.messages as Anthropic.MessageParam[],
          ...(body.tool_choice ? { tool_choice: body.tool_choice } : {}),
          ...(body.thinking ? { thinking: body.thinking } : {}),
          ...(body.output_config ? { output_config: body.output_config } : {}),
        }, call.headers['anthropic-beta'] ? { headers: { 'anthropic-beta': call.headers['anthropic-beta'] } } : {});
        // The simulator counts a prompt alike wherever it is measured.
        expect(counted.input_tokens).toBe(input);
        const estimate = estimateOf(body);
        expect(estimate, 'the estimate never undercounts').toBeGreaterThanOrEqual(input);
        expect(estimate / input).toBeLessThanOrEqual(MARGIN);
        min = Math.min(min, estimate / input);
        max = Math.max(max, estimate / input);
      }
      ratios[model] = { min, max, calls: calls.length };
      // The worker calibrated on its first call of the model, through count_tokens (token-calibration.ts), once: not before every call.
      const counts = harness.simulator.requests.filter((request) => request.path === '/v1/messages/count_tokens' && (request.body as SentBody).model === model && !request.headers['x-buildfleet-test']);
      expect(counts.length).toBeGreaterThanOrEqual(1);
      expect(counts.length).toBeLessThan(calls.length);
      expect(counts.every((request) => request.status === 200)).toBe(true);
      console.log(`[tokenizer-estimates] ${model} (${tokenizerOf(model)}): estimate / input_tokens over ${calls.length} calls: ${min.toFixed(3)} – ${max.toFixed(3)}`);
    }, 90_000);
  }

  it('admission reserves the larger estimate on the newer tokenizer: a first prompt reserves ~30% more input on 5.5 than the same prompt on 4.6', async () => {
    const [newer, classic] = await Promise.all([NEWER, CLASSIC].map((model) => harness.submit({ prompt: 'Build a small site for a florist.', model, maxTurns: 1 })));
    await Promise.all([newer!, classic!].map((run) => harness.waitForRun(run.id, 30_000)));
    const reserved = (runId: string) => {
      const observation = firstReservation(runId);
      if (observation?.kind !== 'reserve' || observation.decision.kind !== 'go') throw new Error(`no admitted reservation for ${runId}`);
      return observation.decision.reservation;
    };
    const [newerReservation, classicReservation] = [reserved(newer!.id), reserved(classic!.id)];
    // What the limiter reserved is the estimate of the call it admitted.
    expect(newerReservation.promptTokens).toBe(estimateOf(callsOf(newer!.id)[0]!.body as SentBody));
    expect(classicReservation.promptTokens).toBe(estimateOf(callsOf(classic!.id)[0]!.body as SentBody));
    // The two first prompts differ (a 5.5 run declares every tool up front, docs/prompt-caching.md),
    // so the tokenizers are compared on the same one: the 5.5 prompt as 4.6 would count it.
    const overhead = 512;
    const newerBody = callsOf(newer!.id)[0]!.body as SentBody;
    const sameOnClassic = estimateOf({ ...newerBody, model: CLASSIC });
    expect((newerReservation.promptTokens - overhead) / (sameOnClassic - overhead)).toBeCloseTo(1.3, 2);
  }, 60_000);

  it('a token budget the 4.6 run’s first call fits stops the same prompt on 5.5 before its call, with budget_exceeded', async () => {
    // Both runs' first prompts are alike (system, tools, the prompt): their estimates differ by the tokenizer only.
    const probe = await harness.submit({ prompt: 'Build a small site for a cheese shop.', model: CLASSIC, maxTurns: 1 });
    await harness.waitForRun(probe.id, 30_000);
    const classicFirst = estimateOf(callsOf(probe.id)[0]!.body as SentBody);
    const newerFirst = estimateOf({ ...(callsOf(probe.id)[0]!.body as SentBody), model: NEWER });
    expect(newerFirst).toBeGreaterThan(classicFirst);
    const tokenBudget = Math.round((classicFirst + newerFirst) / 2) + MAX_TOKENS;

    const classic = await harness.submit({ prompt: 'Build a small site for a cheese shop.', model: CLASSIC, options: { tokenBudget } });
    const newer = await harness.submit({ prompt: 'Build a small site for a cheese shop.', model: NEWER, options: { tokenBudget } });
    const [classicEnd, newerEnd] = await Promise.all([harness.waitForRun(classic.id, 60_000), harness.waitForRun(newer.id, 60_000)]);
    // 4.6: the first call fitted and was made (a later, longer prompt may then cross the budget).
    expect(callsOf(classic.id).length).toBeGreaterThan(0);
    // 5.5: stopped before its first call, the simulator saw no Messages request of it.
    expect(newerEnd.status).toBe('failed');
    expect(newerEnd.error?.code).toBe('budget_exceeded');
    expect(newerEnd.error?.message).toContain('It stopped before that call.');
    expect(harness.simulator.requests.filter((request) => request.path === '/v1/messages' && request.headers['x-buildfleet-run-id'] === newer.id)).toEqual([]);
    expect(newerEnd.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
    if (classicEnd.status === 'failed') expect(classicEnd.error?.code).toBe('budget_exceeded');
  }, 90_000);
});
