// A simulator on a free loopback port and the real SDK pointed at it, for tests: the SDK's own
// retries are off, as in the fleet, so every attempt a test sees is one the test made.
import Anthropic from '@anthropic-ai/sdk';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../simulator-server.js';

/** Starts a simulator and an SDK client for it; the caller closes the simulator. */
export async function startSimulatorWithClient(options: SimulatorOptions = {}): Promise<{ simulator: RunningSimulator; client: Anthropic }> {
  const simulator = await startSimulator(options);
  return { simulator, client: new Anthropic({ apiKey: 'sim', baseURL: simulator.url, maxRetries: 0 }) };
}
