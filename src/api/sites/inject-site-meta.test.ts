import { describe, expect, it } from 'vitest';
import { injectSiteMeta } from './inject-site-meta.js';

const meta = { title: 'A & "B" <C>', description: "It's <great> & cheap" };
const ogImageUrl = 'https://x.test/sites/run_abc/og-image.svg';

describe('injectSiteMeta', () => {
  it('inserts escaped tags before </head>, with a title when there is none', () => {
    const html = injectSiteMeta({ html: '<html><HEAD><meta charset="utf-8"></HEAD><body></body></html>', meta, ogImageUrl });
    expect(html).toBe(
      '<html><HEAD><meta charset="utf-8"><title>A &amp; "B" &lt;C&gt;</title>\n' +
        '<meta name="description" content="It&#39;s &lt;great&gt; &amp; cheap">\n' +
        '<meta property="og:title" content="A &amp; &quot;B&quot; &lt;C&gt;">\n' +
        '<meta property="og:description" content="It&#39;s &lt;great&gt; &amp; cheap">\n' +
        `<meta property="og:image" content="${ogImageUrl}">\n</HEAD><body></body></html>`,
    );
  });

  it('keeps tags the page already has', () => {
    const page = '<head><title>Mine</title><meta property="og:image" content="/mine.png"><meta name=description content=x></head>';
    const html = injectSiteMeta({ html: page, meta, ogImageUrl });
    expect(html.match(/<title>/g)).toHaveLength(1);
    expect(html).not.toContain(ogImageUrl);
    expect(html.match(/name=.?description/g)).toHaveLength(1);
    expect(html).toContain('og:title');
  });

  it('handles pages without a head element', () => {
    expect(injectSiteMeta({ html: '<!DOCTYPE html><p>Hi</p>', meta, ogImageUrl })).toMatch(/^<!DOCTYPE html>\n<title>.*<p>Hi<\/p>$/s);
    expect(injectSiteMeta({ html: '<p>Hi</p>', meta, ogImageUrl })).toMatch(/^<title>.*\n<p>Hi<\/p>$/s);
  });
});
