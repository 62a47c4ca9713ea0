// set_colors: the site's color palette, as CSS custom properties in theme.css.
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool } from '../tool-types.js';
import { themeVariables } from '../workspace/render-theme-css.js';
import { THEME_FILE_PATH, updateTheme } from '../workspace/update-theme.js';

export const setColorsTool = defineTool({
  name: 'set_colors',
  description:
    'Set the site colors (hex like #1a2b3c). They are written to theme.css as --color-primary, --color-background, ' +
    '--color-text and --color-accent; link theme.css from every page and use var(--color-primary) etc. in your CSS.',
  inputSchema: toolInputSchemas.set_colors,
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const colors = {
      primary: input.primary.toLowerCase(),
      background: input.background.toLowerCase(),
      text: input.text.toLowerCase(),
      ...(input.accent ? { accent: input.accent.toLowerCase() } : {}),
    };
    const { theme } = await updateTheme({ store: context.store, runId: context.runId, part: { colors } });
    return { path: THEME_FILE_PATH, colors, variables: Object.fromEntries(themeVariables(theme)) };
  },
});
