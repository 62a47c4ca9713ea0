// list_files: the workspace's files with their sizes.
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool } from '../tool-types.js';

export const listFilesTool = defineTool({
  name: 'list_files',
  description: 'List every file in the site workspace with its size in bytes, sorted by path.',
  inputSchema: toolInputSchemas.list_files,
  writes: false,
  idempotent: true,
  async execute(_input, context) {
    const files = await context.store.listFiles(context.runId);
    return { files, count: files.length, total_bytes: files.reduce((sum, file) => sum + file.bytes, 0) };
  },
});
