import { describe, expect, it } from 'vitest';
import { svgDocumentProblem } from './parse-svg-document.js';

describe('svgDocumentProblem', () => {
  it.each([
    '<svg xmlns="http://www.w3.org/2000/svg"/>',
    '<?xml version="1.0"?>\n<!-- logo -->\n<!DOCTYPE svg>\n<svg width="1"><g><rect width="1" title="a > b"/></g><![CDATA[x]]></svg>\n',
    '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"></svg:svg>',
  ])('accepts %j', (text) => {
    expect(svgDocumentProblem(text)).toBeNull();
  });

  it.each([
    ['', 'no <svg> root element'],
    ['<html><body></body></html>', 'the root element is <html>, not <svg>'],
    ['<svg><rect', 'an unterminated tag (truncated?)'],
    ['<svg><g></svg>', '</svg> closes <g>'],
    ['<svg></svg><svg></svg>', 'more than one root element'],
    ['Service unavailable', 'text outside the <svg> root element'],
    ['<svg><g>', '<g> is never closed (truncated?)'],
  ])('refuses %j: %s', (text, problem) => {
    expect(svgDocumentProblem(text)).toBe(problem);
  });
});
