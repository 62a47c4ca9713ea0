// list_files: the workspace's files with their sizes.
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool } from '../tool-types.js';

export const listFilesTool = defineTool({
  name: 'list_files',
  description: toolDescriptions.list_files,
  inputSchema: toolInputSchemas.list_files,
  output: {
    schema: z.strictObject({
      files: z.array(z.strictObject({ path: z.string().min(1), bytes: z.int().min(0) })),
      count: z.int().min(0),
      total_bytes: z.int().min(0),
    }),
    invariants: [
      { name: 'count_matches_files', check: (output) => output.count === output.files.length },
      { name: 'total_matches_files', check: (output) => output.total_bytes === output.files.reduce((sum, file) => sum + file.bytes, 0) },
    ],
    mode: 'fail_closed',
  },
  writes: false,
  idempotent: true,
  async execute(_input, context) {
    const files = await context.store.listFiles(context.runId);
    return { files, count: files.length, total_bytes: files.reduce((sum, file) => sum + file.bytes, 0) };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default listFilesTool;
