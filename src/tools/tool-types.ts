// What a tool is to the fleet: its input schema, whether it writes, whether it may be retried,
// and an execute function. Tool failures the model can act on are ToolError (they become
// is_error tool_results); anything else thrown is an infrastructure failure and is retried.
import type { z } from 'zod';
import type { Logger } from 'pino';
import type { Phase, ToolName } from '../agent/profile.js';
import type { Config } from '../config.js';
import type { RunRecord } from '../runs/run-types.js';
import type { RunStore } from '../runs/run-store.js';

export interface ToolContext {
  runId: string;
  run: RunRecord;
  turn: number;
  toolUseId: string;
  phase: Phase;
  store: RunStore;
  config: Config;
  logger: Logger;
  signal: AbortSignal;
  /** Base URL under which the API serves deployed sites, e.g. http://127.0.0.1:8080 */
  publicBaseUrl: string;
}

export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  name: ToolName;
  description: string;
  inputSchema: Schema;
  /** Changes the workspace, a deployment or what is published: refused by the kill switch. */
  writes: boolean;
  /** Safe to run again after an unknown outcome (a timeout after sending). */
  idempotent: boolean;
  execute(input: z.infer<Schema>, context: ToolContext): Promise<unknown>;
}

/** A failure the model should see as an is_error tool_result, with a stable code. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }

  static isInstance(value: unknown): value is ToolError {
    return value instanceof Error && value.name === 'ToolError' && typeof (value as ToolError).code === 'string';
  }
}

/** Helper so each tool file keeps its input type inferred from its schema. */
export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): ToolDefinition<Schema> {
  return definition;
}
