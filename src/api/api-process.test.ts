import { describe, expect, it } from 'vitest';
import type { FleetContext } from '../fleet/fleet-context.js';
import { ProviderConfigurationError } from '../providers/provider-settings.js';
import { startApiProcess } from './api-process.js';

describe('startApiProcess', () => {
  it('refuses to start on a provider declaration whose options are wrong, naming the field, before it builds anything', async () => {
    // Only the configuration: the check comes before the server, Redis or anything else is used.
    const fleet = { config: { BUILDFLEET_PROVIDERS: { vllm: { kind: 'openai_compatible', baseUrl: 'ftp://gpu-1:8000/v1' } } } } as unknown as FleetContext;
    const started = startApiProcess(fleet);
    await expect(started).rejects.toBeInstanceOf(ProviderConfigurationError);
    await expect(started).rejects.toThrow('BUILDFLEET_PROVIDERS.vllm.baseUrl: must be an http:// or https:// URL');
  });
});
