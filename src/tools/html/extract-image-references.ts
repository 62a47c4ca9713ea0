// Finds the image references of an HTML page or a stylesheet: <img src/srcset>, <source srcset>,
// <link rel~=icon href>, and CSS url(...) in <style>, style="" and .css files. Regex-based on
// purpose: it has to cope with whatever markup the model wrote, and missing an exotic reference
// only means one image goes unchecked.
import { decodeHtmlEntities } from './decode-html-entities.js';

export type ReferenceKind = 'img' | 'source' | 'icon' | 'css';

export interface ImageReference {
  kind: ReferenceKind;
  src: string;
}

const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const CSS_URL = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]*))\s*\)/gi;
// Fonts are url() references too, but they are not images and have their own failure modes.
const FONT_FILE = /\.(woff2?|ttf|otf|eot)([?#].*)?$/i;

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  const body = tag.replace(/^<[a-z0-9]+/i, '').replace(/\/?>$/, '');
  for (const match of body.matchAll(ATTRIBUTE)) {
    const name = match[1]?.toLowerCase();
    if (!name || attributes.has(name)) continue;
    attributes.set(name, decodeHtmlEntities(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return attributes;
}

/** The URLs of a srcset value ("a.png 1x, b.png 2x"). */
export function srcsetUrls(srcset: string): string[] {
  return srcset
    .split(/,(?=\s*\S)/)
    .map((candidate) => candidate.trim().split(/\s+/)[0] ?? '')
    .filter((url) => url.length > 0);
}

/** The url(...) references of CSS text, fonts and fragment-only references left out. */
export function cssImageUrls(css: string): string[] {
  const urls: string[] = [];
  for (const match of css.matchAll(CSS_URL)) {
    const url = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    if (url.startsWith('#') || FONT_FILE.test(url)) continue;
    urls.push(url);
  }
  return urls;
}

/** Every image reference of an HTML document, in document order per kind. */
export function extractHtmlImageReferences(html: string): ImageReference[] {
  // Comments and scripts can contain tag-like text that the browser never renders.
  const visible = html.replace(/<!--[\s\S]*?-->/g, '').replace(/<script\b[\s\S]*?<\/script\s*>/gi, '');
  const references: ImageReference[] = [];
  for (const match of visible.matchAll(/<(img|source|link)\b[^>]*>/gi)) {
    const tagName = match[1]?.toLowerCase();
    const attributes = attributesOf(match[0]);
    if (tagName === 'img') {
      const src = attributes.get('src');
      if (src !== undefined) references.push({ kind: 'img', src: src.trim() });
      for (const url of srcsetUrls(attributes.get('srcset') ?? '')) references.push({ kind: 'img', src: url });
    } else if (tagName === 'source') {
      for (const url of srcsetUrls(attributes.get('srcset') ?? '')) references.push({ kind: 'source', src: url });
    } else if (tagName === 'link') {
      const relations = (attributes.get('rel') ?? '').toLowerCase().split(/\s+/);
      const href = attributes.get('href');
      if (href !== undefined && relations.some((relation) => relation === 'icon' || relation === 'apple-touch-icon')) {
        references.push({ kind: 'icon', src: href.trim() });
      }
    }
  }
  for (const match of visible.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi)) {
    for (const url of cssImageUrls(match[1] ?? '')) references.push({ kind: 'css', src: url });
  }
  for (const match of visible.matchAll(/<[a-z0-9]+\b[^>]*\bstyle\s*=\s*("([^"]*)"|'([^']*)')[^>]*>/gi)) {
    for (const url of cssImageUrls(decodeHtmlEntities(match[2] ?? match[3] ?? ''))) references.push({ kind: 'css', src: url });
  }
  return references;
}
