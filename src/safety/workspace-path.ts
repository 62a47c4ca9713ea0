// The one gate every model-supplied workspace path passes before it touches the store. Paths end
// up as URL paths on the site server and as Redis hash fields, so the rules are deliberately
// narrower than a filesystem's: a path a browser could resolve differently from how we store it
// (dot segments, encodings, backslashes, lookalike Unicode) is refused rather than "cleaned",
// because a silently rewritten path is how traversal bugs hide.
import { ToolError } from '../domain/tool-error.js';
import { quoteUntrusted } from '../domain/quote-untrusted.js';

export const MAX_WORKSPACE_PATH_LENGTH = 200;
export const MAX_WORKSPACE_PATH_SEGMENTS = 8;

// ASCII letters, digits, '.', '_' and '-': URL-safe without encoding, identical on every OS and
// immune to Unicode lookalikes (fullwidth dots, RTL overrides) by construction.
const SEGMENT_CHARACTERS = /^[A-Za-z0-9._-]+$/;
// C0, DEL and C1 control characters.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const DRIVE_LETTER = /^[A-Za-z]:/;
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function reject(path: string, reason: string): never {
  throw new ToolError('path_invalid', `Invalid workspace path ${quoteUntrusted(path, { maxCharacters: 80 })}: ${reason}`);
}

/** Validates a model-supplied workspace path and returns it in canonical form, or throws
 * ToolError('path_invalid') naming the rule it broke. */
export function normalizeWorkspacePath(path: string): string {
  if (typeof path !== 'string' || path.length === 0) reject(String(path ?? ''), 'the path is empty');
  if (path.length > MAX_WORKSPACE_PATH_LENGTH) {
    reject(path, `longer than ${MAX_WORKSPACE_PATH_LENGTH} characters`);
  }
  if (CONTROL_CHARACTER.test(path)) reject(path, 'contains a NUL or other control character');
  if (path.includes('\\')) reject(path, 'contains a backslash; use "/" between folders');
  if (DRIVE_LETTER.test(path)) reject(path, 'starts with a drive letter; use a relative path like "css/site.css"');
  if (URL_SCHEME.test(path)) reject(path, 'looks like a URL; give a relative path like "images/logo.png"');
  if (path.startsWith('/')) reject(path, 'is absolute; use a relative path like "index.html"');
  if (path.includes('%')) reject(path, 'contains percent-encoding; write the plain name instead');

  const segments = path.split('/');
  if (segments.length > MAX_WORKSPACE_PATH_SEGMENTS) {
    reject(path, `nested deeper than ${MAX_WORKSPACE_PATH_SEGMENTS} levels`);
  }
  for (const segment of segments) {
    if (segment.length === 0) reject(path, 'contains an empty segment ("//" or a trailing "/")');
    if (segment.trim() !== segment) reject(path, 'a segment starts or ends with whitespace');
    if (segment === '..') reject(path, 'contains a ".." segment');
    if (segment === '.') reject(path, 'contains a "." segment');
    if (segment.startsWith('.')) reject(path, `"${segment}" is a hidden name (starts with ".")`);
    if (!SEGMENT_CHARACTERS.test(segment)) {
      reject(path, `"${segment}" may only use ASCII letters, digits, ".", "_" and "-"`);
    }
  }
  // Every accepted path is already canonical: the rules above leave nothing to rewrite.
  return path;
}
