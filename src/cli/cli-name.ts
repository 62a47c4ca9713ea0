// How the user runs this CLI, for the hints it prints: `npm run buildfleet --` from the repository
// (npm names the script it runs in npm_lifecycle_event), else the `buildfleet` that `npm link` or
// the image puts on the PATH. A hint naming a command the user cannot type is a first-hour surprise.
export function cliName(environment: NodeJS.ProcessEnv = process.env): string {
  return environment.npm_lifecycle_event === 'buildfleet' ? 'npm run buildfleet --' : 'buildfleet';
}

/** This process's name for itself, read once. */
export const CLI = cliName();
