// The contract of the text tool-call parser: the modes it reports, the validator it calls, its
// options and its result. Field names of ParseResult are snake_case because they are telemetry
// attributes logged and exported as they are.

import type { ParseMode } from '../domain/parse-modes.js';

/** How a tool call reached the runtime. `native` is the API's own tool_use block: the runtime
 * reports it; this parser never produces it. `none` means no single candidate was found. */
export type { ParseMode };

/** The modes a text candidate can have (phase 1 output). */
export type CandidateMode = Exclude<ParseMode, 'native' | 'none'>;

export type ArgumentValidation = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/** Strict validation of one tool's arguments: no coercion, no defaults, unknown fields as the
 * schema says. A refusal's reason is machine-readable, e.g. `schema_invalid:/path:missing_required`. */
export type ArgumentValidator = (name: string, args: unknown) => ArgumentValidation;

export interface ParseOptions {
  /** The tools of the current tier: the only names that can become a call. */
  allowedTools: readonly string[];
  validate: ArgumentValidator;
  /** The runtime expected a tool call this turn; without it (or a marker in the text) only tags
   * are considered. */
  toolIntent: boolean;
  /** Largest fallback candidate (strict JSON, fenced, bracket) in UTF-8 bytes; default 2048. */
  maxFallbackBytes?: number;
  /** Every tool in the catalog, so a name outside the tier reads `not_in_tier:NAME` rather than
   * `unknown_tool:NAME`; defaults to allowedTools. */
  knownTools?: readonly string[];
}

export interface ParsedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type SchemaValidationOutcome = 'pass' | 'fail' | 'not_run';

export interface ParseResult {
  /** At most one call: the exactly-one gate refuses several. */
  calls: ParsedToolCall[];
  /** The mode of the single candidate considered (accepted or refused); `none` when there was not
   * exactly one. */
  parse_mode: ParseMode;
  candidate_count: number;
  /** The single candidate came from a fallback (json, fenced or bracket). */
  fallback_used: boolean;
  schema_validation: SchemaValidationOutcome;
  /** Null when a call was produced; otherwise a code from parse-reasons.ts. */
  reason: string | null;
  /** The visible text ends inside an open ``` code block (the model stopped mid-fence). */
  fence_only_stop: boolean;
  /** No call was produced, yet the visible text holds something shaped like a JSON tool call. */
  json_in_text: boolean;
}
