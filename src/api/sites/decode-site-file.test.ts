import { describe, expect, it } from 'vitest';
import { decodeSiteFile } from './decode-site-file.js';

describe('decodeSiteFile', () => {
  it('decodes data URLs to bytes with their type', () => {
    const bytes = Buffer.from([0, 1, 2, 250]);
    const file = decodeSiteFile({ path: 'images/a.png', content: `data:image/webp;base64,${bytes.toString('base64')}` });
    expect(file.contentType).toBe('image/webp');
    expect(file.body.equals(bytes)).toBe(true);
  });

  it('types text files by extension, unknown ones as octet-stream', () => {
    expect(decodeSiteFile({ path: 'a/b.CSS', content: 'x' }).contentType).toBe('text/css; charset=utf-8');
    expect(decodeSiteFile({ path: 'favicon.ico', content: 'x' }).contentType).toBe('image/x-icon');
    expect(decodeSiteFile({ path: 'README', content: 'x' }).contentType).toBe('application/octet-stream');
    expect(decodeSiteFile({ path: 'index.html', content: 'data:text/html,<b>' }).contentType).toBe('text/html; charset=utf-8');
  });
});
