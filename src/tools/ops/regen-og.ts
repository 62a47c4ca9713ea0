// regen_og: regenerates the link-preview image. Stored as a run asset the site server serves
// beside every deployment, not as a workspace file, so it can change during verifying without
// a redeploy (which the finish gate would then demand).
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { setRunAsset, readTheme } from '../../engine/index.js';
import { defineTool } from '../tool-types.js';
import { writeFenceOf, writeRefusalError } from '../workspace/write-fence.js';
import { renderOgImage } from './render-og-image.js';

export const OG_IMAGE_PATH = 'og-image.svg';

export const regenOgTool = defineTool({
  name: 'regen_og',
  description: toolDescriptions.regen_og,
  inputSchema: toolInputSchemas.regen_og,
  output: {
    schema: z.strictObject({ path: z.literal(OG_IMAGE_PATH), bytes: z.int().min(1) }),
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const { colors } = await readTheme({ engine: context.store, runId: context.runId });
    const svg = renderOgImage({ title: input.title, subtitle: input.subtitle, colors });
    const outcome = await setRunAsset({ engine: context.store, runId: context.runId, name: OG_IMAGE_PATH, content: svg, fence: writeFenceOf(context) });
    if (outcome !== 'ok') throw writeRefusalError(outcome);
    return { path: OG_IMAGE_PATH, bytes: Buffer.byteLength(svg) };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default regenOgTool;
