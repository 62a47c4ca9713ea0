// Builds through the OpenAI-compatible provider (src/providers/openai-compatible-provider.ts)
// against the simulator's /v1/chat/completions, through the real queue: once with native
// tool_calls; once per text tool-call format through a server without a tool parser (the provider's
// `toolParser: false`, the simulator's `x-buildfleet-tool-parser: none` + `x-buildfleet-text-format`),
// where every call the model chooses reaches the fleet as text and the gated two-phase recovery
// (src/parsing) must turn it into a call that runs; once through a server whose parser misses the
// calls (x-buildfleet-text-calls: always with a parser); and once misconfigured (a provider that
// expects a parser against a server without one), which must fail loudly. Each provider is declared
// as an operator would (BUILDFLEET_PROVIDERS), its simulator headers in its `headers` option.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { createTextRecovery } from '../../src/agent/text-recovery.js';
import { startModelWorker } from '../../src/workers/model-worker.js';
import { TEXT_TOOL_CALL_FORMATS, TEXT_FORMAT_PARSE_MODES } from '../../src/sim/text-tool-call-format.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const SERVED_MODEL = 'Qwen/Qwen2.5-7B-Instruct';
/** An answer that ends inside an unclosed ```json block is a fence-only stop: the gated parser
 * does not run a call it cannot see whole, and the model is asked to re-emit it natively
 * (stop-reason-handler.ts). The simulator pinned to it never does, so that run cannot finish. */
const UNRECOVERABLE_FORMATS = new Set(['open_fence']);
const RECOVERED_FORMATS = TEXT_TOOL_CALL_FORMATS.filter((format) => !UNRECOVERABLE_FORMATS.has(format));
let harness: InProcessFleet;

const providerOf = (format: string) => `sim-${format}`;

beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'openaiprov', modelWorkers: 0, env: { BUILDFLEET_RETRY_BASE_MS: '50' } });
  const baseUrl = `${harness.simulator.url}/v1`;
  // The fleet's model id is served under an open model's name (modelIds), as vLLM would serve it.
  const common = { kind: 'openai_compatible', baseUrl, modelIds: { [harness.config.BUILDFLEET_MODEL]: SERVED_MODEL } };
  const declarations: Record<string, Record<string, unknown>> = {
    'sim-native': { ...common, headers: { 'x-buildfleet-text-calls': 'off' } },
    // A parser that misses every call of a turn left to the model: the call leaks into content.
    'sim-parser-leak': { ...common, headers: { 'x-buildfleet-text-calls': 'always', 'x-buildfleet-text-format': 'tool_call_tag' } },
    // The provider expects a parser (the default toolParser: true); the server has none.
    'sim-misconfigured': { ...common, headers: { 'x-buildfleet-tool-parser': 'none' } },
  };
  for (const format of TEXT_TOOL_CALL_FORMATS) {
    declarations[providerOf(format)] = { ...common, toolParser: false, headers: { 'x-buildfleet-tool-parser': 'none', 'x-buildfleet-text-format': format } };
  }
  const config = { ...harness.config, BUILDFLEET_PROVIDERS: declarations as never };
  harness.workers.push(startModelWorker(harness.fleet, { providers: createProviderRegistry({ config }), recover: createTextRecovery() }));
});
afterAll(async () => harness?.close());

const chatRequestsOf = (runId: string) => harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId && request.path.startsWith('/v1/chat/completions'));

