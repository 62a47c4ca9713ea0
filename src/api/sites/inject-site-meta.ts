// Adds the run's title and description (set_meta) to a live page's <head>: description, Open
// Graph title/description/image (the image only when the site has one), and a <title> when the page has none. Tags the page already
// has are left alone, so the model's own markup wins and nothing is duplicated.

function escapeHtmlAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeHtmlText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function hasMetaTag(html: string, attribute: 'name' | 'property', value: string): boolean {
  return new RegExp(`<meta\\b[^>]*\\b${attribute}\\s*=\\s*["']?${value.replace(/[.:]/g, '\\$&')}["'\\s>/]`, 'i').test(html);
}

/** The page with the run's meta tags inserted before `</head>` (or at the top of a page that has
 * no head element). */
export function injectSiteMeta({
  html,
  meta,
  ogImageUrl,
}: {
  html: string;
  meta: { title: string; description: string };
  /** The link-preview image, or null when the site has none (no og:image then: a 404 preview). */
  ogImageUrl: string | null;
}): string {
  const tags: string[] = [];
  if (!/<title\b[^>]*>/i.test(html)) tags.push(`<title>${escapeHtmlText(meta.title)}</title>`);
  if (!hasMetaTag(html, 'name', 'description')) {
    tags.push(`<meta name="description" content="${escapeHtmlAttribute(meta.description)}">`);
  }
  if (!hasMetaTag(html, 'property', 'og:title')) tags.push(`<meta property="og:title" content="${escapeHtmlAttribute(meta.title)}">`);
  if (!hasMetaTag(html, 'property', 'og:description')) {
    tags.push(`<meta property="og:description" content="${escapeHtmlAttribute(meta.description)}">`);
  }
  if (ogImageUrl !== null && !hasMetaTag(html, 'property', 'og:image')) tags.push(`<meta property="og:image" content="${escapeHtmlAttribute(ogImageUrl)}">`);
  if (tags.length === 0) return html;
  const block = tags.join('\n');
  const headEnd = html.search(/<\/head\s*>/i);
  if (headEnd !== -1) return `${html.slice(0, headEnd)}${block}\n${html.slice(headEnd)}`;
  // No </head>: browsers still read <title> and <meta> that come before the body content.
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  if (doctype) return `${doctype[0]}\n${block}\n${html.slice(doctype[0].length)}`;
  return `${block}\n${html}`;
}
