// A small heuristic for text in a tool output that reads like an instruction aimed at the model
// rather than data: "ignore all previous instructions", "you are now ...", chat-template tokens,
// role tags. It only flags (an event and a metric); the output is kept, because the envelope
// already marks it as untrusted data and a false positive must not cost the run its data.
//
// Case-insensitive and linear: the text is lower-cased and whitespace-collapsed once (to single
// spaces; a second form keeps line breaks for the line-start pattern), and every pattern is a
// plain regular expression without nested quantifiers, over at most the first
// MAX_SCANNED_CHARACTERS characters of each string.

export const MAX_SCANNED_CHARACTERS = 200_000;

/** Each pattern's name (reported in events) and what it matches, in normalised text. */
export const INJECTION_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp; lines?: true }> = [
  // "ignore (all) previous instructions", "ignore the above prompt", "ignore any prior rules"
  {
    name: 'ignore_previous_instructions',
    pattern:
      /\bignore (?:all |any |the |your )?(?:of )?(?:the )?(?:previous|prior|above|earlier|preceding) (?:instructions?|prompts?|messages?|rules|directions)\b/,
  },
  // "disregard the above", "disregard all previous ..."
  { name: 'disregard_above', pattern: /\bdisregard (?:all |any |the |your )?(?:previous|prior|above|earlier|preceding|instructions)\b/ },
  // "forget everything above", "forget your instructions"
  { name: 'forget_instructions', pattern: /\bforget (?:all |everything |your |the )?(?:previous |prior |above )?(?:instructions|rules|above|everything)\b/ },
  // "you are now DAN", "from now on you are"
  { name: 'you_are_now', pattern: /\b(?:you are now|from now on,? you (?:are|will))\b/ },
  // talk about the model's own prompt
  { name: 'system_prompt', pattern: /\bsystem prompt\b/ },
  // "new instructions:", "updated instructions:"
  { name: 'new_instructions', pattern: /\b(?:new|updated|real|actual) instructions ?:/ },
  // chat-template control tokens: <|im_start|>, <|system|>, <|endoftext|> ...
  { name: 'chat_template_token', pattern: /<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|eot_id)\|>/ },
  // "### instruction", "### system"
  { name: 'instruction_header', pattern: /#{2,} ?(?:instruction|instructions|system|system message)\b/ },
  // role tags a model might take for its own transcript: <system>, </assistant>, <tool_result ...>
  { name: 'role_tag', pattern: /<\/?(?:system|assistant|user|human|instructions?|tool_result|tool_output|function_calls|antml:[a-z_]+)(?: [^<>]{0,200})?>/ },
  // transcript-style role prefixes at the start of a line: "System:", "Assistant:", "Human:"
  { name: 'role_prefix', pattern: /(?:^|\n) ?(?:system|assistant|human) ?: /, lines: true },
  // [INST] blocks of Llama-style templates
  { name: 'inst_block', pattern: /\[\/?inst\]/ },
];

/** The text lower-cased with whitespace runs collapsed: to one space (flat), or keeping one line
 * break where a run held one (lines, for patterns anchored at line starts). */
function normalise(text: string): { flat: string; lines: string } {
  const lower = text.slice(0, MAX_SCANNED_CHARACTERS).toLowerCase();
  return {
    flat: lower.replace(/\s+/g, ' '),
    lines: lower.replace(/[^\S\n]+/g, ' ').replace(/ ?\n\s*/g, '\n'),
  };
}

/** The names of the patterns a text matches, in INJECTION_PATTERNS order (empty when none). */
export function detectInjection(text: string): string[] {
  const { flat, lines } = normalise(text);
  return INJECTION_PATTERNS.filter(({ pattern, lines: byLine }) => pattern.test(byLine ? lines : flat)).map(({ name }) => name);
}

/** detectInjection over every string in a JSON-like value (keys included), deduplicated. */
export function detectInjectionInValue(value: unknown): string[] {
  const found = new Set<string>();
  let budget = MAX_SCANNED_CHARACTERS * 5;
  const visit = (node: unknown, depth: number): void => {
    if (budget <= 0 || depth > 20) return;
    if (typeof node === 'string') {
      budget -= node.length;
      // Data URLs are base64, where these phrases cannot appear.
      if (node.startsWith('data:') && node.includes(';base64,')) return;
      for (const name of detectInjection(node)) found.add(name);
    } else if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, item] of Object.entries(node)) {
        visit(key, depth + 1);
        visit(item, depth + 1);
      }
    }
  };
  visit(value, 0);
  return INJECTION_PATTERNS.map(({ name }) => name).filter((name) => found.has(name));
}
