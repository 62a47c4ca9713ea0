// What the simulated builder builds, titled from the brief. `small` (the instant profile's): one
// fixed, tiny but real site, so the largest turn (all file writes) stays well under common
// max_tokens settings. `realistic` (realistic and fast profiles): full pages of thousands of tokens
// (realistic-site.ts), the size a production model writes.
import { realisticSiteFiles } from './realistic-site.js';

export const SITE_PALETTE = { primary: '#1f6feb', background: '#ffffff', text: '#1b1f24', accent: '#f78166' } as const;
export type SitePalette = { [Key in keyof typeof SITE_PALETTE]: string };
export const SITE_FONTS = { heading: 'Inter', body: 'Source Sans 3' } as const;

export const PLAN_TODOS = [
  { id: 'build', title: 'Build and deploy the site', phase: 'build' },
  { id: 'verify', title: 'Verify the live page and publish', phase: 'verify' },
] as const;

export type SiteSize = 'small' | 'realistic';

/** How the builder writes its site: size, and the seed that picks a realistic site's words. */
export interface SiteOptions {
  size: SiteSize;
  seed: number;
}

export const SMALL_SITE: SiteOptions = { size: 'small', seed: 1 };

export interface SiteFile {
  path: string;
  content: string;
}

/** A name the brief quotes: "Build a site for "Harbor Lights Bakery": …" → Harbor Lights Bakery. */
const QUOTED_NAME = /["\u201c]([^"\u201d\n]{2,60})["\u201d]/;
/** "called / named X", then "for / about X": X ends at punctuation or at a word that starts a clause. */
const CALLED_PATTERN =
  /\b(?:called|named)\s+(?:an?\s+|the\s+|my\s+|our\s+)?([^.!?\n:;,()"]{2,60}?)(?=\s+(?:with|that|which|where|who|in|on|to|and|so)\b|[.!?\n:;,()"]|$)/i;
const NAMED_PATTERN =
  /\b(?:for|about)\s+(?:an?\s+|the\s+|my\s+|our\s+)?([^.!?\n:;,()"]{2,60}?)(?=\s+(?:with|that|which|where|who|in|on|to|and|so)\b|[.!?\n:;,()"]|$)/i;
/** "a bakery landing page", "my florist website": the kind of business before the kind of site. */
const KIND_PATTERN = /\b(?:an?|the|my|our)\s+((?:[a-z][\w'-]*\s+){0,2}?[a-z][\w'-]*)\s+(?:landing page|website|web site|homepage|home page|site|page)\b/i;
/** Words that describe the site, not the business. */
const NOT_A_NAME = new Set([
  'small',
  'simple',
  'new',
  'nice',
  'modern',
  'basic',
  'quick',
  'tiny',
  'beautiful',
  'one-page',
  'single-page',
  'static',
  'little',
  'clean',
]);

function titleCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A short site title taken from the brief: a quoted name, a name after "for" / "called", or the
 * kind of business ("a bakery landing page" → "Bakery"); "My Site" only when the brief names none. */
export function siteTitleFromBrief({ brief }: { brief: string }): string {
  const clean = (text: string | undefined) =>
    (text ?? '')
      .replace(/&/g, 'and')
      .replace(/["'`<>]/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  const quoted = clean(QUOTED_NAME.exec(brief)?.[1]);
  if (quoted.length >= 2) return titleCase(quoted);
  const called = clean(CALLED_PATTERN.exec(brief)?.[1]);
  if (called.length >= 2) return titleCase(called);
  const named = clean(NAMED_PATTERN.exec(brief)?.[1]);
  if (named.length >= 2 && !NOT_A_NAME.has(named.toLowerCase())) return titleCase(named);
  const kind = clean(KIND_PATTERN.exec(brief)?.[1])
    .split(' ')
    .filter((word) => !NOT_A_NAME.has(word.toLowerCase()))
    .join(' ');
  if (kind.length >= 2) return kind.split(' ').map(titleCase).join(' ');
  return 'My Site';
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function page({ title, heading, body }: { title: string; heading: string; body: string }): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<link rel="stylesheet" href="styles.css">',
    '</head>',
    '<body>',
    `<header><img src="logo.svg" alt="${escapeHtml(title)} logo" width="48" height="48">`,
    '<nav><a href="index.html">Home</a> <a href="about.html">About</a></nav></header>',
    `<main><h1>${escapeHtml(heading)}</h1>${body}</main>`,
    `<footer>&copy; ${escapeHtml(title)}</footer>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The files the builder writes, in the order it writes them. */
export function siteFiles({ title, site = SMALL_SITE, palette = SITE_PALETTE }: { title: string; site?: SiteOptions; palette?: SitePalette }): SiteFile[] {
  if (site.size === 'realistic') return realisticSiteFiles({ title, seed: site.seed, palette, fonts: SITE_FONTS });
  return [
    {
      path: 'index.html',
      content: page({
        title,
        heading: title,
        body: `<p>Welcome to ${escapeHtml(title)}.</p><p><a class="button" href="about.html">Learn more</a></p>`,
      }),
    },
    {
      path: 'styles.css',
      content: [
        `:root { --primary: ${SITE_PALETTE.primary}; --background: ${SITE_PALETTE.background}; ` +
          `--text: ${SITE_PALETTE.text}; --accent: ${SITE_PALETTE.accent}; }`,
        `body { margin: 0; background: var(--background); color: var(--text); font-family: '${SITE_FONTS.body}', sans-serif; }`,
        `h1 { font-family: '${SITE_FONTS.heading}', sans-serif; color: var(--primary); }`,
        'header, main, footer { max-width: 48rem; margin: 0 auto; padding: 1rem; }',
        'header { display: flex; align-items: center; gap: 1rem; }',
        'a { color: var(--primary); }',
        '.button { background: var(--accent); color: var(--background); padding: 0.5rem 1rem; border-radius: 4px; text-decoration: none; }',
        '',
      ].join('\n'),
    },
    {
      path: 'about.html',
      content: page({ title: `About ${title}`, heading: `About ${title}`, body: `<p>${escapeHtml(title)} is built with care.</p>` }),
    },
    {
      path: 'logo.svg',
      content:
        `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48">` +
        `<circle cx="24" cy="24" r="22" fill="${SITE_PALETTE.primary}"/>` +
        `<circle cx="24" cy="24" r="8" fill="${SITE_PALETTE.accent}"/></svg>\n`,
    },
  ];
}
