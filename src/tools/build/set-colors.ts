// set_colors: the site's color palette, as CSS custom properties in theme.css.
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool } from '../tool-types.js';
import { themeVariables } from '../workspace/render-theme-css.js';
import { writeFenceOf } from '../workspace/write-fence.js';
import { THEME_FILE_PATH, updateThemeFile } from '../workspace/update-theme.js';

export const setColorsTool = defineTool({
  name: 'set_colors',
  description: toolDescriptions.set_colors,
  inputSchema: toolInputSchemas.set_colors,
  output: {
    schema: z.strictObject({
      path: z.literal(THEME_FILE_PATH),
      colors: z.strictObject({
        primary: z.string().regex(/^#[0-9a-f]{6}$/),
        background: z.string().regex(/^#[0-9a-f]{6}$/),
        text: z.string().regex(/^#[0-9a-f]{6}$/),
        accent: z
          .string()
          .regex(/^#[0-9a-f]{6}$/)
          .optional(),
      }),
      variables: z.record(z.string(), z.string()),
    }),
    invariants: [
      {
        name: 'primary_variable_set',
        check: (output) => output.variables['--color-primary'] === output.colors.primary || '--color-primary is not the primary color',
      },
    ],
    mode: 'fail_closed',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const colors = {
      primary: input.primary.toLowerCase(),
      background: input.background.toLowerCase(),
      text: input.text.toLowerCase(),
      ...(input.accent ? { accent: input.accent.toLowerCase() } : {}),
    };
    const { theme } = await updateThemeFile({ store: context.store, runId: context.runId, part: { colors }, fence: writeFenceOf(context) });
    return { path: THEME_FILE_PATH, colors, variables: Object.fromEntries(themeVariables(theme)) };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default setColorsTool;
