// Test-only: a real RunStore on the suite's Redis under a private prefix, runs to call tools on,
// and ToolContexts built the way the tool worker builds them. Not used by production code.
import pino from 'pino';
import type { Redis } from 'ioredis';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../../../test/support/redis.js';
import { configSchema, type Config } from '../../config.js';
import { createKeySpace } from '../../runs/keys.js';
import { RunStore } from '../../runs/run-store.js';
import type { RunRecord } from '../../runs/run-types.js';
import type { ToolContext, ToolDefinition } from '../tool-types.js';

export interface ToolTestHarness {
  redis: Redis;
  store: RunStore;
  prefix: string;
  /** Creates a run, optionally already in a later phase. */
  newRun(update?: Partial<RunRecord>): Promise<RunRecord>;
  /** A context for a run, read fresh from the store; overrides replace any field. */
  contextFor(runId: string, overrides?: Partial<Omit<ToolContext, 'config'>> & { config?: Partial<Config> }): Promise<ToolContext>;
  /** Parses input with the tool's schema (as the worker does) and executes it. */
  call(tool: ToolDefinition, input: unknown, context: ToolContext): Promise<any>;
  close(): Promise<void>;
}

let toolUseSequence = 0;

export async function createToolTestHarness(label: string): Promise<ToolTestHarness> {
  const redis = connectTestRedis();
  const prefix = uniquePrefix(label);
  const store = new RunStore(redis, createKeySpace(prefix));
  const logger = pino({ level: 'silent' });
  const baseConfig = configSchema.parse({});
  return {
    redis,
    store,
    prefix,
    async newRun(update) {
      const run = await store.createRun({
        tenant: 'tenant-test',
        prompt: 'Build a site for a bakery',
        model: 'test-model',
        maxTurns: 40,
        maxTokens: 4096,
        options: {},
      });
      if (update) await store.updateRun(run.id, update);
      return (await store.getRun(run.id)) as RunRecord;
    },
    async contextFor(runId, overrides = {}) {
      const run = (await store.getRun(runId)) as RunRecord;
      const { config, ...rest } = overrides;
      toolUseSequence += 1;
      return {
        runId,
        run,
        turn: run.turn,
        toolUseId: `toolu_test_${toolUseSequence}`,
        phase: run.phase,
        store,
        config: Object.freeze({ ...baseConfig, ...config }),
        logger,
        signal: new AbortController().signal,
        publicBaseUrl: 'http://127.0.0.1:9',
        ...rest,
      };
    },
    async call(tool, input, context) {
      return tool.execute(tool.inputSchema.parse(input), context);
    },
    async close() {
      await deletePrefix(redis, prefix);
      await redis.quit();
    },
  };
}
