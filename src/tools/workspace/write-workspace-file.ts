// The only way tools put a file into a run's workspace: enforces the per-run caps atomically
// (see bfWriteWorkspaceFile) so parallel writes of one turn cannot together overshoot them.
import { assertNever } from '../../agent/profile.js';
import type { RunStore } from '../../runs/run-store.js';
import { defineToolScripts } from '../tool-scripts.js';
import { ToolError } from '../tool-types.js';
import { fenceArgs, fenceKeys, writeRefusalError, type WriteFence } from './write-fence.js';

export const MAX_WORKSPACE_FILES = 200;
export const MAX_FILE_BYTES = 512 * 1024;
export const MAX_WORKSPACE_BYTES = 5 * 1024 * 1024;

export interface WriteWorkspaceFileInput {
  store: RunStore;
  runId: string;
  /** Already through normalizeWorkspacePath. */
  path: string;
  content: string;
  /** Write only while this field of this hash still holds this value (generated files). */
  guard?: { key: string; field: string; value: string };
  /** The calling tool and its kill switch probe token (see write-fence.ts). */
  fence?: WriteFence;
}

/** Writes a workspace file within the caps; returns false only when a guarded write was
 * superseded by a newer one. Throws ToolError for a broken cap, and for a write the kill switch,
 * the run's safe mode or its end refuses (checked in the same Lua step as the write). */
export async function writeWorkspaceFile({ store, runId, path, content, guard, fence }: WriteWorkspaceFileInput): Promise<boolean> {
  const bytes = Buffer.byteLength(content);
  // Checked here too so an oversized body is refused without shipping it to Redis.
  if (bytes > MAX_FILE_BYTES) {
    throw new ToolError('file_too_large', `${path} would be ${bytes} bytes; one file may hold at most ${MAX_FILE_BYTES} bytes (512 KB).`);
  }
  const filesKey = store.keys.files(runId);
  const outcome = await defineToolScripts(store.redis).bfWriteWorkspaceFile(
    ...fenceKeys(store, runId),
    filesKey,
    guard?.key ?? filesKey,
    ...fenceArgs(fence),
    path,
    content,
    MAX_WORKSPACE_FILES,
    MAX_FILE_BYTES,
    MAX_WORKSPACE_BYTES,
    guard?.field ?? '',
    guard?.value ?? '',
  );
  switch (outcome) {
    case 'ok':
      return true;
    case 'stale':
      return false;
    case 'killswitch_read_only':
    case 'safe_mode_skip_writes':
    case 'run_ended':
      throw writeRefusalError(outcome);
    case 'file_too_large':
      throw new ToolError('file_too_large', `${path} would be ${bytes} bytes; one file may hold at most ${MAX_FILE_BYTES} bytes (512 KB).`);
    case 'workspace_file_limit':
      throw new ToolError(
        'workspace_file_limit',
        `The workspace already holds ${MAX_WORKSPACE_FILES} files; delete one with delete_file before adding ${path}.`,
      );
    case 'workspace_too_large':
      throw new ToolError(
        'workspace_too_large',
        `Writing ${path} (${bytes} bytes) would take the workspace past ${MAX_WORKSPACE_BYTES} bytes (5 MB); shrink or delete files first.`,
      );
    default:
      return assertNever(outcome, 'bfWriteWorkspaceFile returned an unknown outcome');
  }
}
