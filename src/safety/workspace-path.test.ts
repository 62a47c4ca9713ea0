import { describe, expect, it } from 'vitest';
import { ToolError } from '../domain/tool-error.js';
import { normalizeWorkspacePath } from './workspace-path.js';

function rejectionOf(path: string): ToolError {
  try {
    normalizeWorkspacePath(path);
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(path)}`);
}

const evilPaths: Array<[string, RegExp]> = [
  ['', /empty/],
  ['a'.repeat(201), /longer than 200/],
  ['/etc/passwd', /absolute/],
  ['/index.html', /absolute/],
  ['C:\\Windows\\system32', /backslash/],
  ['C:/Windows/win.ini', /drive letter/],
  ['c:foo', /drive letter/],
  ['..\\..\\secret', /backslash/],
  ['css\\site.css', /backslash/],
  ['index.html\u0000.png', /control character/],
  ['index\n.html', /control character/],
  ['index\r.html', /control character/],
  ['tab\there.html', /control character/],
  ['del\u007f.html', /control character/],
  ['c1\u0085.html', /control character/],
  ['..', /"\.\." segment/],
  ['../secret', /"\.\." segment/],
  ['../../../../etc/passwd', /"\.\." segment/],
  ['css/../../secret', /"\.\." segment/],
  ['images/..', /"\.\." segment/],
  ['.', /"\." segment/],
  ['./index.html', /"\." segment/],
  ['css/./site.css', /"\." segment/],
  ['a//b', /empty segment/],
  ['css/', /empty segment/],
  [' index.html', /whitespace/],
  ['index.html ', /whitespace/],
  ['css/ site.css', /whitespace/],
  ['.env', /hidden/],
  ['.git/config', /hidden/],
  ['css/.htaccess', /hidden/],
  ['...', /hidden/],
  ['%2e%2e/secret', /percent-encoding/],
  ['%2E%2E%2Fsecret', /percent-encoding/],
  ['css%2f..%2fsecret', /percent-encoding/],
  ['..%c0%afsecret', /percent-encoding/],
  ['index%00.html', /percent-encoding/],
  ['file:///etc/passwd', /URL/],
  ['file:index.html', /URL/],
  ['http://evil.example/x', /URL/],
  ['javascript:alert(1)', /URL/],
  ['a/b/c/d/e/f/g/h/i.html', /deeper than 8/],
  ['\uff0e\uff0e/secret', /ASCII letters/],
  ['index\u202egnp.html', /ASCII letters/],
  ['~/secrets', /ASCII letters/],
  ['page?.html', /ASCII letters/],
  ['a:b', /drive letter/],
  ['mailto:x@example.com', /URL/],
  ['images/logo.png:stream', /ASCII letters/],
  ['about us.html', /ASCII letters/],
];

describe('normalizeWorkspacePath', () => {
  it.each(evilPaths)('rejects %j', (path, reason) => {
    const error = rejectionOf(path);
    expect(error.code).toBe('path_invalid');
    expect(error.message).toMatch(reason);
  });

  it('covers at least 25 hostile paths', () => {
    expect(evilPaths.length).toBeGreaterThanOrEqual(25);
  });

  it.each([
    'index.html',
    'about.html',
    'css/site.css',
    'images/hero-1.png',
    'js/app.min.js',
    'a/b/c/d/e/f/g/h.html',
    'file.name.with.dots.txt',
    'UPPER_case-Name.SVG',
    'x'.repeat(200),
  ])('accepts %j unchanged', (path) => {
    expect(normalizeWorkspacePath(path)).toBe(path);
  });
});
