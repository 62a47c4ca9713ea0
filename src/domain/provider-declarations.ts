// The model providers an operator declares (BUILDFLEET_PROVIDERS, docs/providers.md): a JSON
// object, provider name → `{kind, ...options}`. Here only the shape every declaration shares (a
// name, a known kind, an object); each kind's own options are checked against that kind's schema
// where its client is built (src/providers/provider-settings.ts), which the configuration layer
// cannot import.
import { z } from 'zod';
import { parseJsonSetting } from './parse-json-setting.js';

/** The kinds of provider the fleet can call. */
export const PROVIDER_KINDS = ['anthropic', 'bedrock', 'vertex', 'openai_compatible'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** The provider every fleet has without declaring it: the Anthropic API as ANTHROPIC_API_KEY,
 * ANTHROPIC_BASE_URL and BUILDFLEET_SIMULATOR_URL configure it (what the fleet called before
 * providers existed, and what a run stored before then was made with). */
export const IMPLICIT_PROVIDER = 'anthropic';

const PROVIDER_NAME_RULE = 'lowercase letters, digits, _ and -, at most 64, starting with a letter or digit';

/** A provider name as runs, tenant policies and the configuration spell it. */
export const providerNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, PROVIDER_NAME_RULE);

const declarationSchema = z.looseObject({ kind: z.enum(PROVIDER_KINDS) });
export type ProviderDeclaration = z.infer<typeof declarationSchema>;

// A bad key would otherwise read "VLLM: Invalid key in record" (zod's record message), not the rule.
const declarationsSchema = z.record(providerNameSchema, declarationSchema, {
  error: (issue) => (issue.code === 'invalid_key' ? `is no provider name (${PROVIDER_NAME_RULE})` : undefined),
});
export type ProviderDeclarations = Readonly<Record<string, ProviderDeclaration>>;

/** Parses BUILDFLEET_PROVIDERS ('' = none declared); throws an Error naming what is wrong. */
export function parseProviderDeclarations(text: string): ProviderDeclarations {
  return Object.freeze(parseJsonSetting(text, declarationsSchema) ?? {});
}

/** The names a run may name: the implicit provider and every declared one. */
export function providerNames(declarations: ProviderDeclarations): string[] {
  return [...new Set([IMPLICIT_PROVIDER, ...Object.keys(declarations)])];
}

/** The names of a list (a tenant's `allowedProviders`) that are no provider the fleet has. */
export function providersTheFleetLacks({ providers, declarations }: { providers: readonly string[]; declarations: ProviderDeclarations }): string[] {
  const known = providerNames(declarations);
  return providers.filter((provider) => !known.includes(provider));
}
