// The `broken` and `unchecked` lists of check_broken_images, bounded. Their entries quote what the
// model wrote (an <img src> can be hundreds of kilobytes), so an unbounded list lets one page make
// the tool's output invalid (tool_output_too_large) at will — and an invalid output counts against
// the kill switch. Each field is cut to a few hundred characters, saying how much was cut; each
// list keeps at most MAX_LISTED_PROBLEMS entries and MAX_LIST_JSON_CHARACTERS of JSON (escapes
// included), and the output says how many entries were left out.

export interface ImageProblem {
  page: string;
  src: string;
  reason: string;
}

/** Entries one list keeps. */
export const MAX_LISTED_PROBLEMS = 50;
/** Characters of a page, src or reason an entry keeps (the cut is said after them). */
export const MAX_PROBLEM_FIELD_CHARACTERS = 300;
/** JSON characters one list may take: both lists stay far below the default output cap of
 * 200,000 (src/domain/tool-output-contract.ts) whatever the fields hold. */
export const MAX_LIST_JSON_CHARACTERS = 60_000;
/** The longest a field can be after its cut: the kept characters and the `…[+N characters]` note. */
export const MAX_LISTED_FIELD_LENGTH = MAX_PROBLEM_FIELD_CHARACTERS + 32;

/** `text`, or its first MAX_PROBLEM_FIELD_CHARACTERS characters and how many were cut. */
export function cutField(text: string): string {
  if (text.length <= MAX_PROBLEM_FIELD_CHARACTERS) return text;
  let kept = MAX_PROBLEM_FIELD_CHARACTERS;
  // Never split a surrogate pair.
  const last = text.charCodeAt(kept - 1);
  if (last >= 0xd800 && last <= 0xdbff) kept -= 1;
  return `${text.slice(0, kept)}…[+${text.length - kept} characters]`;
}

/** The entries a list keeps (fields cut) and how many it left out. */
export function listProblems(problems: readonly ImageProblem[]): { listed: ImageProblem[]; omitted: number } {
  const listed: ImageProblem[] = [];
  // "[]" plus a comma between entries.
  let characters = 2;
  for (const problem of problems) {
    if (listed.length >= MAX_LISTED_PROBLEMS) break;
    const entry = { page: cutField(problem.page), src: cutField(problem.src), reason: cutField(problem.reason) };
    const size = JSON.stringify(entry).length + (listed.length > 0 ? 1 : 0);
    if (characters + size > MAX_LIST_JSON_CHARACTERS) break;
    characters += size;
    listed.push(entry);
  }
  return { listed, omitted: problems.length - listed.length };
}
