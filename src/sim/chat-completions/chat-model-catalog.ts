// The models the simulated chat completions endpoint serves. An OpenAI-compatible server names its
// model by its Hugging Face id (vLLM `--served-model-name` defaults to the `--model` path; docs
// serving/openai_compatible_server) or by a tag (Ollama `qwen2.5:7b`); the simulator serves a few of
// each, whose context windows come from their model cards, plus every Claude id the Messages
// endpoint knows (model-catalog.ts), so the fleet can point its OpenAI-compatible provider at the
// simulator with its usual model names. Any other name is answered 404 `model_not_found`, as the
// OpenAI API does ("The model `…` does not exist or you do not have access to it.").
//
// Output limits differ: vLLM bounds `max_tokens` by the context window only (prompt + max_tokens ≤
// max_model_len; without `max_tokens` it generates up to the window), so an open model's
// `maxOutputTokens` is its window; a Claude id keeps its own "Max output".
import { lookupModel, lookupServedModel, type ModelDescription } from '../model-catalog.js';
import type { TextToolCallFormat } from '../text-tool-call-format.js';

export interface ChatModel {
  /** The name the request used, which the answer reports as `model`. */
  name: string;
  /** Open-weights model served as by vLLM: max_tokens bounded by the window, not by a max output. */
  openWeights: boolean;
  contextWindowTokens: number;
  maxOutputTokens: number;
  /** What the internal Messages request names: the Claude id, or `claude-sim` for an open model. */
  internalModel: string;
  /** Limits, caching and rate-limit class used for the request. */
  description: ModelDescription;
  /** The formats its family writes a tool call in when no server-side parser reads them
   * (text-tool-call-format.ts); null for a Claude id, which drifts as on /v1/messages. */
  textFormats: readonly TextToolCallFormat[] | null;
}

// Formats per family, as vLLM pairs them with its tool parsers (docs features/tool_calling: hermes
// for Qwen and Hermes, llama3_json for Llama 3.1/3.3, mistral, deepseek_v3 / deepseek_v31, granite,
// and functionary's v3.1 / v3.2 templates).
const OPEN_MODELS: ReadonlyArray<{ names: readonly string[]; contextWindowTokens: number; textFormats: readonly TextToolCallFormat[] }> = [
  { names: ['Qwen/Qwen2.5-7B-Instruct', 'qwen2.5:7b'], contextWindowTokens: 32_768, textFormats: ['tool_call_tag'] },
  { names: ['Qwen/Qwen3-8B', 'qwen3:8b'], contextWindowTokens: 32_768, textFormats: ['tool_call_tag'] },
  { names: ['NousResearch/Hermes-3-Llama-3.1-8B'], contextWindowTokens: 131_072, textFormats: ['tool_call_tag'] },
  { names: ['meta-llama/Llama-3.1-8B-Instruct', 'llama3.1:8b'], contextWindowTokens: 131_072, textFormats: ['llama_json', 'llama_python_tag'] },
  { names: ['meta-llama/Llama-3.3-70B-Instruct', 'llama3.3:70b'], contextWindowTokens: 131_072, textFormats: ['llama_json', 'llama_python_tag'] },
  { names: ['mistralai/Mistral-7B-Instruct-v0.3', 'mistral:7b'], contextWindowTokens: 32_768, textFormats: ['mistral', 'mistral_v13'] },
  { names: ['deepseek-ai/DeepSeek-V3'], contextWindowTokens: 131_072, textFormats: ['deepseek', 'deepseek_v31'] },
  { names: ['ibm-granite/granite-3.1-8b-instruct', 'granite3.1-dense:8b'], contextWindowTokens: 131_072, textFormats: ['granite'] },
  { names: ['meetkai/functionary-small-v3.1'], contextWindowTokens: 131_072, textFormats: ['functionary_v31'] },
  { names: ['meetkai/functionary-small-v3.2'], contextWindowTokens: 131_072, textFormats: ['functionary_v32'] },
];

/** Every open-weights model name the endpoint serves. */
export const OPEN_MODEL_NAMES: readonly string[] = OPEN_MODELS.flatMap((model) => model.names);

/** OpenAI's automatic prompt caching starts at this prompt length (docs guides/prompt-caching). */
const OPENAI_MINIMUM_CACHEABLE_TOKENS = 1024;

/** The model a request names, or undefined when the server answers 404. */
export function lookupChatModel({ model }: { model: string }): ChatModel | undefined {
  const claude = lookupServedModel({ model });
  if (claude) {
    return {
      name: model,
      openWeights: false,
      contextWindowTokens: claude.contextWindowTokens,
      maxOutputTokens: claude.maxOutputTokens,
      internalModel: model,
      description: claude,
      textFormats: null,
    };
  }
  const open = OPEN_MODELS.find((candidate) => candidate.names.includes(model));
  const simulated = lookupModel({ model: 'claude-sim' });
  if (!open || !simulated) return undefined;
  return {
    name: model,
    openWeights: true,
    contextWindowTokens: open.contextWindowTokens,
    maxOutputTokens: open.contextWindowTokens,
    internalModel: simulated.id,
    description: {
      ...simulated,
      id: model,
      names: open.names,
      contextWindowTokens: open.contextWindowTokens,
      thinkingTypes: [],
      minimumCacheableTokens: OPENAI_MINIMUM_CACHEABLE_TOKENS,
    },
    textFormats: open.textFormats,
  };
}
