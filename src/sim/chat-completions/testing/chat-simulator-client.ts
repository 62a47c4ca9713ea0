// The simulator's /v1/chat/completions over real HTTP through the openai SDK, for the chat tests:
// one simulator per test file (seed 1), a client on it, and the first turn of a build.
import OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator-server.js';

/** An open-weights model the simulator serves with the chat grammar. */
export const CHAT_MODEL = 'Qwen/Qwen2.5-7B-Instruct';

export const FIRST_TURN = [
  { role: 'system' as const, content: 'You build small websites.' },
  { role: 'user' as const, content: 'Build a one-page site for a bakery called Crumbs.' },
];

/** Starts the simulator before the file's tests and stops it after; `client()` is the SDK on it. */
export function useChatSimulator(): { client(): OpenAI; simulator(): RunningSimulator } {
  let simulator: RunningSimulator | undefined;
  let client: OpenAI | undefined;
  beforeAll(async () => {
    simulator = await startSimulator({ seed: 1 });
    client = new OpenAI({ apiKey: 'sim', baseURL: `${simulator.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => simulator?.close());
  return { client: () => client!, simulator: () => simulator! };
}
