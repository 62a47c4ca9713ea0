// The per-run workspace caps, in one place: the write script enforces them atomically
// (bfWriteWorkspaceFile in ../effect-scripts.ts), tools quote them in their error messages and
// tool descriptions state them to the model (src/tools/tool-definitions.ts: "512 KB per file,
// 200 files, 5 MB in total").

export const MAX_WORKSPACE_FILES = 200;
export const MAX_FILE_BYTES = 512 * 1024;
export const MAX_WORKSPACE_BYTES = 5 * 1024 * 1024;
