// fetch_url_live: what a visitor's browser would get from a URL right now (status, title, text).
// A non-2xx status is an observation, not a tool failure: a maintenance page is worth seeing.
import { fetchPolicyFor } from '../http/check-fetch-target.js';
import { fetchWithLimits } from '../http/fetch-with-limits.js';
import { decodeHtmlEntities } from '../html/decode-html-entities.js';
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool } from '../tool-types.js';

const BODY_EXCERPT_CHARACTERS = 4000;
const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json)|image\/svg\+xml)/;

function titleOf(html: string): string | null {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  if (!match) return null;
  const title = decodeHtmlEntities(match[1] ?? '').replace(/\s+/g, ' ').trim();
  return title.length > 0 ? title.slice(0, 300) : null;
}

export const fetchUrlLiveTool = defineTool({
  name: 'fetch_url_live',
  description:
    'Fetch a URL the way a visitor would (following up to 5 redirects, 10 s limit) and report the final URL, HTTP status, ' +
    'content type, size, page title and the first 4000 characters of the body. Use it to check a deployed or published ' +
    'page. Only the site server and allowed hosts can be reached.',
  inputSchema: toolInputSchemas.fetch_url_live,
  writes: false,
  idempotent: true,
  async execute(input, context) {
    const response = await fetchWithLimits({ url: input.url, policy: fetchPolicyFor(context), signal: context.signal });
    const isText = response.contentType === '' || TEXT_TYPES.test(response.contentType);
    const text = isText ? new TextDecoder('utf-8').decode(response.body) : '';
    return {
      url: input.url,
      final_url: response.finalUrl,
      status: response.status,
      content_type: response.contentType,
      bytes: response.body.length,
      truncated: response.truncated,
      title: isText ? titleOf(text) : null,
      body_excerpt: text.slice(0, BODY_EXCERPT_CHARACTERS),
    };
  },
});
