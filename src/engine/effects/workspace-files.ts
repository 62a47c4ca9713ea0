// The run's workspace, written: a file put or deleted through the guarded scripts, so the caps
// hold under parallel writes of one turn and the kill switch, the run's safe mode and its end are
// checked in the same Lua step as the write. This is the one write path of the workspace: the
// write tools use it, and so do tests that seed a workspace. Refusals come back as outcome codes;
// the tools turn them into ToolErrors (src/tools/workspace/).
import { defineToolScripts, type WriteWorkspaceFileOutcome } from '../effect-scripts.js';
import { themeKey } from '../effect-keys.js';
import type { RunEngine } from '../run-engine.js';
import { fenceArgs, fenceKeys, type WriteFence, type WriteRefusal } from './write-fence.js';
import { MAX_FILE_BYTES, MAX_WORKSPACE_BYTES, MAX_WORKSPACE_FILES } from './workspace-limits.js';

export type { WriteWorkspaceFileOutcome } from '../effect-scripts.js';

export interface WriteWorkspaceFileInput {
  engine: RunEngine;
  runId: string;
  /** Already through normalizeWorkspacePath (src/safety/workspace-path.ts). */
  path: string;
  content: string;
  /** The calling tool and its kill switch probe token; default: unnamed, no probe. */
  fence?: WriteFence | undefined;
  /** Write only while the run's theme is still at this version (theme.css, see run-theme.ts):
   * otherwise 'stale' and nothing is written, because a newer theme update owns the file. */
  guard?: { themeVersion: number } | undefined;
}

/**
 * Writes one workspace file within the caps. Returns 'ok', 'stale' (a guarded write that a newer
 * one superseded), the cap it would break ('file_too_large', 'workspace_file_limit',
 * 'workspace_too_large') or the fence's refusal; in every case but 'ok' nothing was written.
 */
export async function writeWorkspaceFile({ engine, runId, path, content, fence, guard }: WriteWorkspaceFileInput): Promise<WriteWorkspaceFileOutcome> {
  // The script checks the size too; checking here first keeps an oversized body off the wire.
  if (Buffer.byteLength(content) > MAX_FILE_BYTES) return 'file_too_large';
  const filesKey = engine.keys.files(runId);
  return defineToolScripts(engine.redis).bfWriteWorkspaceFile(
    ...fenceKeys(engine, runId),
    filesKey,
    // Unguarded writes name the files hash as the (unused) guard key: the script must be given a
    // key of the run's slot either way.
    guard ? themeKey(engine.keys, runId) : filesKey,
    ...(await fenceArgs(engine, fence)),
    path,
    content,
    MAX_WORKSPACE_FILES,
    MAX_FILE_BYTES,
    MAX_WORKSPACE_BYTES,
    guard ? 'version' : '',
    guard ? String(guard.themeVersion) : '',
  );
}

/** Deletes one workspace file: 'ok', 'missing' (no such file) or the fence's refusal. */
export async function deleteWorkspaceFile({
  engine,
  runId,
  path,
  fence,
}: {
  engine: RunEngine;
  runId: string;
  path: string;
  fence?: WriteFence | undefined;
}): Promise<'ok' | 'missing' | WriteRefusal> {
  return defineToolScripts(engine.redis).bfDeleteWorkspaceFile(
    ...fenceKeys(engine, runId),
    engine.keys.files(runId),
    ...(await fenceArgs(engine, fence)),
    path,
  );
}
