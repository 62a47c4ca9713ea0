// A JSON-valued setting (an environment variable holding a table of overrides), parsed against its
// schema. Throws an Error whose message names every bad entry, for config.ts to report at boot.
import type { z } from 'zod';
import { formatZodIssues } from './format-zod-issues.js';

export function parseJsonSetting<Schema extends z.ZodType>(text: string, schema: Schema): z.infer<Schema> | null {
  if (text.trim() === '') return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new Error(formatZodIssues({ issues: parsed.error.issues }));
  }
  return parsed.data;
}
