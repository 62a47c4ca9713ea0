// Input schemas of the builder's 19 tools: strict (unknown fields rejected), no coercion and no
// defaults, so a call either matches exactly or is refused. The JSON Schema the model sees is
// generated from these (see src/tools/tool-definitions.ts), so the two can never drift apart.
import { z } from 'zod';
import type { ToolName } from './profile.js';

const workspacePath = z.string().min(1).max(200).describe('Relative path inside the site workspace, e.g. "index.html" or "css/site.css"');
const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a hex color like #1a2b3c');
const httpUrl = z.string().min(1).max(2048).describe('Absolute http(s) URL');

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

  fetch_image: z.strictObject({ url: httpUrl, path: workspacePath }),
  set_colors: z.strictObject({
    primary: hexColor,
    background: hexColor,
    text: hexColor,
    accent: hexColor.optional(),
  }),
  set_fonts: z.strictObject({ heading: z.string().min(1).max(100), body: z.string().min(1).max(100) }),
  write_file: z.strictObject({ path: workspacePath, content: z.string().max(1_000_000) }),
  list_files: z.strictObject({}),
  read_file: z.strictObject({ path: workspacePath }),
  delete_file: z.strictObject({ path: workspacePath }),
  deploy: z.strictObject({}),

  fetch_url_live: z.strictObject({ url: httpUrl }),
  screenshot: z.strictObject({
    url: httpUrl,
    width: z.int().min(200).max(3840).optional(),
    height: z.int().min(200).max(3840).optional(),
  }),
  check_broken_images: z.strictObject({ deploy_id: z.string().min(1).max(100) }),
  regen_og: z.strictObject({ title: z.string().min(1).max(120), subtitle: z.string().max(200).optional() }),
  set_meta: z.strictObject({ title: z.string().min(1).max(120), description: z.string().min(1).max(300) }),
  publish: z.strictObject({ deploy_id: z.string().min(1).max(100) }),
} satisfies Record<ToolName, z.ZodType>;

export type ToolInput<Name extends ToolName> = z.infer<(typeof toolInputSchemas)[Name]>;
