// write_file: creates or replaces one workspace file.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool } from '../tool-types.js';
import { writeFenceOf } from '../workspace/write-fence.js';
import { writeWorkspaceFileOrThrow } from '../workspace/write-workspace-file.js';

export const writeFileTool = defineTool({
  name: 'write_file',
  description: toolDescriptions.write_file,
  inputSchema: toolInputSchemas.write_file,
  output: {
    schema: z.strictObject({ path: z.string().min(1), bytes: z.number(), sha256: z.string() }),
    invariants: [
      { name: 'bytes_non_negative', check: (output) => (Number.isInteger(output.bytes) && output.bytes >= 0) || `bytes is ${output.bytes}` },
      { name: 'sha256_hex', check: (output) => /^[0-9a-f]{64}$/.test(output.sha256) || 'sha256 is not 64 lowercase hex digits' },
      {
        name: 'bytes_match_input',
        check: (output, { input }) => output.bytes === Buffer.byteLength((input as { content: string }).content) || 'bytes differs from the content written',
      },
    ],
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const path = normalizeWorkspacePath(input.path);
    await writeWorkspaceFileOrThrow({ store: context.store, runId: context.runId, path, content: input.content, fence: writeFenceOf(context) });
    return {
      path,
      bytes: Buffer.byteLength(input.content),
      sha256: createHash('sha256').update(input.content).digest('hex'),
    };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default writeFileTool;
