// What a tenant id may be. Tenant ids become parts of Redis keys and of kill-switch scope ids
// (`tenant:<tenant>`, src/safety/kill-switch-scope.ts), so they are kept to a safe alphabet
// without `:`. One pattern for every place that accepts or reads one back: API keys, the admin
// routes, the CLI and the kill switch.

/** 1-64 letters, digits, `_` and `-`, starting with a letter or digit. */
export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
