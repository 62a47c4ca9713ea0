// DeepSeek's tool-call special tokens, with their full-width bars (U+FF5C) and U+2581 `▁`, as in
// the tokenizer and chat template of DeepSeek-V3 / R1 / V3.1 (and vLLM's deepseekv3 and
// deepseekv31 tool parsers).
export const DEEPSEEK_CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
export const DEEPSEEK_CALLS_END = '<｜tool▁calls▁end｜>';
export const DEEPSEEK_CALL_BEGIN = '<｜tool▁call▁begin｜>';
export const DEEPSEEK_CALL_END = '<｜tool▁call▁end｜>';
export const DEEPSEEK_SEPARATOR = '<｜tool▁sep｜>';
/** V3 / R1 name the call's type before the separator; it is always `function`. */
export const DEEPSEEK_V3_CALL_TYPE = 'function';
