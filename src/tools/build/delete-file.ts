// delete_file: removes one workspace file.
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool, ToolError } from '../tool-types.js';

export const deleteFileTool = defineTool({
  name: 'delete_file',
  description: 'Delete one file from the site workspace by its relative path. Deployments already made keep their copy.',
  inputSchema: toolInputSchemas.delete_file,
  writes: true,
  // The effect is repeatable, but a retry after a delete that did happen reports file_not_found,
  // which would tell the model the opposite of what occurred.
  idempotent: false,
  async execute(input, context) {
    const path = normalizeWorkspacePath(input.path);
    if (!(await context.store.deleteFile(context.runId, path))) {
      throw new ToolError('file_not_found', `The workspace has no file ${path}; use list_files to see the files.`);
    }
    return { path, deleted: true };
  },
});
