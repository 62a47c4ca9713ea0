// set_meta: the site's title and description, kept on the run for the site server's <head>.
import { ensureRunUpdated } from '../core/ensure-run-updated.js';
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool } from '../tool-types.js';

export const setMetaTool = defineTool({
  name: 'set_meta',
  description:
    'Set the site title (up to 120 characters) and description (up to 300) used for search results and link previews. ' +
    'Takes effect on the published site without a new deploy.',
  inputSchema: toolInputSchemas.set_meta,
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const meta = { title: input.title, description: input.description };
    await ensureRunUpdated({ store: context.store, runId: context.runId, update: { meta } });
    return meta;
  },
});
