// A run's theme: the colors and fonts set_colors and set_fonts store, with a version, and the
// generated file (theme.css) rendered from them. The version makes concurrent updates safe
// without locks: each update renders what it read after its own increment and writes the file
// only while nobody incremented since (the guarded write in workspace-files.ts), so the file
// always ends up rendered from the newest theme. How the file looks is the caller's (render).
import { z } from 'zod';
import { defineToolScripts, type WriteWorkspaceFileOutcome } from '../effect-scripts.js';
import { themeKey } from '../effect-keys.js';
import type { RunEngine } from '../run-engine.js';
import { StoredRunInvalid } from '../run-record.js';
import { fenceArgs, fenceKeys, type WriteFence, type WriteRefusal } from './write-fence.js';
import { writeWorkspaceFile } from './workspace-files.js';

const themeColorsSchema = z.object({
  primary: z.string(),
  background: z.string(),
  text: z.string(),
  accent: z.string().optional(),
});
const themeFontsSchema = z.object({ heading: z.string(), body: z.string() });

export type ThemeColors = z.infer<typeof themeColorsSchema>;
export type ThemeFonts = z.infer<typeof themeFontsSchema>;

export interface StoredTheme {
  colors: ThemeColors | null;
  fonts: ThemeFonts | null;
}

function decodePart<T>(runId: string, field: string, schema: z.ZodType<T>, raw: string | null): T | null {
  if (!raw) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new StoredRunInvalid(runId, `theme.${field}`, 'not JSON');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new StoredRunInvalid(runId, `theme.${field}`, parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
}

/** A run's stored theme (either part may be unset), validated: StoredRunInvalid if it does not decode. */
export async function readTheme({ engine, runId }: { engine: RunEngine; runId: string }): Promise<StoredTheme> {
  const [colors, fonts] = await engine.redis.hmget(themeKey(engine.keys, runId), 'colors', 'fonts');
  return { colors: decodePart(runId, 'colors', themeColorsSchema, colors ?? null), fonts: decodePart(runId, 'fonts', themeFontsSchema, fonts ?? null) };
}

export type UpdateThemeResult =
  /** The theme part was not stored (nor the file written). */
  | { refused: WriteRefusal }
  /** The part is stored; `fileWrite` is the generated file's write: 'ok', 'stale' (a newer update
   * wrote it, from a theme that includes this part), or why it was not written. */
  | { theme: StoredTheme; content: string; fileWrite: WriteWorkspaceFileOutcome };

/** Stores one theme part, bumps the version, and rewrites the generated file from the whole theme. */
export async function updateTheme({
  engine,
  runId,
  part,
  file,
  fence,
}: {
  engine: RunEngine;
  runId: string;
  part: { colors: ThemeColors } | { fonts: ThemeFonts };
  /** The generated workspace file (already a valid workspace path) and how to render it. */
  file: { path: string; render: (theme: StoredTheme) => string };
  fence?: WriteFence | undefined;
}): Promise<UpdateThemeResult> {
  const [field, value] = 'colors' in part ? ['colors', part.colors] : ['fonts', part.fonts];
  const reply = await defineToolScripts(engine.redis).bfUpdateTheme(
    ...fenceKeys(engine, runId),
    themeKey(engine.keys, runId),
    ...(await fenceArgs(engine, fence)),
    field,
    JSON.stringify(value),
  );
  if (reply[0] !== 'ok') return { refused: reply[0] };
  const theme = await readTheme({ engine, runId });
  const content = file.render(theme);
  const fileWrite = await writeWorkspaceFile({ engine, runId, path: file.path, content, fence, guard: { themeVersion: reply[1] } });
  return { theme, content, fileWrite };
}
