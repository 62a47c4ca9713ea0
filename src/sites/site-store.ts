// Where deployed sites live (issue #21): a store meant for immutable files, not Redis, so a site
// keeps being served after its run's Redis keys are gone. This is the interface an object store
// could implement later (a manifest and blobs map onto objects and conditional puts); the default is
// a directory on a volume (directory-site-store.ts, layout in docs/sites.md#storage).
//
// The store does not decide whether a deployment or a publish happened: the engine's guarded Lua
// steps do (src/engine/effects/deployments.ts). The store only holds bytes keyed so that writing
// them again is harmless: a deployment by its deploy id (written once, then immutable), a published
// pointer by the sequence number the Lua step handed out (the highest one is the live site).

/** One file of a deployment, as the workspace holds it (text, or a `data:` URL for binaries). */
export interface SiteFile {
  /** A workspace path (src/safety/workspace-path.ts rules); the store refuses any other. */
  path: string;
  content: string;
}

export interface PutDeploymentResult {
  /** false when the deployment was already complete: nothing was written by this call. */
  created: boolean;
  /** The deployment's paths, sorted: what was stored, by this call or the first one. */
  paths: string[];
}

export interface PublishedPointer {
  deployId: string;
  /** Orders publishes of one run (the write journal position of the publish's Lua step). */
  sequence: number;
  publishedAt: string;
}

export interface SiteStore {
  /** Stores a deployment's files once under its deploy id. A deployment that is already complete
   * (a re-delivered deploy, or a concurrent duplicate that finished first) is left as it is and
   * its paths returned: a deployment never changes once complete. */
  putDeployment(input: { runId: string; deployId: string; files: readonly SiteFile[] }): Promise<PutDeploymentResult>;
  /** The paths of a complete deployment, sorted, or null when there is none. */
  deploymentPaths(input: { runId: string; deployId: string }): Promise<string[] | null>;
  /** One file of a complete deployment, or null (no deployment, no such file, or a path the
   * workspace rules refuse). */
  readDeploymentFile(input: { runId: string; deployId: string; path: string }): Promise<string | null>;
  /** The deploy ids of a run's complete deployments, sorted. */
  listDeployments(runId: string): Promise<string[]>;
  /** Removes a deployment the engine refused to record, so no unrecorded deployment outlives the
   * run's Redis keys (see deploy.ts for when that is safe). */
  discardDeployment(input: { runId: string; deployId: string }): Promise<void>;
  /** Points the run's published site at a deployment, unless a higher sequence already does. */
  publish(input: { runId: string; deployId: string; sequence: number }): Promise<void>;
  /** The run's published pointer with the highest sequence, or null when it never published. */
  readPublished(runId: string): Promise<PublishedPointer | null>;
}

/** Thrown for an id or path the store refuses: a caller bug or an attack, never stored. */
export class SiteStoreRefused extends Error {
  override name = 'SiteStoreRefused';
}

/** Thrown when what the store reads back is not what it wrote (a manifest that does not decode, a
 * blob whose digest does not match): an infrastructure failure, never served. */
export class SiteStoreCorrupt extends Error {
  override name = 'SiteStoreCorrupt';
}
