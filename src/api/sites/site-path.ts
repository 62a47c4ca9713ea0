// Maps the wildcard of a /sites URL to a deployment file path. Paths go through the same gate as
// every workspace path the model writes (normalizeWorkspacePath), so the site server can only
// ever name a file the workspace could have held: dot segments, percent-encodings that survive
// decoding, backslashes and control characters are refused, never "cleaned".
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';

const INDEX_FILE = 'index.html';

/** The file path a request names, or null when it names no valid file. */
export function resolveSitePath(wildcard: string): string | null {
  const path = wildcard === '' || wildcard.endsWith('/') ? `${wildcard}${INDEX_FILE}` : wildcard;
  try {
    return normalizeWorkspacePath(path);
  } catch {
    return null;
  }
}
