// One simulator per test file, started before its tests and closed after them, with the real SDK
// client and raw-body helpers (raw-messages.ts): the per-model rule tests share this set-up.
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll } from 'vitest';
import type { RunningSimulator, SimulatorOptions } from '../simulator-server.js';
import { rawMessages } from './raw-messages.js';
import { startSimulatorWithClient } from './start-simulator-with-client.js';

export interface SimulatorApi {
  simulator: RunningSimulator;
  client: Anthropic;
  api: ReturnType<typeof rawMessages>;
}

/** Registers the simulator's start and close; the returned object is filled once the tests run. */
export function useSimulatorApi({ options = {} }: { options?: SimulatorOptions } = {}): SimulatorApi {
  const context = {} as SimulatorApi;
  beforeAll(async () => {
    const { simulator, client } = await startSimulatorWithClient(options);
    Object.assign(context, { simulator, client, api: rawMessages({ client }) });
  });
  afterAll(() => context.simulator.close());
  return context;
}
