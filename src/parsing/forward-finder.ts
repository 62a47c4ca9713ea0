// indexOf for scanners that only move forward, shared by the extractors so a needle that never
// occurs is not searched for again at every opening marker (which would be quadratic).

/**
 * indexOf for callers whose `from` never decreases: the last answer per needle is remembered, so
 * across all calls each needle's search passes over the text once.
 */
export function createForwardFinder(text: string): (needle: string, from: number) => number {
  const lastAnswers = new Map<string, { from: number; found: number }>();
  return (needle, from) => {
    const last = lastAnswers.get(needle);
    if (last && last.from <= from && (last.found < 0 || last.found >= from)) return last.found;
    const found = text.indexOf(needle, from);
    lastAnswers.set(needle, { from, found });
    return found;
  };
}
