// delete_file: removes one workspace file.
import { z } from 'zod';
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { deleteWorkspaceFile } from '../../engine/index.js';
import { defineTool, ToolError } from '../tool-types.js';
import { writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';

export const deleteFileTool = defineTool({
  name: 'delete_file',
  description: toolDescriptions.delete_file,
  inputSchema: toolInputSchemas.delete_file,
  output: {
    schema: z.strictObject({ path: z.string().min(1), deleted: z.literal(true) }),
    mode: 'fail_closed',
  },
  writes: true,
  // The effect is repeatable, but a retry after a delete that did happen reports file_not_found,
  // which would tell the model the opposite of what occurred.
  idempotent: false,
  async execute(input, context) {
    const path = normalizeWorkspacePath(input.path);
    const outcome = await deleteWorkspaceFile({ engine: context.store, runId: context.runId, path, fence: writeFenceOf(context) });
    if (outcome === 'missing') {
      throw new ToolError('file_not_found', `The workspace has no file ${path}; use list_files to see the files.`);
    }
    if (outcome !== 'ok') throw writeRefusalError(outcome);
    return { path, deleted: true };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default deleteFileTool;
