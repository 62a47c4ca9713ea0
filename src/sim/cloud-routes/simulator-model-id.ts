// The simulator's catalog (model-catalog.ts) knows models by their Claude API ids; the clouds name
// them their own way (docs about-claude/models/model-ids-and-versions): Bedrock
// `anthropic.claude-{name}-{major}-{minor}[-{date}-v1:0]` (Opus 4.6: `-v1`), optionally behind a
// cross-region inference profile prefix (`us.`, `eu.`, `jp.`, `apac.`, `global.`); Vertex
// `claude-{name}-{major}-{minor}` or, before the 4.6 generation, `claude-{name}-{version}@{date}`.
import type { CloudProvider } from './cloud-route.js';

const INFERENCE_PROFILE_PREFIX = /^(us|us-gov|eu|jp|apac|au|ca|global)\./;

/** The Claude API id a cloud model id stands for; an id in no known shape is returned as it is
 * (the catalog then answers 404 like for any unknown model). */
export function simulatorModelId({ provider, modelId }: { provider: CloudProvider; modelId: string }): string {
  if (provider === 'vertex') return modelId.replace('@', '-');
  const base = modelId.replace(INFERENCE_PROFILE_PREFIX, '');
  if (!base.startsWith('anthropic.')) return modelId;
  return base.slice('anthropic.'.length).replace(/-v\d+(:\d+)?$/, '');
}
