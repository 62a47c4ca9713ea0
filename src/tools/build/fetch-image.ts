// fetch_image: downloads an image into the workspace.
//
// Storage format: the workspace is a hash of strings, so a binary file is stored as a data URL,
// `data:<content-type>;base64,<bytes>`. The site server serves a file whose content starts with
// `data:` and `;base64,` as the decoded bytes with that content type.
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';
import { fetchPolicyFor } from '../http/check-fetch-target.js';
import { FETCH_MAX_BYTES, fetchWithLimits } from '../http/fetch-with-limits.js';
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool, ToolError } from '../tool-types.js';
import { writeWorkspaceFile } from '../workspace/write-workspace-file.js';

export const fetchImageTool = defineTool({
  name: 'fetch_image',
  description:
    'Download an image from an http(s) URL and save it in the workspace at the given path (e.g. "images/hero.jpg"), ' +
    'so pages can reference it relatively. Only allowed hosts can be reached; the response must be an image ' +
    '(content-type image/*) and, once stored, fit in a 512 KB file.',
  inputSchema: toolInputSchemas.fetch_image,
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const path = normalizeWorkspacePath(input.path);
    const response = await fetchWithLimits({ url: input.url, policy: fetchPolicyFor(context), signal: context.signal });
    if (response.status < 200 || response.status > 299) {
      throw new ToolError('fetch_http_error', `${response.finalUrl} answered HTTP ${response.status}; no image was saved.`);
    }
    if (!response.contentType.startsWith('image/')) {
      throw new ToolError(
        'not_an_image',
        `${response.finalUrl} is ${response.contentType || 'of unknown type'}, not an image (image/*); no file was saved.`,
      );
    }
    if (response.truncated) {
      throw new ToolError('image_too_large', `${response.finalUrl} is larger than ${FETCH_MAX_BYTES} bytes (2 MB); use a smaller image.`);
    }
    const content = `data:${response.contentType};base64,${response.body.toString('base64')}`;
    await writeWorkspaceFile({ store: context.store, runId: context.runId, path, content });
    return { path, content_type: response.contentType, bytes: response.body.length };
  },
});
