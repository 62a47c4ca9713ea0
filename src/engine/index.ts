// The run engine's public face: the only module of src/engine/ that code outside it may import
// (rule `engine-imported-through-its-index`, .dependency-cruiser.cjs; docs/architecture.md#the-run-engine).
// What is not exported here — the scripts, the systems, the key layout of a run's keys beyond
// KeySpace — is the engine's own, and may change without a caller noticing.

// The engine and its transitions (run-engine.ts): every key, script and transition of a run.
export { RunEngine, newRunId } from './run-engine.js';
export type { RunUpstreams } from './run-engine.js';
export type { CreateRunInput, RunArchiveSource, RunEvent, RunPark, StoredEvent, StoredToolResult, TrailEntry, TurnInspection, TurnView } from './run-engine.js';
export type { Admission } from './systems/admission-system.js';
export type { IdempotentSubmission } from './systems/idempotency-system.js';
export { createKeySpace } from './keys.js';
export type { KeySpace } from './keys.js';

// A run as stored and read back, validated.
export {
  RUN_STATUSES,
  countersSchema,
  isTerminal,
  questionSchema,
  runErrorSchema,
  runOptionsSchema,
  runThinkingSchema,
  runWebhookSchema,
  todoState,
  usageSchema,
} from './run-types.js';
export type { RunCounters, RunOptions, RunRecord, RunStatus, RunThinking, RunWebhook, TerminalStatus, TodoState } from './run-types.js';
export { StoredRunInvalid } from './run-record.js';
export type { RunSummaryRecord } from './run-summary.js';
export type { NextInput, PlannedDispatch, TurnOutcome } from './turn-outcome.js';
export { RESUMABLE_RUN_ERRORS, isResumableRunError } from './resumable-run-errors.js';

// Tenants: policy overrides and spend.
export { TenantPolicyStore } from './tenant-policy-store.js';
export { spendPeriods } from './tenant-spend.js';
export type { TenantSpendPeriod } from './tenant-spend.js';

// A write tool's effects behind the write fence (effects/), their limits, durability and audit.
export { UNNAMED_WRITE_FENCE } from './effects/write-fence.js';
export type { WriteFence, WriteRefusal } from './effects/write-fence.js';
export { deleteWorkspaceFile, writeWorkspaceFile } from './effects/workspace-files.js';
export type { WriteWorkspaceFileOutcome } from './effects/workspace-files.js';
export { MAX_FILE_BYTES, MAX_WORKSPACE_BYTES, MAX_WORKSPACE_FILES } from './effects/workspace-limits.js';
export { publishDeployment, readWorkspaceFiles, recordDeployment } from './effects/deployments.js';
export { readRunAsset, setRunAsset } from './effects/run-assets.js';
export { readTheme, updateTheme } from './effects/run-theme.js';
export type { StoredTheme, ThemeColors, ThemeFonts } from './effects/run-theme.js';
export { updateRunFields } from './effects/run-fields.js';
export { completeTodo } from './effects/complete-todo.js';
export { readScreenshot, saveScreenshot } from './effects/screenshots.js';
export { ClaimNotDurableError, claimDurabilityOf } from './effects/claim-durability.js';
export { readWriteJournal } from './write-journal.js';
export type { WriteJournalEntry } from './write-journal.js';
export { auditRunEffects } from './audit-run-effects.js';
export type { EffectAudit } from './audit-run-effects.js';

// The kill switch's keys and Lua shared with the write fence (the kill switch itself is src/safety/;
// the one part of its state that is a run's, the upstreams the run's writes depend on, is the
// engine's: RunEngine.noteRunUpstream / liveUpstreamsOf).
export { killSwitchScopesKey, killSwitchTripsKey, scopeFailingTenantsKey, scopeTenantsKey, scopeWindowKey } from './kill-switch-keys.js';
export { LUA_RUN_UPSTREAM_SCOPES, MAX_RUN_UPSTREAMS, RUN_READ_EVERY_UPSTREAM } from './run-upstream-scopes-lua.js';
