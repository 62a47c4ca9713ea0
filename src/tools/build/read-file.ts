// read_file: one workspace file's content.
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool, ToolError } from '../tool-types.js';

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read one file of the site workspace by its relative path. Images fetched with fetch_image read back as a ' +
    'data: URL. Use list_files to see which files exist.',
  inputSchema: toolInputSchemas.read_file,
  writes: false,
  idempotent: true,
  async execute(input, context) {
    const path = normalizeWorkspacePath(input.path);
    const content = await context.store.readFile(context.runId, path);
    if (content === null) {
      throw new ToolError('file_not_found', `The workspace has no file ${path}; use list_files to see the files.`);
    }
    return { path, bytes: Buffer.byteLength(content), content };
  },
});
