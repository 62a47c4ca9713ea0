// A tool's output contract, declared beside its input schema on the ToolImplementation: how large
// its output may be, which media types it accepts from upstream (tools that read HTTP), the schema
// and invariants its final output must meet, and what the fleet does when it does not.
import type { z } from 'zod';
import type { ToolOutputMode } from './tool-output-modes.js';

/** Default cap on the serialised output (and, for HTTP tools, on the upstream body in bytes). */
export const DEFAULT_MAX_OUTPUT_CHARACTERS = 200_000;

/** What an invariant may look at besides the output. */
export interface InvariantContext {
  runId: string;
  toolUseId: string;
  /** The tool's input, already through its input schema. */
  input: unknown;
  /** Base URL of the sites origin, under which deployed sites are served. */
  publicBaseUrl: string;
}

export interface ToolOutputInvariant<Output = unknown> {
  /** snake_case; becomes the reason `invariant:<name>`. */
  name: string;
  /** true when the output keeps the invariant; false or a sentence saying what is wrong when not.
   * (Method syntax on purpose: contracts of different outputs share one catalog type.) */
  check(output: Output, context: InvariantContext): boolean | string;
}

/** Where a last-known-good output may be reused: only for the same run (run-scoped reads), for
 * any run (reads of public URLs), or never (write tools: their output describes an effect). */
export type LastKnownGoodScope = 'per_run' | 'fleet_wide' | 'never';

export interface ToolOutputContract<Output = unknown> {
  /** Upper bound on the JSON-serialised output in characters, and for HTTP tools on the upstream
   * body in bytes (the fetch stops reading there). Default 200,000. */
  maxCharacters?: number;
  /** Media types the tool accepts from upstream (`image/*` matches any image type). HTTP tools
   * only; a tool may narrow them per call (fetch_url_live does for the fleet's own sites). */
  contentTypes?: readonly string[];
  /** The final output's shape; strict objects, so a renamed or added field is drift. */
  schema: z.ZodType<Output>;
  invariants?: ReadonlyArray<ToolOutputInvariant<Output>>;
  /** Default mode; BUILDFLEET_TOOL_OUTPUT_MODES overrides it per tool. */
  mode: ToolOutputMode;
  /** Default: 'never' for write tools, 'per_run' for the others. */
  lastKnownGood?: LastKnownGoodScope;
}

/** The cap a contract sets, with the default applied. */
export function maxCharactersOf(contract: Pick<ToolOutputContract, 'maxCharacters'>): number {
  return contract.maxCharacters ?? DEFAULT_MAX_OUTPUT_CHARACTERS;
}
