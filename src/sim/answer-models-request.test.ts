// The Models API through the real SDK (resources/models.d.ts): list pages newest first, the
// lifecycle filter, retrieve by id or alias, and the capabilities derived from the catalog.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_MODELS } from './model-catalog.js';
import type { RunningSimulator } from './simulator-server.js';
import { startSimulatorWithClient } from './testing/start-simulator-with-client.js';

let simulator: RunningSimulator;
let client: Anthropic;
beforeAll(async () => ({ simulator, client } = await startSimulatorWithClient()));
afterAll(() => simulator.close());

async function listAll(params: Anthropic.ModelListParams = {}): Promise<Anthropic.ModelInfo[]> {
  const models: Anthropic.ModelInfo[] = [];
  for await (const model of client.models.list(params)) models.push(model);
  return models;
}

describe('GET /v1/models', () => {
  it('lists the active and deprecated models newest first, 20 a page, across pages', async () => {
    // 26 models with the retired ones: a default page holds 20 of them.
    const first = await client.models.list({ lifecycle: ['active', 'deprecated', 'retired'] });
    expect(first.data).toHaveLength(20);
    expect(first.has_more).toBe(true);
    expect(first.first_id).toBe(first.data[0]?.id);
    expect(first.last_id).toBe(first.data[19]?.id);

    const models = await listAll({ limit: 7 });
    const expected = KNOWN_MODELS.filter((model) => model.lifecycle !== 'retired');
    expect(models.map((model) => model.id).sort()).toEqual(expected.map((model) => model.id).sort());
    expect(models[0]?.id).toBe('claude-fable-5-2');
    const released = models.map((model) => model.created_at);
    expect(released).toEqual([...released].sort().reverse());
    expect(models.some((model) => model.lifecycle === 'deprecated')).toBe(true);
  });

  it('pages by limit with after_id, and backwards with before_id', async () => {
    const all = await listAll();
    const ids = all.map((model) => model.id);
    const page = await client.models.list({ limit: 3, after_id: ids[2]! });
    expect(page.data.map((model) => model.id)).toEqual(ids.slice(3, 6));
    const backwards = await client.models.list({ limit: 2, before_id: ids[5]! });
    expect(backwards.data.map((model) => model.id)).toEqual(ids.slice(3, 5));
    expect(backwards.has_more).toBe(true);
    const last = await client.models.list({ limit: 1000, after_id: ids.at(-2)! });
    expect(last.data.map((model) => model.id)).toEqual([ids.at(-1)]);
    expect(last.has_more).toBe(false);
  });

  it('refuses a limit outside 1-1000 and an unknown lifecycle', async () => {
    for (const limit of [0, 1001]) {
      const error = await client.models.list({ limit }).catch((thrown: unknown) => thrown);
      expect(error, String(limit)).toBeInstanceOf(Anthropic.BadRequestError);
    }
    const error = await client.models.list({ lifecycle: ['gone' as 'retired'] }).catch((thrown: unknown) => thrown);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toContain("lifecycle.0: Input should be 'active', 'deprecated' or 'retired'");
  });

  it('lists retired models only when asked for them', async () => {
    const retired = await listAll({ lifecycle: ['retired'] });
    expect(retired.map((model) => model.id)).toContain('claude-sonnet-4-20250514');
    expect(retired.every((model) => model.lifecycle === 'retired' && model.deprecated_at !== null && model.retires_at !== null)).toBe(true);
    const everything = await listAll({ lifecycle: ['active', 'deprecated', 'retired'] });
    expect(everything).toHaveLength(KNOWN_MODELS.length);
  });
});

describe('GET /v1/models/{model_id}', () => {
  it('resolves an alias to the model, in the ModelInfo shape with every capability key', async () => {
    const model = await client.models.retrieve('claude-sonnet-4-5');
    expect(model).toMatchObject({
      type: 'model',
      id: 'claude-sonnet-4-5-20250929',
      display_name: 'Claude Sonnet 4.5',
      line: 'sonnet',
      lifecycle: 'deprecated',
      created_at: '2025-09-29T00:00:00Z',
      deprecated_at: '2026-08-28T00:00:00Z',
      retires_at: '2026-11-30T00:00:00Z',
      max_input_tokens: 200_000,
      max_tokens: 64_000,
    });
    expect(Object.keys(model.capabilities ?? {}).sort()).toEqual(
      ['batch', 'citations', 'code_execution', 'context_management', 'effort', 'image_input', 'pdf_input', 'server_tools', 'structured_outputs', 'thinking'].sort(),
    );
  });

  it('derives thinking, effort and structured outputs from the catalog', async () => {
    const sonnet = await client.models.retrieve('claude-sonnet-5-5');
    expect(sonnet.capabilities?.thinking).toEqual({
      supported: true,
      types: { adaptive: { supported: true }, enabled: { supported: false }, between_tools: { supported: true }, disabled: { supported: false } },
    });
    expect(sonnet.capabilities?.effort).toMatchObject({ supported: true, xhigh: { supported: true }, max: { supported: true } });
    expect(sonnet.capabilities?.structured_outputs).toEqual({ supported: true });
    expect(sonnet.deprecated_at).toBeNull();

    const haiku = await client.models.retrieve('claude-haiku-4-5');
    expect(haiku.capabilities?.effort.supported).toBe(false);
    expect(haiku.capabilities?.thinking.types).toMatchObject({ enabled: { supported: true }, adaptive: { supported: false }, disabled: { supported: true } });
    // Opus 5 disables thinking only at effort high or below: `disabled` is still accepted.
    expect((await client.models.retrieve('claude-opus-5')).capabilities?.thinking.types.disabled).toEqual({ supported: true });
  });

  it('keeps a retired model as the record of its retirement; an unknown id is 404 not_found_error', async () => {
    expect((await client.models.retrieve('claude-3-7-sonnet-latest')).lifecycle).toBe('retired');
    const error = await client.models.retrieve('claude-nope').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).type).toBe('not_found_error');
  });

  it('needs credentials and a version, like Messages, and is logged as the models endpoint', async () => {
    const anonymous = await fetch(`${simulator.url}/v1/models`, { headers: { 'anthropic-version': '2023-06-01' } });
    expect(anonymous.status).toBe(401);
    const unversioned = await fetch(`${simulator.url}/v1/models`, { headers: { 'x-api-key': 'sim' } });
    expect(unversioned.status).toBe(400);
    const log = (await (await fetch(`${simulator.url}/_sim/requests`)).json()) as { requests: Array<{ endpoint: string; status: number }> };
    expect(log.requests.filter((entry) => entry.endpoint === 'models').map((entry) => entry.status).slice(-2)).toEqual([401, 400]);
  });
});
