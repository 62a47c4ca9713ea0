// What the provider's Models API last said of each model, held once per process (the fleet
// context's `modelDescriptions`) and filled by the catalog check (models-api-check.ts): a submit
// and a model turn read it from memory, never from the provider or Redis. A description is
// trusted until `trustedUntil` — three check intervals after it was read — so a fleet whose
// checks keep failing goes back to the catalog alone rather than running on an old answer
// (a model the catalog does not know is then refused as unknown again, until a check succeeds).
import { catalogRecord } from '../domain/model-catalog.js';
import type { ProviderModelDescription } from '../domain/provider-model-description.js';

export class ModelDescriptions {
  private byId: ReadonlyMap<string, ProviderModelDescription> = new Map();
  private trustedUntil = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  /** Replaces every description with those of one complete check. */
  replace({ descriptions, trustedUntil }: { descriptions: readonly ProviderModelDescription[]; trustedUntil: number }): void {
    this.byId = new Map(descriptions.map((description) => [description.id, description]));
    this.trustedUntil = trustedUntil;
  }

  /** The API's description of a model (by id, or by an alias the catalog knows), while trusted. */
  describe(model: string): ProviderModelDescription | undefined {
    if (this.clock() >= this.trustedUntil) return undefined;
    return this.byId.get(model) ?? this.byId.get(catalogRecord(model)?.id ?? model);
  }

  /** How many models the last check described (0 once it is no longer trusted). */
  get size(): number {
    return this.clock() >= this.trustedUntil ? 0 : this.byId.size;
  }
}
