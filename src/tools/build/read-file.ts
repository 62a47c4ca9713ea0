// read_file: one workspace file's content.
import { z } from 'zod';
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool, ToolError } from '../tool-types.js';
import { MAX_FILE_BYTES } from '../../engine/index.js';

export const readFileTool = defineTool({
  name: 'read_file',
  description: toolDescriptions.read_file,
  inputSchema: toolInputSchemas.read_file,
  output: {
    // A 512 KB file can serialise to several times its size (JSON escapes), and the envelope caps
    // what the model reads anyway; this bound only catches a runaway.
    maxCharacters: 8 * MAX_FILE_BYTES,
    schema: z.strictObject({ path: z.string().min(1), bytes: z.int().min(0), content: z.string() }),
    invariants: [{ name: 'bytes_match_content', check: (output) => output.bytes === Buffer.byteLength(output.content) }],
    mode: 'fail_closed',
  },
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

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default readFileTool;
