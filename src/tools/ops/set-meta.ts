// set_meta: the site's title and description, kept on the run for the site server's <head>.
import { z } from 'zod';
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool } from '../tool-types.js';
import { updateRunGuarded } from '../workspace/update-run-guarded.js';
import { writeFenceOf } from '../workspace/write-fence.js';

export const setMetaTool = defineTool({
  name: 'set_meta',
  description:
    'Set the site title (up to 120 characters) and description (up to 300) used for search results and link previews. ' +
    'Takes effect on the published site without a new deploy.',
  inputSchema: toolInputSchemas.set_meta,
  output: {
    schema: z.strictObject({ title: z.string().min(1).max(120), description: z.string().min(1).max(300) }),
    invariants: [
      {
        name: 'meta_matches_input',
        check: (output, { input }) => {
          const given = input as { title: string; description: string };
          return output.title === given.title && output.description === given.description;
        },
      },
    ],
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const meta = { title: input.title, description: input.description };
    await updateRunGuarded({ store: context.store, runId: context.runId, fields: { meta: JSON.stringify(meta) }, kind: 'meta', fence: writeFenceOf(context) });
    return meta;
  },
});
