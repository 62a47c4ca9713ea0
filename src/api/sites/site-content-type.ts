// Content types the site server sends, by file extension. Anything else is served as opaque
// bytes (with nosniff) so a browser never guesses a stored file into HTML or script.

export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  ico: 'image/x-icon',
  webp: 'image/webp',
};

export const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/** The content type for a file path, by its extension. */
export function contentTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  const extension = dot === -1 ? '' : path.slice(dot + 1).toLowerCase();
  return CONTENT_TYPES[extension] ?? FALLBACK_CONTENT_TYPE;
}

/** True for content types whose body is HTML (the only kind that gets <head> injection). */
export function isHtmlContentType(contentType: string): boolean {
  return contentType.split(';')[0]?.trim().toLowerCase() === 'text/html';
}
