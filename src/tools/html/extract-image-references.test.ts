import { describe, expect, it } from 'vitest';
import { cssImageUrls, extractHtmlImageReferences, srcsetUrls } from './extract-image-references.js';

describe('extractHtmlImageReferences', () => {
  it('finds img, srcset, source, icons, style blocks and style attributes', () => {
    const html = `<!doctype html><html><head>
      <link rel="stylesheet" href="site.css"><link rel="shortcut icon" href="favicon.ico">
      <link rel=apple-touch-icon href=touch.png>
      <style>.hero{background:url("images/hero.jpg")} @font-face{src:url(fonts/a.woff2)} .x{fill:url(#grad)}</style>
      </head><body>
      <IMG SRC='logo.png' alt="x > y"><img src="a&amp;b.png" srcset="small.png 1x, large.png 2x">
      <picture><source srcset="wide.webp 1200w,narrow.webp 600w"><img src="fallback.jpg"></picture>
      <div style="background-image: url('bg.png')"></div>
      <!-- <img src="commented.png"> -->
      <script>document.write('<img src="scripted.png">')</script>
      </body></html>`;
    expect(extractHtmlImageReferences(html)).toEqual([
      { kind: 'icon', src: 'favicon.ico' },
      { kind: 'icon', src: 'touch.png' },
      { kind: 'img', src: 'logo.png' },
      { kind: 'img', src: 'a&b.png' },
      { kind: 'img', src: 'small.png' },
      { kind: 'img', src: 'large.png' },
      { kind: 'source', src: 'wide.webp' },
      { kind: 'source', src: 'narrow.webp' },
      { kind: 'img', src: 'fallback.jpg' },
      { kind: 'css', src: 'images/hero.jpg' },
      { kind: 'css', src: 'bg.png' },
    ]);
  });

  it('parses srcset and CSS urls', () => {
    expect(srcsetUrls(' a.png  1x ,b.png 2x ')).toEqual(['a.png', 'b.png']);
    expect(cssImageUrls('a{background:url( x.png )} b{background:url(\'y.svg\')} @font-face{src:url("f.ttf?v=1")}')).toEqual([
      'x.png',
      'y.svg',
    ]);
  });
});
