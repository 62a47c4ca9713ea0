// Stores one part of a run's theme (colors or fonts) and regenerates theme.css from the whole
// stored theme, so the effect is a real workspace file that deploys with the site.
import { z } from 'zod';
import type { RunStore } from '../../runs/run-store.js';
import { themeKey } from '../tool-keys.js';
import { renderThemeCss, type ThemeColors, type ThemeFonts } from './render-theme-css.js';
import { defineToolScripts } from '../tool-scripts.js';
import { fenceArgs, fenceKeys, writeRefusalError, type WriteFence } from './write-fence.js';
import { writeWorkspaceFile } from './write-workspace-file.js';

export const THEME_FILE_PATH = 'theme.css';

const storedColors = z.object({
  primary: z.string(),
  background: z.string(),
  text: z.string(),
  accent: z.string().optional(),
});
const storedFonts = z.object({ heading: z.string(), body: z.string() });

function parseStored<T>(schema: z.ZodType<T>, raw: string | null | undefined): T | null {
  if (!raw) return null;
  const parsed = schema.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : null;
}

export interface StoredTheme {
  colors: ThemeColors | null;
  fonts: ThemeFonts | null;
}

/** Reads a run's stored theme (either part may be unset). */
export async function readTheme({ store, runId }: { store: RunStore; runId: string }): Promise<StoredTheme> {
  const [colors, fonts] = await store.redis.hmget(themeKey(store.keys, runId), 'colors', 'fonts');
  return { colors: parseStored(storedColors, colors), fonts: parseStored(storedFonts, fonts) };
}

/** Saves a theme part and rewrites theme.css; returns the theme and CSS now in effect. */
export async function updateTheme({
  store,
  runId,
  part,
  fence,
}: {
  store: RunStore;
  runId: string;
  part: { colors: ThemeColors } | { fonts: ThemeFonts };
  fence?: WriteFence;
}): Promise<{ theme: StoredTheme; css: string }> {
  const key = themeKey(store.keys, runId);
  const [field, value] = 'colors' in part ? ['colors', part.colors] : ['fonts', part.fonts];
  // The version makes concurrent set_colors/set_fonts safe without locks: each call renders what
  // it read after its own increment and writes only if nobody incremented since, so the file
  // always ends up rendered from the newest theme.
  const reply = await defineToolScripts(store.redis).bfUpdateTheme(...fenceKeys(store, runId), key, ...fenceArgs(fence), field, JSON.stringify(value));
  if (reply[0] !== 'ok') throw writeRefusalError(reply[0]);
  const version = String(reply[1]);
  const theme = await readTheme({ store, runId });
  const css = renderThemeCss(theme);
  await writeWorkspaceFile({ store, runId, path: THEME_FILE_PATH, content: css, guard: { key, field: 'version', value: version }, ...(fence ? { fence } : {}) });
  return { theme, css };
}