describe('a build through the OpenAI-compatible provider', () => {
  it('succeeds with native tool_calls, every call answered by its id, the provider on the run', async () => {
    const runId = newRunId();
    await harness.submit({ runId, provider: 'sim-native' });
    const run = await harness.waitForRun(runId, 60_000);
    expect(run.status).toBe('succeeded');
    expect(run.provider).toBe('sim-native');
    expect(run.finishVerified).toBe(true);
    const events = await harness.fleet.store.readEvents(runId);
    const dispatched = events.filter((event) => event.event === 'tool-call-dispatch');
    expect(dispatched.length).toBeGreaterThan(3);
    expect(dispatched.every((event) => event.parse_mode === 'native')).toBe(true);
    expect(events.filter((event) => event.event === 'tool-call-recover')).toEqual([]);
    // Every call went to the chat completions endpoint, none to the Messages API.
    expect(chatRequestsOf(runId).length).toBeGreaterThan(3);
    expect(harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId && request.path.startsWith('/v1/messages'))).toEqual([]);
    // Usage came from the chat usage chunk: input and output counted.
    expect(run.usage.input_tokens + run.usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(run.usage.output_tokens).toBeGreaterThan(0);
  }, 90_000);

  it.each(RECOVERED_FORMATS)('succeeds when every call is written as text (%s), recovered with its telemetry', async (format) => {
    const runId = newRunId();
    await harness.submit({ runId, provider: providerOf(format) });
    const run = await harness.waitForRun(runId, 90_000);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    const events = await harness.fleet.store.readEvents(runId);
    const recovered = events.filter((event) => event.event === 'tool-call-recover');
    expect(recovered.length).toBeGreaterThan(3);
    const detected = events.filter((event) => event.event === 'text-call-detect' || event.event === 'fence-only-stop');
    expect(detected.length).toBeGreaterThanOrEqual(recovered.length);
    for (const event of detected) {
      expect(event).toMatchObject({ parse_mode: expect.any(String), candidate_count: expect.any(Number), fallback_used: expect.any(Boolean), schema_validation: expect.any(String), recovery: true });
    }
    // Recovered calls run like native ones: dispatched with the parse mode of their format, and
    // their tool results ok.
    const expectedMode = TEXT_FORMAT_PARSE_MODES[format];
    expect(recovered.map((event) => event.parse_mode)).toContain(expectedMode);
    const ends = new Map(events.filter((event) => event.event === 'tool-call-end').map((event) => [event.tool_use_id, event]));
    const recoveredIds = recovered.map((event) => event.tool_use_id);
    const recoveredEnds = recoveredIds.map((id) => ends.get(id)).filter((end) => end !== undefined);
    expect(recoveredEnds.filter((end) => end.ok === true).length).toBeGreaterThan(0);
    // The telemetry's last fields: each recovered call's result status, under its format's mode.
    for (const end of recoveredEnds) {
      expect(end).toMatchObject({ parse_mode: expectedMode, tool_result_status: expect.stringMatching(/^(ok|empty|error)$/) });
      expect(end.tool_result_status === 'error').toBe(end.ok === false);
    }
    // Native calls came only where the turn forced a tool (the plan's todo_write): a server
    // constrains a named tool_choice to a real call (vLLM guided decoding); every other call was text.
    const forcedSteps = new Set(events.filter((event) => event.event === 'turn-start' && event.tool_choice === 'tool').map((event) => event.step));
    const nativeSteps = events.filter((event) => event.event === 'tool-call-dispatch' && event.parse_mode === 'native').map((event) => event.step);
    expect(nativeSteps.filter((step) => !forcedSteps.has(step))).toEqual([]);
  }, 120_000);

  it('sends tool_choice none on turns left to the model when the server has no parser, required/named on forced turns', async () => {
    const runId = newRunId();
    await harness.submit({ runId, provider: providerOf('tool_call_tag') });
    expect((await harness.waitForRun(runId, 90_000)).status).toBe('succeeded');
    const choices = chatRequestsOf(runId).map((request) => (request.body as { tool_choice?: unknown }).tool_choice);
    expect(choices).not.toContain('auto');
    expect(choices).toContain('none');
    expect(choices[0]).toEqual({ type: 'function', function: { name: 'todo_write' } });
  }, 120_000);

  it('recovers a call a server’s parser leaked into content (text calls always, with a parser)', async () => {
    const runId = newRunId();
    await harness.submit({ runId, provider: 'sim-parser-leak' });
    const run = await harness.waitForRun(runId, 90_000);
    expect(run.status).toBe('succeeded');
    const choices = chatRequestsOf(runId).map((request) => (request.body as { tool_choice?: unknown }).tool_choice);
    expect(choices).toContain('auto');
    const recovered = (await harness.fleet.store.readEvents(runId)).filter((event) => event.event === 'tool-call-recover');
    expect(recovered.length).toBeGreaterThan(3);
    expect(recovered.every((event) => event.parse_mode === 'tool_call_tag')).toBe(true);
  }, 120_000);

  it('fails the run at once, naming the problem, when the provider expects a tool parser the server lacks', async () => {
    const runId = newRunId();
    await harness.submit({ runId, provider: 'sim-misconfigured' });
    const run = await harness.waitForRun(runId, 60_000);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('model_invalid_request_error');
    expect(run.error?.message).toContain('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
    // Fatal: the plan turn (named tool_choice) passed, the first auto turn was refused once, never retried.
    const requests = chatRequestsOf(runId);
    expect(requests.map((request) => request.status)).toEqual([200, 400]);
  }, 90_000);

  it('asks for a native re-emit of a call cut inside an open fence (open_fence), and never runs it', async () => {
    const runId = newRunId();
    await harness.submit({ runId, provider: providerOf('open_fence') });
    const run = await harness.waitForRun(runId, 90_000);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('unverified_finish');
    const events = await harness.fleet.store.readEvents(runId);
    const fenceStops = events.filter((event) => event.event === 'fence-only-stop');
    expect(fenceStops.length).toBeGreaterThan(0);
    for (const event of fenceStops) expect(event).toMatchObject({ recovery: true, fallback_used: expect.any(Boolean), candidate_count: expect.any(Number) });
    expect(events.filter((event) => event.event === 'tool-call-recover')).toEqual([]);
  }, 120_000);
});
