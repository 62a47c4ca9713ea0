// check_broken_images: every image a deployment's pages and stylesheets reference, checked the
// way a browser viewing that deployment would resolve it.
//
// Each remote check's response passes size → content type → strict parse
// (validateUpstreamResponse, reading only a prefix on purpose) before it becomes a verdict: an
// image URL answering a maintenance page is broken with the reason code
// `unexpected_content_type:text/html`, a PNG without the PNG signature `invalid_image`. A remote
// image's failure is this tool's finding, not an invalid output of the tool — and so is a page
// with thousands of broken images or a src of megabytes: the lists are bounded
// (check-broken-images-list.ts), `broken_omitted` / `unchecked_omitted` count what they left out.
import { siteStoreOf } from '../../sites/site-store-of-config.js';
import { z } from 'zod';
import { fetchPolicyFor, checkFetchTarget } from '../http/check-fetch-target.js';
import { fetchWithLimits, type LimitedResponse } from '../http/fetch-with-limits.js';
import { cssImageUrls, extractHtmlImageReferences } from '../html/extract-image-references.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { ToolOutputInvalid } from '../output/tool-output-invalid.js';
import { validateUpstreamResponse } from '../output/validate-tool-output.js';
import { defineTool, ToolError, type ToolContext } from '../tool-types.js';
import { listProblems, MAX_LISTED_FIELD_LENGTH, MAX_LISTED_PROBLEMS, type ImageProblem } from './check-broken-images-list.js';

const REMOTE_CHECK_TIMEOUT_MS = 5_000;
const REMOTE_CHECK_MAX_BYTES = 64 * 1024;
const MAX_REMOTE_URLS = 50;
const REMOTE_CONCURRENCY = 4;
const IMAGE_TYPES = ['image/*'] as const;

// Relative references are resolved against a fake origin whose path stands for the deployment's
// root; a result outside that path escaped the site (too many "../").
const SITE_ROOT_PATH = '/__site_root__/';
const SITE_ROOT = `http://site.invalid${SITE_ROOT_PATH}`;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

const listedProblem = z.strictObject({
  page: z.string().max(MAX_LISTED_FIELD_LENGTH),
  src: z.string().max(MAX_LISTED_FIELD_LENGTH),
  reason: z.string().max(MAX_LISTED_FIELD_LENGTH),
});

type Verdict = { state: 'ok' } | { state: 'broken'; reason: string } | { state: 'unchecked'; reason: string };

function checkLocal(fromPath: string, src: string, files: ReadonlySet<string>): Verdict {
  const resolved = new URL(src, SITE_ROOT + fromPath);
  if (!resolved.pathname.startsWith(SITE_ROOT_PATH)) {
    return { state: 'broken', reason: 'the path climbs above the site root with "../"' };
  }
  let path: string;
  try {
    path = decodeURIComponent(resolved.pathname.slice(SITE_ROOT_PATH.length));
  } catch {
    return { state: 'broken', reason: 'the path has invalid percent-encoding' };
  }
  if (files.has(path)) return { state: 'ok' };
  return { state: 'broken', reason: `${path || '(the site root)'} is not a file of this deployment` };
}

function judge(response: LimitedResponse): Verdict {
  if (response.status < 200 || response.status > 399) return { state: 'broken', reason: `HTTP ${response.status}` };
  try {
    validateUpstreamResponse({ response, expect: { contentTypes: IMAGE_TYPES, maxBytes: REMOTE_CHECK_MAX_BYTES, prefixOnly: true } });
  } catch (error) {
    if (ToolOutputInvalid.isInstance(error)) return { state: 'broken', reason: `not an image (${error.reason})` };
    throw error;
  }
  return { state: 'ok' };
}

async function checkRemote(url: string, context: ToolContext): Promise<Verdict> {
  const policy = fetchPolicyFor(context);
  try {
    checkFetchTarget({ url, policy });
  } catch (error) {
    if (ToolError.isInstance(error)) return { state: 'unchecked', reason: error.message };
    throw error;
  }
  const request = { url, policy, signal: context.signal, timeoutMs: REMOTE_CHECK_TIMEOUT_MS, maxBytes: REMOTE_CHECK_MAX_BYTES };
  const attempt = async (method: 'HEAD' | 'GET'): Promise<Verdict> => {
    try {
      return judge(await fetchWithLimits({ ...request, method }));
    } catch (error) {
      if (!ToolError.isInstance(error)) throw error;
      if (error.code === 'fetch_blocked' || error.code === 'url_invalid') return { state: 'unchecked', reason: error.message };
      return { state: 'broken', reason: error.message };
    }
  };
  const head = await attempt('HEAD');
  // Many servers refuse or mishandle HEAD (405, 403, dropped connections); GET is the real test.
  return head.state === 'broken' ? attempt('GET') : head;
}

/** Runs tasks with at most `limit` in flight. */
async function mapWithConcurrency<Item, Result>(items: Item[], limit: number, task: (item: Item) => Promise<Result>): Promise<Result[]> {
  const results: Result[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index] as Item);
    }
  });
  await Promise.all(lanes);
  return results;
}

