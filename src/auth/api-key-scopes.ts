// What an API key may do. `admin` is the operator scope: the admin routes (kill switch, queue
// dashboard) need it, and it includes every other scope, so one key can run the whole fleet.
export const API_KEY_SCOPES = ['runs:read', 'runs:write', 'admin'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Whether a key's scopes grant `required`. */
export function hasScope({ scopes, required }: { scopes: readonly ApiKeyScope[]; required: ApiKeyScope }): boolean {
  return scopes.includes(required) || scopes.includes('admin');
}

/** Parses "runs:read,runs:write" into scopes; throws naming the first unknown one. */
export function parseScopes(list: string): ApiKeyScope[] {
  const scopes = [
    ...new Set(
      list
        .split(',')
        .map((scope) => scope.trim())
        .filter((scope) => scope !== ''),
    ),
  ];
  if (scopes.length === 0) throw new Error(`no scopes given; choose from ${API_KEY_SCOPES.join(', ')}`);
  for (const scope of scopes) {
    if (!(API_KEY_SCOPES as readonly string[]).includes(scope)) {
      throw new Error(`unknown scope "${scope}"; choose from ${API_KEY_SCOPES.join(', ')}`);
    }
  }
  return scopes as ApiKeyScope[];
}
