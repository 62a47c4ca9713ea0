import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../sim/simulator-server.js';
import type { ModelRequest } from '../model/model-client.js';
import { createOpenAiCompatibleProvider, openAiCompatibleProviderOptionsSchema } from './openai-compatible-provider.js';

const SERVED_MODEL = 'Qwen/Qwen2.5-7B-Instruct';

const request: ModelRequest = {
  model: 'qwen-coder',
  maxTokens: 512,
  system: 'You build sites.',
  messages: [{ role: 'user', content: 'Build a bakery site.' }],
  tools: [{ name: 'finish_turn', description: 'Finish.', input_schema: { type: 'object', properties: {} } }],
  toolChoice: { type: 'auto' },
  stopSequences: ['\n---END---'],
  headers: { 'x-buildfleet-run-id': 'run_extra_body' },
};

let simulator: RunningSimulator;
beforeAll(async () => {
  simulator = await startSimulator({});
});
afterAll(async () => simulator?.close());

describe('the openai_compatible provider’s extraBody', () => {
  it('reaches the server in every request body, beside the fields the fleet sets', async () => {
    const options = openAiCompatibleProviderOptionsSchema.parse({
      baseUrl: `${simulator.url}/v1`,
      modelIds: { 'qwen-coder': SERVED_MODEL },
      extraBody: { skip_special_tokens: false, chat_template_kwargs: { enable_thinking: false } },
    });
    const provider = createOpenAiCompatibleProvider({ name: 'vllm', options, limiterIdentity: 'url-test', connectTimeoutMs: 10_000 });
    const result = await provider.call(request, { idleTimeoutMs: 10_000 });
    expect(result.response.content.length).toBeGreaterThan(0);
    const sent = simulator.requests.filter((recorded) => recorded.headers['x-buildfleet-run-id'] === 'run_extra_body' && recorded.path.startsWith('/v1/chat/completions'));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({
      skip_special_tokens: false,
      chat_template_kwargs: { enable_thinking: false },
      model: SERVED_MODEL,
      max_tokens: 512,
      stream: true,
      stream_options: { include_usage: true },
      stop: ['\n---END---'],
    });
  });

  it.each(['model', 'messages', 'tools', 'tool_choice', 'max_tokens', 'max_completion_tokens', 'stop', 'stream', 'stream_options', 'n'])('refuses to override %s, naming it', (field) => {
    const parsed = openAiCompatibleProviderOptionsSchema.safeParse({ baseUrl: 'http://gpu-1:8000/v1', extraBody: { skip_special_tokens: false, [field]: 1 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual([`extraBody.${field}`]);
  });
});
