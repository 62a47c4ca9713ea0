// The listing's prompt filter when the fleet has no run history (no DATABASE_URL) and so no
// PostgreSQL to ask: every word of the text is a whole word of the prompt, in any case — what
// PostgreSQL's `to_tsvector('simple', prompt) @@ plainto_tsquery('simple', text)` answers for
// ordinary words (PostgreSQL's parser keeps host names, URLs and e-mail addresses whole, which this
// splits). With history, runs in Redis are matched by PostgreSQL itself
// (HistoryStore.promptsMatchText), so the two sources can never disagree.

/** Letters and digits of any script, as the text search parser splits words. */
const WORD = /[\p{L}\p{N}]+/gu;

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Whether the prompt holds every word of `text` (a text of no words matches nothing, as an empty
 * tsquery does). */
export function promptHasWords({ prompt, text }: { prompt: string; text: string }): boolean {
  const wanted = wordsOf(text);
  if (wanted.length === 0) return false;
  const present = new Set(wordsOf(prompt));
  return wanted.every((word) => present.has(word));
}
