// The fleet's model catalog checked against the provider's Models API (CONVENTIONS rule 17), at
// boot and every BUILDFLEET_MODELS_API_CHECK_INTERVAL_MS: every model the API lists (active,
// deprecated and retired: the list leaves retired ones out unless asked, SDK ModelListParams) is
// validated (model-info-schema.ts), held in the process's ModelDescriptions for submits and turns,
// and compared with the catalog and the operator's overrides. Each disagreement is logged once per
// process (warn: model, field, both values) and handed to the observer for the
// buildfleet_model_catalog_disagreements gauge. A check that fails (network, auth, a malformed
// page) is logged and counted and changes nothing: the process goes on with what it had.
import type { Logger } from 'pino';
import { catalogDisagreements, type CatalogDisagreement } from '../domain/catalog-disagreements.js';
import { lookupModelCapabilities, type ModelCapabilityOverrides } from '../domain/model-capabilities.js';
import { catalogRecord } from '../domain/model-catalog.js';
import type { ProviderModelDescription } from '../domain/provider-model-description.js';
import type { ModelDescriptions } from './model-descriptions.js';
import { readModelInfo } from './model-info-schema.js';

/** The stages asked for: all three, so a retired model is known as retired, not as missing. */
const ALL_LIFECYCLES: Array<'active' | 'deprecated' | 'retired'> = ['active', 'deprecated', 'retired'];
/** The API's largest page (docs api/models-list: `limit` 1–1000). */
const PAGE_LIMIT = 1000;
/** A description stays trusted for this many intervals after it was read (model-descriptions.ts). */
const TRUSTED_INTERVALS = 3;

/** A provider's Models API, as the SDK reaches it (`client.models.list`, which pages on its own). */
export interface ModelsApiSource {
  /** The provider's name (BUILDFLEET_PROVIDERS key, or `anthropic`). */
  provider: string;
  list(params: { lifecycle: Array<'active' | 'deprecated' | 'retired'>; limit: number }): AsyncIterable<unknown>;
}

export type ModelsApiCheckResult =
  { ok: true; described: number; disagreements: CatalogDisagreement[]; malformed: number; unknownToCatalog: string[] } | { ok: false; error: string };

export interface ModelsApiCheckObserver {
  /** Each check's outcome (the checks counter). */
  onCheck?: (outcome: 'ok' | 'failed') => void;
  /** Every disagreement of a completed check (the gauge: those missing are resolved). */
  onDisagreements?: (disagreements: readonly CatalogDisagreement[]) => void;
}

/** The fleet's names of one listed model that the catalog or an override describes: its id and any
 * alias the operator overrides (compared under the name the override uses). */
function fleetNamesOf(id: string, overrides: ModelCapabilityOverrides): string[] {
  const record = catalogRecord(id);
  const names = record || Object.hasOwn(overrides, id) ? [id] : [];
  for (const alias of record?.aliases ?? []) if (Object.hasOwn(overrides, alias)) names.push(alias);
  return names;
}

/** The check of one process: `runOnce` for one pass, `start` for boot and the timer. */
export class ModelsApiCheck {
  private readonly logged = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<ModelsApiCheckResult> | null = null;

  constructor(
    private readonly input: {
      source: ModelsApiSource;
      overrides: ModelCapabilityOverrides;
      descriptions: ModelDescriptions;
      logger: Logger;
      /** Between two checks (> 0); descriptions are trusted for three of these. */
      intervalMs: number;
      observer?: ModelsApiCheckObserver;
      clock?: () => number;
    },
  ) {}

  /** Runs `log` the first time `key` is seen in this process: each finding is logged once. */
  private once(key: string, log: () => void): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    log();
  }

  /** One check: list, validate, hold, compare. Never throws. */
  runOnce(): Promise<ModelsApiCheckResult> {
    this.running ??= this.check().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async check(): Promise<ModelsApiCheckResult> {
    const { source, overrides, descriptions, logger, observer } = this.input;
    const clock = this.input.clock ?? Date.now;
    const provider = source.provider;
    const described: ProviderModelDescription[] = [];
    let malformed = 0;
    try {
      for await (const item of source.list({ lifecycle: ALL_LIFECYCLES, limit: PAGE_LIMIT })) {
        const read = readModelInfo(item);
        if (read.ok) {
          described.push(read.description);
          continue;
        }
        malformed += 1;
        this.once(`malformed|${read.id}|${read.problem}`, () =>
          logger.error(
            { event: 'models-api-malformed', provider, model: read.id, problem: read.problem },
            `the Models API described ${read.id ?? 'a model'} in a form the fleet cannot read; it is left out`,
          ),
        );
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn(
        { event: 'models-api-check-failed', provider, err: message },
        `the catalog check against ${provider}'s Models API failed; the fleet goes on with what it knew`,
      );
      observer?.onCheck?.('failed');
      return { ok: false, error: message };
    }
    descriptions.replace({ descriptions: described, trustedUntil: clock() + TRUSTED_INTERVALS * this.input.intervalMs });

    const disagreements: CatalogDisagreement[] = [];
    const unknownToCatalog: string[] = [];
    for (const description of described) {
      const names = fleetNamesOf(description.id, overrides);
      if (names.length === 0) {
        unknownToCatalog.push(description.id);
        this.once(`described|${description.id}`, () =>
          logger.info(
            {
              event: 'models-api-model-described',
              provider,
              model: description.id,
              lifecycle: description.lifecycle,
              max_input_tokens: description.maxInputTokens,
              max_tokens: description.maxTokens,
            },
            `model ${description.id} is not in the fleet's catalog; runs naming it use what the Models API describes`,
          ),
        );
        continue;
      }
      for (const name of names) {
        const { capabilities, lifecycle } = lookupModelCapabilities({ model: name, overrides });
        disagreements.push(...catalogDisagreements({ description: { ...description, id: name }, capabilities, lifecycle }));
      }
    }
    for (const disagreement of disagreements) {
      this.once(`disagreement|${disagreement.model}|${disagreement.field}|${disagreement.catalog}|${disagreement.api}`, () =>
        logger.warn(
          {
            event: 'model-catalog-disagreement',
            provider,
            model: disagreement.model,
            field: disagreement.field,
            catalog: disagreement.catalog,
            api: disagreement.api,
          },
          `the catalog and the Models API disagree on ${disagreement.model} ${disagreement.field}: catalog ${disagreement.catalog}, API ${disagreement.api}`,
        ),
      );
    }
    observer?.onCheck?.('ok');
    observer?.onDisagreements?.(disagreements);
    return { ok: true, described: described.length, disagreements, malformed, unknownToCatalog };
  }

  /** Checks now and then every interval; resolves with the first check's result. */
  start(): Promise<ModelsApiCheckResult> {
    this.stop();
    this.timer = setInterval(() => void this.runOnce(), this.input.intervalMs);
    // The check never keeps a process alive on its own.
    this.timer.unref();
    return this.runOnce();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
