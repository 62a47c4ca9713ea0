// What a tool is to the fleet: its input schema, its output contract, whether it writes, whether
// it may be retried, and an execute function. Tool failures the model can act on are ToolError
// (they become is_error tool_results); an output that breaks its contract is ToolOutputInvalid
// (output/tool-output-invalid.ts); anything else thrown is an infrastructure failure and is retried.
import type { z } from 'zod';
import type { Logger } from 'pino';
import type { Phase } from '../domain/profile.js';
import type { Config } from '../config.js';
import type { RunRecord, RunEngine, WriteFence } from '../engine/index.js';
import type { ToolOutputContract } from '../domain/tool-output-contract.js';

export interface ToolContext {
  runId: string;
  run: RunRecord;
  turn: number;
  toolUseId: string;
  phase: Phase;
  store: RunEngine;
  config: Config;
  logger: Logger;
  signal: AbortSignal;
  /** Base URL of the sites origin, under which deployed sites are served (BUILDFLEET_SITES_PUBLIC_URL,
   * e.g. http://127.0.0.1:8081); never the API's origin. */
  publicBaseUrl: string;
  /** Set by the tool worker for write tools: the tool's name and its kill switch probe token,
   * passed to the guarded write scripts (src/engine/effects/write-fence.ts). */
  writeFence?: WriteFence;
}

export interface ToolImplementation<Schema extends z.ZodType = z.ZodType, Output = any> {
  /** The builder's tools are ToolNames; a tool defined elsewhere (an HTTP tool) names itself. */
  name: string;
  description: string;
  inputSchema: Schema;
  /** What the output must be (validate-tool-output.ts) and what happens when it is not. */
  output: ToolOutputContract<Output>;
  /** Changes the workspace, a deployment or what is published: refused by the kill switch. */
  writes: boolean;
  /** Safe to run again after an unknown outcome (a timeout after sending). */
  idempotent: boolean;
  /** How long a call may run before its signal aborts it (1,000 to 600,000 ms); unset: 60 s. An
   * agent's definition may declare it instead (define-agent.ts). */
  timeoutMs?: number;
  /** For a tool served by one endpoint (an HTTP tool): that endpoint, whose host is the call's
   * upstream for the kill switch whatever the input holds. Unset: the input's `url`, if any. */
  serviceUrl?: string;
  execute(input: z.infer<Schema>, context: ToolContext): Promise<unknown>;
}

// Re-exported so a tool file takes defineTool and ToolError from one place.
export { ToolError } from '../domain/tool-error.js';

/** Helper so each tool file keeps its input type inferred from its schema (and its output type
 * from its output schema, for the invariants). */
export function defineTool<Schema extends z.ZodType, Output>(definition: ToolImplementation<Schema, Output>): ToolImplementation<Schema, Output> {
  return definition;
}
