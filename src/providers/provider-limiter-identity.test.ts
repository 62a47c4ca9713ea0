import { describe, expect, it } from 'vitest';
import { limiterIdentity } from '../model/model-rate-limiter.js';
import { providerLimiterIdentity, type ImplicitProviderEndpoint } from './provider-limiter-identity.js';
import { readProviderSettings } from './provider-settings.js';

const endpoint: ImplicitProviderEndpoint = { ANTHROPIC_API_KEY: 'sk-ant-live', ANTHROPIC_BASE_URL: undefined, BUILDFLEET_SIMULATOR_URL: undefined };

function identities(declarations: Record<string, { kind: 'anthropic' | 'bedrock' | 'vertex' | 'openai_compatible'; [option: string]: unknown }>, implicit = endpoint) {
  const settings = readProviderSettings({ BUILDFLEET_PROVIDERS: declarations, ANTHROPIC_API_KEY: implicit.ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL: implicit.ANTHROPIC_BASE_URL });
  return Object.fromEntries([...settings].map(([name, setting]) => [name, providerLimiterIdentity(setting, implicit)]));
}

describe('a provider’s limiter identity', () => {
  it('is, for the implicit provider, the one the limiter had before providers existed: its key, else its URL', () => {
    expect(identities({}).anthropic).toBe(limiterIdentity({ apiKey: 'sk-ant-live' }));
    const simulator: ImplicitProviderEndpoint = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, BUILDFLEET_SIMULATOR_URL: 'http://127.0.0.1:4010' };
    expect(identities({}, simulator).anthropic).toBe(limiterIdentity({ baseUrl: 'http://127.0.0.1:4010' }));
    expect(providerLimiterIdentity(readProviderSettings({ BUILDFLEET_PROVIDERS: {}, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined }).get('anthropic')!, { ...simulator, clientBaseUrl: 'http://127.0.0.1:5020' })).toBe(
      limiterIdentity({ baseUrl: 'http://127.0.0.1:5020' }),
    );
  });

  it('follows each declared provider’s own key or endpoint, never showing the key', () => {
    const all = identities({
      second: { kind: 'anthropic', apiKey: 'sk-ant-other' },
      'gpu-1': { kind: 'openai_compatible', baseUrl: 'http://gpu-1:8000/v1' },
      'gpu-2': { kind: 'openai_compatible', baseUrl: 'http://gpu-2:8000/v1' },
      east: { kind: 'bedrock', region: 'us-east-1', awsAccessKey: 'AKIA1', awsSecretKey: 'secret' },
      west: { kind: 'bedrock', region: 'us-west-2', awsAccessKey: 'AKIA1', awsSecretKey: 'secret' },
      vertex: { kind: 'vertex', region: 'us-east5', projectId: 'acme', accessToken: 'ya29.token' },
    });
    expect(new Set(Object.values(all)).size).toBe(Object.keys(all).length);
    expect(all.second).toBe(limiterIdentity({ apiKey: 'sk-ant-other' }));
    for (const identity of Object.values(all)) expect(identity).toMatch(/^(key|url)-[0-9a-f]{16}$/);
  });
});
