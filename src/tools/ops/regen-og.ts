// regen_og: regenerates the link-preview image. Stored as a run asset the site server serves
// beside every deployment, not as a workspace file, so it can change during verifying without
// a redeploy (which the finish gate would then demand).
import { z } from 'zod';
import { assetsKey } from '../tool-keys.js';
import { toolInputSchemas } from '../input-schemas.js';
import { defineToolScripts } from '../tool-scripts.js';
import { defineTool } from '../tool-types.js';
import { fenceArgs, fenceKeys, writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';
import { readTheme } from '../workspace/update-theme.js';
import { renderOgImage } from './render-og-image.js';

export const OG_IMAGE_PATH = 'og-image.svg';

export const regenOgTool = defineTool({
  name: 'regen_og',
  description:
    'Generate the 1200x630 link-preview image (og-image.svg) from a title and optional subtitle, in the site colors. ' +
    'It is served at og-image.svg on the site right away, without a new deploy; reference it as og:image in your pages.',
  inputSchema: toolInputSchemas.regen_og,
  output: {
    schema: z.strictObject({ path: z.literal(OG_IMAGE_PATH), bytes: z.int().min(1) }),
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const { colors } = await readTheme({ store: context.store, runId: context.runId });
    const svg = renderOgImage({ title: input.title, subtitle: input.subtitle, colors });
    const outcome = await defineToolScripts(context.store.redis).bfSetHashField(
      ...fenceKeys(context.store, context.runId),
      assetsKey(context.store.keys, context.runId),
      ...fenceArgs(writeFenceOf(context)),
      OG_IMAGE_PATH,
      svg,
      'asset',
    );
    if (outcome !== 'ok') throw writeRefusalError(outcome);
    return { path: OG_IMAGE_PATH, bytes: Buffer.byteLength(svg) };
  },
});
