// The input the builder gives each of the 19 tools, valid against src/domain/tool-input-schemas.ts.
// Used for the policy's own steps, forced tool_choice and finish_turn remedies alike.
import { isToolName } from '../domain/profile.js';
import { assertNever } from '../domain/assert-never.js';
import type { BuilderProgress } from './builder-progress.js';
import { PLAN_TODOS, SITE_FONTS, siteFiles, type SiteOptions } from './site-plan.js';

/** The question the `ask_user` scenario (and a forced ask_user) asks. */
export const COLOR_SCHEME_QUESTION = 'Which color scheme do you prefer?';

/** Used only when a tool is forced before any deploy exists; the fleet's tool then reports the error. */
const PLACEHOLDER_URL = 'http://127.0.0.1/';
const PLACEHOLDER_DEPLOY_ID = 'unknown';

/** A short summary of the whole build, for finish_turn. */
export function buildSummary({ progress }: { progress: BuilderProgress }): string {
  const url = progress.publishedUrl ?? progress.latestDeployment?.url;
  const where = url ? ` at ${url}` : '';
  return (
    `Built the ${progress.siteTitle} site (index.html, about.html, styles.css, logo.svg), deployed it, ` +
    `checked the live page and its images, set the page metadata and published it${where}.`
  );
}

/** The next todo the builder would complete: build first, then verify. */
export function nextTodoId({ progress }: { progress: BuilderProgress }): string {
  return PLAN_TODOS.find((todo) => !progress.completedTodos.has(todo.id))?.id ?? 'verify';
}

/** The input for `name`; unknown tool names (not one of the 19) get `{}`. */
export function standardToolInput({ name, progress, site }: { name: string; progress: BuilderProgress; site?: SiteOptions }): Record<string, unknown> {
  if (!isToolName(name)) return {};
  const deployUrl = progress.latestDeployment?.url ?? PLACEHOLDER_URL;
  const deployId = progress.latestDeployment?.deployId ?? PLACEHOLDER_DEPLOY_ID;
  const files = siteFiles({ title: progress.siteTitle, palette: progress.palette, ...(site ? { site } : {}) });
  switch (name) {
    case 'todo_write':
      return { todos: PLAN_TODOS.map((todo) => ({ ...todo })) };
    case 'todo_complete':
      return { id: nextTodoId({ progress }) };
    case 'ask_user':
      return { question: COLOR_SCHEME_QUESTION };
    case 'read_session':
    case 'list_files':
    case 'deploy':
      return {};
    case 'finish_turn':
      return { summary: buildSummary({ progress }) };
    case 'fetch_image':
      return { url: 'https://placehold.co/600x400.png', path: 'images/hero.png' };
    case 'set_colors':
      return { ...progress.palette };
    case 'set_fonts':
      return { ...SITE_FONTS };
    case 'write_file': {
      const file = files.find((candidate) => !progress.writtenFiles.has(candidate.path)) ?? files[0];
      return file ? { path: file.path, content: file.content } : { path: 'index.html', content: '' };
    }
    case 'read_file':
      return { path: 'index.html' };
    case 'delete_file':
      return { path: 'drafts/old.html' };
    case 'fetch_url_live':
      return { url: deployUrl };
    case 'screenshot':
      return { url: deployUrl, width: 1280, height: 800 };
    case 'check_broken_images':
    case 'publish':
      return { deploy_id: deployId };
    case 'regen_og':
      return { title: progress.siteTitle, subtitle: 'Built with buildfleet' };
    case 'set_meta':
      return {
        title: progress.siteTitle,
        description: `${progress.siteTitle}: who we are, what we do and how to reach us.`,
      };
    default:
      return assertNever(name);
  }
}
