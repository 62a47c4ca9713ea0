// set_fonts: the site's font stacks, as CSS custom properties in theme.css.
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool } from '../tool-types.js';
import { themeVariables } from '../workspace/render-theme-css.js';
import { THEME_FILE_PATH, updateTheme } from '../workspace/update-theme.js';

export const setFontsTool = defineTool({
  name: 'set_fonts',
  description:
    'Set the heading and body fonts, e.g. heading "Playfair Display, serif", body "Inter". They are written to ' +
    'theme.css as --font-heading and --font-body (a generic fallback is added when you give none); use ' +
    'var(--font-body) etc. in your CSS. This does not load web fonts.',
  inputSchema: toolInputSchemas.set_fonts,
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const fonts = { heading: input.heading, body: input.body };
    const { theme } = await updateTheme({ store: context.store, runId: context.runId, part: { fonts } });
    return { path: THEME_FILE_PATH, fonts, variables: Object.fromEntries(themeVariables(theme)) };
  },
});
