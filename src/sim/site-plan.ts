// What the simulated builder builds, titled from the brief. `small` (the instant profile's): one
// fixed, tiny but real site, so the largest turn (all file writes) stays well under common
// max_tokens settings. `realistic` (realistic and fast profiles): full pages of thousands of tokens
// (realistic-site.ts), the size a production model writes.
import { realisticSiteFiles } from './realistic-site.js';

export const SITE_PALETTE = { primary: '#1f6feb', background: '#ffffff', text: '#1b1f24', accent: '#f78166' } as const;
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

const TITLE_PATTERN = /\b(?:for|about|called|named)\s+(?:an?\s+|the\s+|my\s+|our\s+)?([^.!?\n]{2,60})/i;

/** A short site title taken from the brief, e.g. "Build a site for Luna Bakery." → "Luna Bakery". */
export function siteTitleFromBrief({ brief }: { brief: string }): string {
  const captured = TITLE_PATTERN.exec(brief)?.[1];
  const cleaned = (captured ?? '')
    .replace(/["'`<>&]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned.length < 2) return 'My Site';
  return cleaned.charAt(0).toUpperCase() + cleaned.slice(1);
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
export function siteFiles({ title, site = SMALL_SITE }: { title: string; site?: SiteOptions }): SiteFile[] {
  if (site.size === 'realistic') return realisticSiteFiles({ title, seed: site.seed, palette: SITE_PALETTE, fonts: SITE_FONTS });
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
