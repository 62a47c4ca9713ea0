// How the simulator reads the fleet's tool results. The fleet wraps each result as
//   <tool_output tool="deploy" trust="untrusted">\n{...json...}\n</tool_output>
// but plain text or bare JSON must work too, so every field is looked up leniently.

export interface ToolOutput {
  /** The result text with any `<tool_output>` wrapper removed. */
  text: string;
  /** The parsed JSON object inside, when the text is one. */
  json: Record<string, unknown> | undefined;
}

const WRAPPER_PATTERN = /^<tool_output\b[^>]*>\s*([\s\S]*?)\s*<\/tool_output>$/;

/** Unwraps and parses one tool_result's text. */
export function readToolOutput({ text }: { text: string }): ToolOutput {
  const trimmed = text.trim();
  const inner = WRAPPER_PATTERN.exec(trimmed)?.[1] ?? trimmed;
  return { text: inner, json: parseJsonObject(inner) };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const URL_PATTERN = /https?:\/\/[^\s"'<>)\]]+/;
const DEPLOY_ID_PATTERN = /\bdep_[A-Za-z0-9_-]+/;

/** The first string among `keys` in the object or one level down (`result`, `data`, …). */
function findString(json: Record<string, unknown> | undefined, keys: readonly string[]): string | undefined {
  if (!json) return undefined;
  const nested = Object.values(json).filter((value): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value));
  const candidates = [json, ...nested];
  for (const candidate of candidates) {
    for (const key of keys) {
      const value = candidate[key];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return undefined;
}

/** The deploy id and URL a deploy result reports. */
export function readDeployment({ output }: { output: ToolOutput }): { deployId: string | undefined; url: string | undefined } {
  const deployId = findString(output.json, ['deploy_id', 'deployId', 'deployment_id', 'deploymentId', 'id']) ?? DEPLOY_ID_PATTERN.exec(output.text)?.[0];
  const url = findString(output.json, ['url', 'deploy_url', 'preview_url', 'live_url', 'site_url']) ?? URL_PATTERN.exec(output.text)?.[0];
  return { deployId, url };
}

/** The public URL a publish result reports. */
export function readPublishedUrl({ output }: { output: ToolOutput }): string | undefined {
  return findString(output.json, ['url', 'published_url', 'public_url', 'live_url', 'site_url']) ?? URL_PATTERN.exec(output.text)?.[0];
}
