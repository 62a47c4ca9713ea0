// The shapes of the ids the fleet mints and takes back: one definition for the API, the job
// catalog, the site store (where ids become directory and file names, so they admit no '/', '.'
// or '..') and the run console.

/** A run id: `run_` and 8–64 letters or digits (the engine mints `run_` and 32 hex digits). */
export const RUN_ID_PATTERN = /^run_[a-zA-Z0-9]{8,64}$/;

/** A deployment id: 1–100 letters, digits, `_` or `-`. */
export const DEPLOY_ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

export function isRunId(value: string): boolean {
  return RUN_ID_PATTERN.test(value);
}