export const checkBrokenImagesTool = defineTool({
  name: 'check_broken_images',
  description: toolDescriptions.check_broken_images,
  inputSchema: toolInputSchemas.check_broken_images,
  output: {
    contentTypes: IMAGE_TYPES,
    schema: z.strictObject({
      deploy_id: z.string(),
      checked: z.int().min(0),
      broken: z.array(listedProblem).max(MAX_LISTED_PROBLEMS),
      unchecked: z.array(listedProblem).max(MAX_LISTED_PROBLEMS),
      // Present only when the list left entries out.
      broken_omitted: z.int().min(1).optional(),
      unchecked_omitted: z.int().min(1).optional(),
    }),
    invariants: [
      { name: 'deploy_id_matches_input', check: (output, { input }) => output.deploy_id === (input as { deploy_id: string }).deploy_id },
      { name: 'broken_within_checked', check: (output) => output.broken.length + (output.broken_omitted ?? 0) <= output.checked },
    ],
    mode: 'degrade',
  },
  writes: false,
  idempotent: true,
  async execute(input, context) {
    const { store, runId } = context;
    if (!(await store.deploymentExists(runId, input.deploy_id))) {
      throw new ToolError('deploy_not_found', `This run has no deployment ${input.deploy_id}; use the deploy_id that deploy returned.`);
    }
    // Redis records that the deployment exists; its files are on the SiteStore (deploy.ts writes
    // them before it records).
    const sites = siteStoreOf(context.config);
    const deployment = { runId, deployId: input.deploy_id };
    const paths = await sites.deploymentPaths(deployment);
    if (paths === null) throw new Error(`The deployment ${input.deploy_id} of run ${runId} is recorded but not on the site store`);
    const files = new Set(paths);
    const references: Array<{ page: string; src: string }> = [];
    const seen = new Set<string>();
    for (const path of [...paths].sort()) {
      const isPage = /\.html?$/i.test(path);
      if (!isPage && !/\.css$/i.test(path)) continue;
      const content = (await sites.readDeploymentFile({ ...deployment, path })) ?? '';
      const sources = isPage ? extractHtmlImageReferences(content).map((reference) => reference.src) : cssImageUrls(content);
      for (const src of sources) {
        const key = `${path}\n${src}`;
        if (seen.has(key)) continue;
        seen.add(key);
        references.push({ page: path, src });
      }
    }

    // Remote references are collected first so each distinct URL is requested once.
    const remoteUrls = new Set<string>();
    // Returns a verdict, or the absolute URL when the reference needs a remote check.
    const verdictOf = (page: string, src: string): Verdict | string => {
      if (src === '') return { state: 'broken', reason: 'the reference is empty' };
      if (/^data:/i.test(src)) return { state: 'ok' };
      const absolute = src.startsWith('//') ? `https:${src}` : src;
      if (SCHEME.test(absolute)) {
        if (!/^https?:/i.test(absolute)) return { state: 'broken', reason: `browsers cannot load images over ${absolute.split(':')[0]}:` };
        remoteUrls.add(absolute);
        return absolute;
      }
      if (src.startsWith('/')) {
        return { state: 'broken', reason: 'a root-relative path ("/...") points outside the site; use a path relative to the page' };
      }
      return checkLocal(page, src, files);
    };

    const pending = references.map((reference) => ({ ...reference, verdict: verdictOf(reference.page, reference.src) }));
    // A bounded number of remote URLs, a few at a time: a page of 500 hotlinked images must not
    // turn one tool call into minutes of requests.
    const toCheck = [...remoteUrls].slice(0, MAX_REMOTE_URLS);
    const checkedRemote = await mapWithConcurrency(toCheck, REMOTE_CONCURRENCY, (url) => checkRemote(url, context));
    const remoteResults = new Map<string, Verdict>(toCheck.map((url, index) => [url, checkedRemote[index] as Verdict]));

    const broken: ImageProblem[] = [];
    const unchecked: ImageProblem[] = [];
    let checked = 0;
    for (const { page, src, verdict } of pending) {
      const final: Verdict =
        typeof verdict === 'string'
          ? (remoteResults.get(verdict) ?? { state: 'unchecked', reason: `more than ${MAX_REMOTE_URLS} remote images; not checked` })
          : verdict;
      if (final.state === 'unchecked') {
        unchecked.push({ page, src, reason: final.reason });
        continue;
      }
      checked += 1;
      if (final.state === 'broken') broken.push({ page, src, reason: final.reason });
    }
    const brokenList = listProblems(broken);
    const uncheckedList = listProblems(unchecked);
    return {
      deploy_id: input.deploy_id,
      checked,
      broken: brokenList.listed,
      unchecked: uncheckedList.listed,
      ...(brokenList.omitted > 0 ? { broken_omitted: brokenList.omitted } : {}),
      ...(uncheckedList.omitted > 0 ? { unchecked_omitted: uncheckedList.omitted } : {}),
    };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default checkBrokenImagesTool;
