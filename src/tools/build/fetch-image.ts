// fetch_image: downloads an image into the workspace.
//
// Storage format: the workspace is a hash of strings, so a binary file is stored as a data URL,
// `data:<content-type>;base64,<bytes>`. The site server serves a file whose content starts with
// `data:` and `;base64,` as the decoded bytes with that content type.
//
// The upstream response passes size → content type → strict parse (validateUpstreamResponse)
// before anything is written: a maintenance page served with 200 is `unexpected_content_type:
// text/html`, an SVG must parse as an <svg> document, a PNG must carry the PNG signature.
import { z } from 'zod';
import { normalizeWorkspacePath } from '../../safety/workspace-path.js';
import { fetchPolicyFor } from '../http/check-fetch-target.js';
import { FETCH_MAX_BYTES, fetchWithLimits } from '../http/fetch-with-limits.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { validateUpstreamResponse } from '../output/validate-tool-output.js';
import { defineTool, ToolError } from '../tool-types.js';
import { writeFenceOf } from '../workspace/write-fence.js';
import { writeWorkspaceFileOrThrow } from '../workspace/write-workspace-file.js';

const IMAGE_TYPES = ['image/*'] as const;

export const fetchImageTool = defineTool({
  name: 'fetch_image',
  description: toolDescriptions.fetch_image,
  inputSchema: toolInputSchemas.fetch_image,
  output: {
    // Bounds the upstream body (the fetch stops reading there); the output itself is tiny.
    maxCharacters: FETCH_MAX_BYTES,
    contentTypes: IMAGE_TYPES,
    schema: z.strictObject({ path: z.string().min(1), content_type: z.string(), bytes: z.int().min(1) }),
    invariants: [
      {
        name: 'content_type_is_image',
        check: (output) => output.content_type.startsWith('image/') || `${quoteUntrusted(output.content_type, { maxCharacters: 100 })} is not an image type`,
      },
    ],
    mode: 'degrade',
  },
  writes: true,
  idempotent: true,
  async execute(input, context) {
    const path = normalizeWorkspacePath(input.path);
    const response = await fetchWithLimits({ url: input.url, policy: fetchPolicyFor(context), signal: context.signal, maxBytes: FETCH_MAX_BYTES });
    if (response.status < 200 || response.status > 299) {
      throw new ToolError('fetch_http_error', `${quoteUntrusted(response.finalUrl)} answered HTTP ${response.status}; no image was saved.`);
    }
    validateUpstreamResponse({ response, expect: { contentTypes: IMAGE_TYPES, maxBytes: FETCH_MAX_BYTES } });
    const content = `data:${response.contentType};base64,${response.body.toString('base64')}`;
    await writeWorkspaceFileOrThrow({ store: context.store, runId: context.runId, path, content, fence: writeFenceOf(context) });
    return { path, content_type: response.contentType, bytes: response.body.length };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default fetchImageTool;
