// set_meta: the site's title and description, kept on the run for the site server's <head>.
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool } from '../tool-types.js';
import { updateRunFields } from '../../engine/index.js';
import { writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';

export const setMetaTool = defineTool({
  name: 'set_meta',
  description: toolDescriptions.set_meta,
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
    const outcome = await updateRunFields({ engine: context.store, runId: context.runId, fields: { meta }, fence: writeFenceOf(context) });
    if (outcome !== 'ok') throw writeRefusalError(outcome);
    return meta;
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default setMetaTool;
