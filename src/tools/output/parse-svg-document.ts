// A strict, linear check that text is one well-formed SVG document: an optional XML declaration,
// comments, processing instructions and a doctype, then a single <svg> root whose tags all nest
// and close, then nothing but whitespace and comments. It is not a full XML parser (entities and
// attribute grammar are only checked for balance), but a maintenance page, a truncated file or a
// JSON error served as image/svg+xml all fail it.

const NAME = /^[A-Za-z_][\w.:-]*/;

/** null when text is a well-formed <svg> document, else what is wrong with it. */
export function svgDocumentProblem(text: string): string | null {
  const stack: string[] = [];
  let rootSeen = false;
  let rootClosed = false;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const open = text.indexOf('<', index);
    const between = open === -1 ? text.slice(index) : text.slice(index, open);
    if ((stack.length === 0 && between.trim() !== '') || (rootClosed && between.trim() !== '')) {
      return 'text outside the <svg> root element';
    }
    if (open === -1) break;
    if (text.startsWith('<!--', open)) {
      const end = text.indexOf('-->', open + 4);
      if (end === -1) return 'an unterminated comment';
      index = end + 3;
      continue;
    }
    if (text.startsWith('<![CDATA[', open)) {
      if (stack.length === 0) return 'CDATA outside the root element';
      const end = text.indexOf(']]>', open + 9);
      if (end === -1) return 'an unterminated CDATA section';
      index = end + 3;
      continue;
    }
    if (text.startsWith('<?', open)) {
      const end = text.indexOf('?>', open + 2);
      if (end === -1) return 'an unterminated processing instruction';
      index = end + 2;
      continue;
    }
    if (text.startsWith('<!', open)) {
      if (rootSeen) return 'a declaration inside the document';
      const end = text.indexOf('>', open + 2);
      if (end === -1) return 'an unterminated declaration';
      index = end + 1;
      continue;
    }
    const close = findTagEnd(text, open + 1);
    if (close === -1) return 'an unterminated tag (truncated?)';
    const tag = text.slice(open + 1, close);
    index = close + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const expected = stack.pop();
      if (expected !== name) return `</${name}> closes <${expected ?? 'nothing'}>`;
      if (stack.length === 0) rootClosed = true;
      continue;
    }
    const name = NAME.exec(tag)?.[0];
    if (!name) return 'a malformed tag';
    if (stack.length === 0) {
      if (rootSeen) return 'more than one root element';
      if (name !== 'svg' && !name.endsWith(':svg')) return `the root element is <${name}>, not <svg>`;
      rootSeen = true;
    }
    if (tag.endsWith('/')) {
      if (stack.length === 0) rootClosed = true;
    } else {
      stack.push(name);
    }
  }
  if (!rootSeen) return 'no <svg> root element';
  if (stack.length > 0) return `<${stack[stack.length - 1]}> is never closed (truncated?)`;
  return null;
}

/** The index of the `>` ending a tag that starts at `from`, skipping quoted attribute values. */
function findTagEnd(text: string, from: number): number {
  let quote = '';
  for (let index = from; index < text.length; index += 1) {
    const character = text[index];
    if (quote) {
      if (character === quote) quote = '';
    } else if (character === '"' || character === "'") {
      quote = character;
    } else if (character === '>') {
      return index;
    } else if (character === '<') {
      return -1;
    }
  }
  return -1;
}
