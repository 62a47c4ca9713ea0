// The shapes a tool call's steps share (src/tools/run-tool-job.ts and the files beside this one):
// the worker's dependencies, what the job ends as, and the call's context, passed to each step as
// one object instead of being captured by closures.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { ToolJobData } from '../../jobs/job-catalog.js';
import { type RunEngine, type StoredToolResult, type RunRecord } from '../../engine/index.js';
import type { KillSwitch } from '../../safety/kill-switch.js';
import type { ToolUpstream } from '../../safety/kill-switch-scope.js';
import type { ToolSafetyHooks } from '../../safety/safety-hooks.js';
import type { RunEventFields, RunEventLevel, RunEventName, RunEventOf } from '../../domain/run-events.js';

/** The events that name the call (its tool and tool_use_id), which the call's helpers fill in. */
export type ToolCallEventName = { [Name in RunEventName]: RunEventFields[Name] extends { tool: string; tool_use_id: string } ? Name : never }[RunEventName];
/** What the call's event helpers take: the event's fields less the call's own. */
export type ToolCallEventFields<Name extends ToolCallEventName> = Omit<RunEventFields[Name], 'tool' | 'tool_use_id'> & { level?: RunEventLevel };
import type { ToolImplementation } from '../tool-types.js';

export interface ToolJobDependencies {
  store: RunEngine;
  config: Config;
  logger: Logger;
  publicBaseUrl: string;
  /** Asked before every write tool starts; returns a refusal reason or null. */
  writeGuard?: (run: RunRecord, toolName: string) => Promise<string | null>;
  /** The scoped kill switch: claims writes, records validated outputs. Without it nothing is
   * recorded, but the guarded write scripts still refuse writes while a scope is read_only. */
  killSwitch?: KillSwitch;
  hooks?: ToolJobHooks;
  timeoutMs?: number;
}

export interface ToolJobHooks extends ToolSafetyHooks {
  onToolResult?(details: { tool: string; parseMode: string; status: 'ok' | 'empty' | 'error'; durationMs: number; errorCode?: string }): void;
}

/** The job's attempt as the queue sees it. `createdAtMs` (BullMQ job.timestamp) and `mayDelay`
 * (the worker holds the job's lock token) say whether a call may wait for a replica
 * (decide-tool-failure.ts); without them it may not. */
export interface ToolJobAttempt {
  attemptsMade: number;
  maxAttempts: number;
  createdAtMs?: number;
  mayDelay?: boolean;
}

/** How the job ends: a result in the ledger, nothing to do, or back to the queue (the tool worker
 * maps `retry` and `defer` onto BullMQ). */
export type ToolJobResult =
  /** `writes`: the tool is a write tool; unknown (undefined) when an earlier attempt recorded it. */
  | { kind: 'recorded'; result: StoredToolResult; cached: boolean; writes?: boolean }
  | { kind: 'skipped'; reason: string }
  | { kind: 'retry'; error: unknown }
  | { kind: 'defer'; delayMs: number; error: unknown };

/** The call once its run is loaded (run-tool-job.ts). */
export interface ToolCallContext {
  deps: ToolJobDependencies;
  data: ToolJobData;
  job: ToolJobAttempt;
  run: RunRecord;
  /** The upstreams the run's writes depended on when the call was loaded, for the kill switch's
   * claim (RunEngine.loadToolCall reads them with the run). */
  liveUpstreams: readonly string[];
  /** The call's entry in the run's trail, less its outcome. */
  trail: { tool: string; phase: RunRecord['phase']; turn: number; toolUseId: string };
  /** One of the call's events, and the same appended on its own. */
  event<Name extends ToolCallEventName>(name: Name, fields: ToolCallEventFields<Name>): RunEventOf<Name>;
  emit<Name extends ToolCallEventName>(name: Name, fields: ToolCallEventFields<Name>): Promise<string>;
}

/** A call whose input passed its schema: the tool it runs and, for a write tool, its kill-switch claim. */
export interface CheckedToolCall {
  toolName: string;
  definition: ToolImplementation;
  input: unknown;
  /** The kill switch's subject of this call's outcome. */
  killSwitchSubject: { runId: string; tenant: string; upstream: ToolUpstream };
  /** A probe write's token ('' when the claim is no probe), and whether its outcome settled it. */
  probe: { token: string; settled: boolean };
  claimedAtMs: number | null;
}
