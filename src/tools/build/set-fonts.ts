// set_fonts: the site's font stacks, as CSS custom properties in theme.css.
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool } from '../tool-types.js';
import { themeVariables } from '../workspace/render-theme-css.js';
import { writeFenceOf } from '../workspace/write-fence.js';
import { THEME_FILE_PATH, updateThemeFile } from '../workspace/update-theme.js';

export const setFontsTool = defineTool({
  name: 'set_fonts',
  description: toolDescriptions.set_fonts,
  inputSchema: toolInputSchemas.set_fonts,
  output: {
    schema: z.strictObject({
      path: z.literal(THEME_FILE_PATH),
      fonts: z.strictObject({ heading: z.string().min(1), body: z.string().min(1) }),
      variables: z.record(z.string(), z.string()),
    }),
    invariants: [
      {
        name: 'font_variables_set',
        check: (output) => ('--font-heading' in output.variables && '--font-body' in output.variables) || 'theme.css lacks the font variables',
      },
    ],
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const fonts = { heading: input.heading, body: input.body };
    const { theme } = await updateThemeFile({ store: context.store, runId: context.runId, part: { fonts }, fence: writeFenceOf(context) });
    return { path: THEME_FILE_PATH, fonts, variables: Object.fromEntries(themeVariables(theme)) };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default setFontsTool;
