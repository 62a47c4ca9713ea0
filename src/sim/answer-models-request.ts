// The Models API (SDK @anthropic-ai/sdk resources/models.d.ts; docs api/models-list, api/models):
// - `GET /v1/models/{model_id}` answers the model an id or alias names ("resolve a model alias to a
//   model ID"), retired ones included: a retired model "remains in the catalogue as the historical
//   record of its retirement" (ModelInfo.lifecycle); an unknown id is 404 not_found_error.
// - `GET /v1/models` lists newest first ("More recently released models are listed first"), paged
//   by `before_id` / `after_id` / `limit` (1–1000, default 20) with `has_more`, `first_id`,
//   `last_id` (SDK core/pagination.ts `Page`: the next page is `after_id=last_id`, or
//   `before_id=first_id` when paging backwards). `lifecycle` filters by stage: "When omitted, the
//   list contains the `active` and `deprecated` models; `retired` models appear only when `retired`
//   is requested explicitly"; up to 3 values. The SDK sends arrays as `lifecycle[]=…`
//   (internal/utils/query.ts, `arrayFormat: 'brackets'`); a plain repeated `lifecycle=` is read too.
// Not documented, so chosen here: a cursor naming no listed model is a 400, and models released the
// same day keep the catalog's order.
import { KNOWN_MODELS, lookupModel, type ModelDescription, type ModelLifecycle } from './model-catalog.js';
import { modelInfoOf } from './model-info.js';

export const MODELS_PATH = '/v1/models';
const MODEL_PATH_PREFIX = `${MODELS_PATH}/`;
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;
const LIFECYCLES: readonly ModelLifecycle[] = ['active', 'deprecated', 'retired'];
const DEFAULT_LIFECYCLES: readonly ModelLifecycle[] = ['active', 'deprecated'];

export type ModelsAnswer = { status: 200; body: unknown } | { status: 400 | 404; message: string };

/** Newest first; `sort` is stable, so same-day releases keep the catalog's order. */
function newestFirst(models: readonly ModelDescription[]): ModelDescription[] {
  return [...models].sort((left, right) => right.releasedOn.localeCompare(left.releasedOn));
}
const NEWEST_FIRST = newestFirst(KNOWN_MODELS);

/** Whether a path is a Models API route. */
export function isModelsPath({ path }: { path: string }): boolean {
  return path === MODELS_PATH || path.startsWith(MODEL_PATH_PREFIX);
}

/** The answer to a GET on a Models API path (the caller has checked the method and headers);
 * `extraModels` (tests: SimulatorOptions.extraModels) are listed and described besides the catalog's. */
export function answerModelsRequest({
  path,
  query,
  extraModels = [],
}: {
  path: string;
  query: URLSearchParams;
  extraModels?: readonly ModelDescription[];
}): ModelsAnswer {
  if (path === MODELS_PATH) return listModels({ query, models: extraModels.length === 0 ? NEWEST_FIRST : newestFirst([...KNOWN_MODELS, ...extraModels]) });
  const id = decodeURIComponent(path.slice(MODEL_PATH_PREFIX.length));
  const model = lookupModel({ model: id }) ?? extraModels.find((extra) => extra.names.includes(id));
  if (!model) return { status: 404, message: `model: ${id}` };
  return { status: 200, body: modelInfoOf({ model }) };
}

function listModels({ query, models }: { query: URLSearchParams; models: readonly ModelDescription[] }): ModelsAnswer {
  const requested = [...query.getAll('lifecycle[]'), ...query.getAll('lifecycle')];
  if (requested.length > LIFECYCLES.length)
    return { status: 400, message: `lifecycle: List should have at most ${LIFECYCLES.length} items after validation, not ${requested.length}` };
  const unknown = requested.findIndex((stage) => !(LIFECYCLES as readonly string[]).includes(stage));
  if (unknown >= 0) return { status: 400, message: `lifecycle.${unknown}: Input should be 'active', 'deprecated' or 'retired'` };
  const stages = requested.length > 0 ? requested : DEFAULT_LIFECYCLES;

  const limitText = query.get('limit');
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit)) return { status: 400, message: 'limit: Input should be a valid integer, unable to parse string as an integer' };
  if (limit < 1) return { status: 400, message: 'limit: Input should be greater than or equal to 1' };
  if (limit > MAX_LIMIT) return { status: 400, message: `limit: Input should be less than or equal to ${MAX_LIMIT}` };

  const listed = models.filter((model) => (stages as readonly string[]).includes(model.lifecycle));
  let start = 0;
  let end = listed.length;
  for (const [name, isAfter] of [
    ['after_id', true],
    ['before_id', false],
  ] as const) {
    const cursor = query.get(name);
    if (cursor === null) continue;
    const at = listed.findIndex((model) => model.id === cursor);
    if (at < 0) return { status: 400, message: `${name}: no listed model has the id ${cursor}` };
    if (isAfter) start = Math.max(start, at + 1);
    else end = Math.min(end, at);
  }
  // Paging backwards (before_id alone) takes the page nearest the cursor; `has_more` then says
  // whether earlier (newer) models remain, which is where the SDK goes next.
  const backwards = query.get('before_id') !== null && query.get('after_id') === null;
  const window = listed.slice(start, end);
  const page = backwards ? window.slice(Math.max(0, window.length - limit)) : window.slice(0, limit);
  const data = page.map((model) => modelInfoOf({ model }));
  return {
    status: 200,
    body: {
      data,
      has_more: window.length > page.length,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    },
  };
}
