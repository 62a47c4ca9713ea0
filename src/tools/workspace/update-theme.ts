// set_colors and set_fonts: store one theme part and regenerate theme.css from the whole stored
// theme (the engine's updateTheme, src/engine/effects/run-theme.ts, owns the storage and the
// version that keeps concurrent updates safe), so the effect is a real workspace file that
// deploys with the site.
import { type RunEngine, updateTheme, type StoredTheme, type ThemeColors, type ThemeFonts, type WriteFence } from '../../engine/index.js';
import { renderThemeCss } from './render-theme-css.js';
import { writeRefusalError } from './write-fence.js';
import { workspaceWriteError } from './write-workspace-file.js';

export const THEME_FILE_PATH = 'theme.css';

/** Saves a theme part and rewrites theme.css; returns the theme and CSS now in effect, or throws
 * the ToolError of a refused write. */
export async function updateThemeFile({
  store,
  runId,
  part,
  fence,
}: {
  store: RunEngine;
  runId: string;
  part: { colors: ThemeColors } | { fonts: ThemeFonts };
  fence: WriteFence;
}): Promise<{ theme: StoredTheme; css: string }> {
  const result = await updateTheme({ engine: store, runId, part, fence, file: { path: THEME_FILE_PATH, render: renderThemeCss } });
  if ('refused' in result) throw writeRefusalError(result.refused);
  const error = workspaceWriteError({ outcome: result.fileWrite, path: THEME_FILE_PATH, bytes: Buffer.byteLength(result.content) });
  if (error) throw error;
  return { theme: result.theme, css: result.content };
}
