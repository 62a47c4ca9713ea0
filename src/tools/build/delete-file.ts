// delete_file: removes one workspace file.
import { z } from 'zod';
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';
import { toolInputSchemas } from '../input-schemas.js';
import { defineToolScripts } from '../tool-scripts.js';
import { defineTool, ToolError } from '../tool-types.js';
import { fenceArgs, fenceKeys, writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';

export const deleteFileTool = defineTool({
  name: 'delete_file',
  description: 'Delete one file from the site workspace by its relative path. Deployments already made keep their copy.',
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
    const outcome = await defineToolScripts(context.store.redis).bfDeleteWorkspaceFile(
      ...fenceKeys(context.store, context.runId),
      context.store.keys.files(context.runId),
      ...fenceArgs(writeFenceOf(context)),
      path,
    );
    if (outcome === 'missing') {
      throw new ToolError('file_not_found', `The workspace has no file ${path}; use list_files to see the files.`);
    }
    if (outcome !== 'ok') throw writeRefusalError(outcome);
    return { path, deleted: true };
  },
});
