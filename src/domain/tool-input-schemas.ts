// Input schemas of the fleet's own five tools (which every agent may offer) and, from their entries
// in site-builder-tools.ts, of the builder's: strict (unknown fields rejected), no coercion and no
// defaults, so a call either matches exactly or is refused. The JSON Schema the model sees is
// generated from these (see src/tools/tool-definitions.ts), so the two can never drift apart.
import { z } from 'zod';
import type { ToolName } from './profile.js';
import { SITE_BUILDER_TOOLS, type SiteBuilderToolName } from './site-builder-tools.js';

/** The builder's own tools' schemas, from their entries (site-builder-tools.ts). */
function builderInputs(): { [Name in SiteBuilderToolName]: (typeof SITE_BUILDER_TOOLS)[Name]['input'] } {
  return Object.fromEntries(Object.entries(SITE_BUILDER_TOOLS).map(([name, entry]) => [name, entry.input])) as {
    [Name in SiteBuilderToolName]: (typeof SITE_BUILDER_TOOLS)[Name]['input'];
  };
}

export const todoItem = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase id: letters, digits, _ and -'),
  title: z.string().min(1).max(200),
  phase: z.enum(['build', 'verify']).describe('build: done before deploy; verify: done on the live site'),
});

export const toolInputSchemas = {
  todo_write: z.strictObject({
    todos: z.array(todoItem).min(1).max(20).describe('The whole plan; replaces any earlier plan'),
  }),
  todo_complete: z.strictObject({ id: z.string().min(1).max(64) }),
  ask_user: z.strictObject({ question: z.string().min(1).max(2000) }),
  read_session: z.strictObject({}),
  finish_turn: z.strictObject({ summary: z.string().min(1).max(2000) }),

  ...builderInputs(),
} satisfies Record<ToolName, z.ZodType>;

export type ToolInput<Name extends ToolName> = z.infer<(typeof toolInputSchemas)[Name]>;
