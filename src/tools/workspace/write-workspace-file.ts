// The tool side of a workspace write: the engine's one write path (src/engine/effects/
// workspace-files.ts, which enforces the caps and the write fence atomically) with each outcome
// that wrote nothing turned into the ToolError the model acts on.
import { assertNever } from '../../domain/assert-never.js';
import {
  type RunEngine,
  writeWorkspaceFile,
  type WriteWorkspaceFileOutcome,
  MAX_FILE_BYTES,
  MAX_WORKSPACE_BYTES,
  MAX_WORKSPACE_FILES,
  type WriteFence,
} from '../../engine/index.js';
import { ToolError } from '../tool-types.js';
import { writeRefusalError } from './write-fence.js';

/** The ToolError of a write outcome, or null for 'ok' and 'stale' (a newer guarded write won,
 * which for the caller is success: the file holds content at least as new as its own). */
export function workspaceWriteError({ outcome, path, bytes }: { outcome: WriteWorkspaceFileOutcome; path: string; bytes: number }): ToolError | null {
  switch (outcome) {
    case 'ok':
    case 'stale':
      return null;
    case 'killswitch_read_only':
    case 'safe_mode_skip_writes':
    case 'run_ended':
      return writeRefusalError(outcome);
    case 'file_too_large':
      return new ToolError('file_too_large', `${path} would be ${bytes} bytes; one file may hold at most ${MAX_FILE_BYTES} bytes (512 KB).`);
    case 'workspace_file_limit':
      return new ToolError(
        'workspace_file_limit',
        `The workspace already holds ${MAX_WORKSPACE_FILES} files; delete one with delete_file before adding ${path}.`,
      );
    case 'workspace_too_large':
      return new ToolError(
        'workspace_too_large',
        `Writing ${path} (${bytes} bytes) would take the workspace past ${MAX_WORKSPACE_BYTES} bytes (5 MB); shrink or delete files first.`,
      );
    default:
      return assertNever(outcome, 'bfWriteWorkspaceFile returned an unknown outcome');
  }
}

/** Writes a workspace file (path already through normalizeWorkspacePath) or throws its ToolError. */
export async function writeWorkspaceFileOrThrow({
  store,
  runId,
  path,
  content,
  fence,
}: {
  store: RunEngine;
  runId: string;
  path: string;
  content: string;
  fence: WriteFence;
}): Promise<void> {
  const outcome = await writeWorkspaceFile({ engine: store, runId, path, content, fence });
  const error = workspaceWriteError({ outcome, path, bytes: Buffer.byteLength(content) });
  if (error) throw error;
}
