import { describe, expect, it } from 'vitest';
import { resolveSitePath } from './site-path.js';

describe('resolveSitePath', () => {
  it('maps directories to index.html and keeps canonical paths', () => {
    expect(resolveSitePath('')).toBe('index.html');
    expect(resolveSitePath('about/')).toBe('about/index.html');
    expect(resolveSitePath('css/site.css')).toBe('css/site.css');
  });

  it('refuses anything that is not a canonical workspace path', () => {
    for (const path of ['..', '../x', 'a/../b', './a', '.env', 'a//b', 'a\\b', '%2e%2e/x', 'a%2fb', '/etc/passwd', 'a\u0000b', 'C:/x', 'a b']) {
      expect(resolveSitePath(path), JSON.stringify(path)).toBeNull();
    }
  });
});
