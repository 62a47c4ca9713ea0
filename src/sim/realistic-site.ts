// The site a production model writes for a brief: full pages with several sections and a complete
// stylesheet, thousands of tokens per file (index.html ~3.5k, styles.css ~2.5k, about.html ~1.5k
// output tokens; ~7-8k for the whole write_file turn, as the issue measured real answers). Every
// word is picked deterministically from (seed, title), so a replayed conversation writes the same
// bytes. Only logo.svg is referenced as an image: check_broken_images must pass on the deploy.
import { deterministicFraction } from './deterministic-random.js';

export interface RealisticSiteFile {
  path: string;
  content: string;
}

const ADJECTIVES = ['friendly', 'seasonal', 'handmade', 'local', 'careful', 'honest', 'small-batch', 'thoughtful', 'reliable', 'welcoming'];
const NOUNS = ['craft', 'neighbourhood', 'community', 'workshop', 'kitchen', 'studio', 'team', 'tradition', 'routine', 'promise'];
const VERBS = ['prepare', 'design', 'deliver', 'refine', 'test', 'source', 'plan', 'share', 'review', 'improve'];
const FEATURE_TITLES = [
  'Made fresh every morning',
  'Sourced from people we know',
  'Booked in two minutes',
  'Built around your schedule',
  'Priced without surprises',
  'Backed by a simple guarantee',
  'Open late on Fridays',
  'Friendly to every diet',
  'Delivered across town',
  'Kept simple on purpose',
];
const PEOPLE = ['Amara Okafor', 'Jonas Lindqvist', 'Priya Raman', 'Mateo Alvarez', 'Hannah Becker', 'Kenji Watanabe', 'Sofia Rossi', 'Liam O\u2019Brien'];
const QUESTIONS = [
  'How do I place an order?',
  'Do you offer gift cards?',
  'Can I change a booking?',
  'Which areas do you deliver to?',
  'Do you cater for allergies?',
  'Can we visit for a group?',
  'How do I reach the team quickly?',
  'Do you work with businesses?',
];

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Picks from pools by hashing (seed, title, a running counter): deterministic, evenly spread. */
class WordPicker {
  #counter = 0;
  constructor(
    private readonly seed: number,
    private readonly title: string,
  ) {}

  pick<Item>(pool: readonly Item[]): Item {
    this.#counter += 1;
    const index = Math.floor(deterministicFraction({ parts: [this.seed, this.title, this.#counter] }) * pool.length);
    return pool[index] as Item;
  }

  sentence(): string {
    const adjective = this.pick(ADJECTIVES);
    const noun = this.pick(NOUNS);
    const verb = this.pick(VERBS);
    const forms = [
      `We ${verb} everything with a ${adjective} ${noun} in mind, so each visit feels like the last one went well.`,
      `Our ${adjective} ${noun} means we ${verb} each detail before it ever reaches you.`,
      `Every week we ${verb} something new, and the ${noun} decides what stays on.`,
      `A ${adjective} approach lets us ${verb} quickly without losing what makes ${this.title} ours.`,
      `Ask anyone in the ${noun}: we ${verb} with care, and we answer every message within a day.`,
    ];
    return this.pick(forms);
  }

  paragraph(sentences: number): string {
    return Array.from({ length: sentences }, () => this.sentence()).join(' ');
  }
}

function pageHead(title: string, description: string): string[] {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '  <meta charset="utf-8">',
    '  <meta name="viewport" content="width=device-width, initial-scale=1">',
    `  <title>${escapeHtml(title)}</title>`,
    `  <meta name="description" content="${escapeHtml(description)}">`,
    '  <link rel="stylesheet" href="styles.css">',
    '</head>',
    '<body>',
    '  <a class="skip-link" href="#main">Skip to content</a>',
    '  <header class="site-header">',
    '    <div class="container header-inner">',
    `      <a class="brand" href="index.html"><img src="logo.svg" alt="${escapeHtml(title)} logo" width="48" height="48"><span>${escapeHtml(title)}</span></a>`,
    '      <nav class="site-nav" aria-label="Main">',
    '        <ul>',
    '          <li><a href="index.html">Home</a></li>',
    '          <li><a href="about.html">About</a></li>',
    '          <li><a href="index.html#services">Services</a></li>',
    '          <li><a href="index.html#faq">FAQ</a></li>',
    '          <li><a class="button button-small" href="index.html#contact">Contact</a></li>',
    '        </ul>',
    '      </nav>',
    '    </div>',
    '  </header>',
  ];
}

function pageFoot(title: string, words: WordPicker): string[] {
  return [
    '  <footer class="site-footer">',
    '    <div class="container footer-grid">',
    '      <section>',
    `        <h2 class="footer-title">${escapeHtml(title)}</h2>`,
    `        <p>${escapeHtml(words.paragraph(2))}</p>`,
    '      </section>',
    '      <section>',
    '        <h2 class="footer-title">Visit</h2>',
    '        <address>12 Market Street<br>Open Tuesday to Sunday, 8:00 to 18:00</address>',
    '      </section>',
    '      <section>',
    '        <h2 class="footer-title">Explore</h2>',
    '        <ul class="footer-links">',
    '          <li><a href="index.html">Home</a></li>',
    '          <li><a href="about.html">About us</a></li>',
    '          <li><a href="index.html#faq">Questions</a></li>',
    '        </ul>',
    '      </section>',
    '    </div>',
    `    <p class="container legal">&copy; ${escapeHtml(title)}. All rights reserved.</p>`,
    '  </footer>',
    '</body>',
    '</html>',
    '',
  ];
}

function indexPage(title: string, words: WordPicker): string {
  const lines = [...pageHead(title, `${title}: ${words.sentence()}`), '  <main id="main">'];
  lines.push(
    '    <section class="hero">',
    '      <div class="container hero-inner">',
    `        <p class="eyebrow">${escapeHtml(words.pick(FEATURE_TITLES))}</p>`,
    `        <h1>${escapeHtml(title)}</h1>`,
    `        <p class="lead">${escapeHtml(words.paragraph(3))}</p>`,
    '        <p class="hero-actions"><a class="button" href="#contact">Get in touch</a> <a class="button button-ghost" href="about.html">Our story</a></p>',
    '      </div>',
    '    </section>',
    '    <section class="features" aria-labelledby="features-title">',
    '      <div class="container">',
    '        <h2 id="features-title">Why people choose us</h2>',
    `        <p class="section-intro">${escapeHtml(words.paragraph(2))}</p>`,
    '        <div class="card-grid">',
  );
  for (let index = 0; index < 6; index += 1) {
    lines.push(
      '          <article class="card">',
      `            <h3>${escapeHtml(words.pick(FEATURE_TITLES))}</h3>`,
      `            <p>${escapeHtml(words.paragraph(3))}</p>`,
      '          </article>',
    );
  }
  lines.push('        </div>', '      </div>', '    </section>');
  lines.push(
    '    <section id="services" class="services" aria-labelledby="services-title">',
    '      <div class="container">',
    '        <h2 id="services-title">What we offer</h2>',
    `        <p class="section-intro">${escapeHtml(words.paragraph(2))}</p>`,
    '        <ul class="service-list">',
  );
  for (let index = 0; index < 8; index += 1) {
    const price = 4 + Math.floor(deterministicFraction({ parts: [title, 'price', index] }) * 40);
    lines.push(
      '          <li class="service">',
      `            <div class="service-head"><h3>${escapeHtml(words.pick(FEATURE_TITLES))}</h3><span class="price">from $${price}</span></div>`,
      `            <p>${escapeHtml(words.paragraph(2))}</p>`,
      '          </li>',
    );
  }
  lines.push('        </ul>', '      </div>', '    </section>');
  lines.push(
    '    <section class="testimonials" aria-labelledby="testimonials-title">',
    '      <div class="container">',
    '        <h2 id="testimonials-title">What our neighbours say</h2>',
    '        <div class="quote-grid">',
  );
  for (let index = 0; index < 4; index += 1) {
    lines.push(
      '          <figure class="quote">',
      `            <blockquote><p>${escapeHtml(words.paragraph(2))}</p></blockquote>`,
      `            <figcaption>${escapeHtml(words.pick(PEOPLE))}</figcaption>`,
      '          </figure>',
    );
  }
  lines.push('        </div>', '      </div>', '    </section>');
  lines.push(
    '    <section id="faq" class="faq" aria-labelledby="faq-title">',
    '      <div class="container">',
    '        <h2 id="faq-title">Questions, answered</h2>',
  );
  for (const question of QUESTIONS.slice(0, 6)) {
    lines.push(
      '        <details>',
      `          <summary>${escapeHtml(question)}</summary>`,
      `          <p>${escapeHtml(words.paragraph(2))}</p>`,
      '        </details>',
    );
  }
  lines.push('      </div>', '    </section>');
  lines.push(
    '    <section id="contact" class="contact" aria-labelledby="contact-title">',
    '      <div class="container contact-grid">',
    '        <div>',
    '          <h2 id="contact-title">Say hello</h2>',
    `          <p>${escapeHtml(words.paragraph(3))}</p>`,
    '        </div>',
    '        <form class="contact-form" action="#" method="post">',
    '          <label for="name">Name</label>',
    '          <input id="name" name="name" type="text" autocomplete="name" required>',
    '          <label for="email">Email</label>',
    '          <input id="email" name="email" type="email" autocomplete="email" required>',
    '          <label for="message">Message</label>',
    '          <textarea id="message" name="message" rows="5" required></textarea>',
    '          <button class="button" type="submit">Send message</button>',
    '        </form>',
    '      </div>',
    '    </section>',
    '  </main>',
  );
  return [...lines, ...pageFoot(title, words)].join('\n');
}

function aboutPage(title: string, words: WordPicker): string {
  const lines = [...pageHead(`About ${title}`, `The story of ${title}.`), '  <main id="main">'];
  lines.push(
    '    <section class="page-hero">',
    '      <div class="container">',
    `        <h1>About ${escapeHtml(title)}</h1>`,
    `        <p class="lead">${escapeHtml(words.paragraph(3))}</p>`,
    '      </div>',
    '    </section>',
    '    <section class="story">',
    '      <div class="container prose">',
    '        <h2>How it started</h2>',
    `        <p>${escapeHtml(words.paragraph(4))}</p>`,
    `        <p>${escapeHtml(words.paragraph(3))}</p>`,
    '        <h2>What we believe</h2>',
    '        <ul>',
  );
  for (let index = 0; index < 4; index += 1) lines.push(`          <li>${escapeHtml(words.sentence())}</li>`);
  lines.push('        </ul>', '        <h2>The people</h2>', '        <div class="team-grid">');
  for (let index = 0; index < 3; index += 1) {
    lines.push(
      '          <article class="person">',
      `            <h3>${escapeHtml(words.pick(PEOPLE))}</h3>`,
      `            <p>${escapeHtml(words.paragraph(2))}</p>`,
      '          </article>',
    );
  }
  lines.push('        </div>', '      </div>', '    </section>', '  </main>');
  return [...lines, ...pageFoot(title, words)].join('\n');
}

function stylesheet(palette: { primary: string; background: string; text: string; accent: string }, fonts: { heading: string; body: string }): string {
  const rules: string[] = [
    `:root {\n  --primary: ${palette.primary};\n  --background: ${palette.background};\n  --text: ` +
      `${palette.text};\n  --accent: ${palette.accent};\n  --muted: #5b6470;\n  --surface: #f6f8fa;\n ` +
      ` --border: #d8dee4;\n  --radius: 12px;\n  --shadow: 0 1px 2px rgba(27, 31, 36, 0.08), 0 8px ` +
      `24px rgba(27, 31, 36, 0.06);\n  --space-1: 0.25rem;\n  --space-2: 0.5rem;\n  --space-3: 1rem;\n ` +
      ` --space-4: 1.5rem;\n  --space-5: 2.5rem;\n  --space-6: 4rem;\n  --max-width: 72rem;\n}`,
    '*, *::before, *::after {\n  box-sizing: border-box;\n}',
    `html {\n  scroll-behavior: smooth;\n  -webkit-text-size-adjust: 100%;\n}`,
    `body {\n  margin: 0;\n  background: var(--background);\n  color: ` +
      `var(--text);\n  font-family: '${fonts.body}', system-ui, -apple-system, ` +
      `'Segoe UI', sans-serif;\n  font-size: 1.0625rem;\n  line-height: 1.6;\n}`,
    `h1, h2, h3 {\n  font-family: '${fonts.heading}', system-ui, sans-serif;\n  line-height: 1.2;\n  margin: 0 0 var(--space-3);\n  color: var(--text);\n}`,
    'h1 {\n  font-size: clamp(2.25rem, 5vw, 3.5rem);\n  letter-spacing: -0.02em;\n}',
    'h2 {\n  font-size: clamp(1.6rem, 3vw, 2.25rem);\n}',
    'h3 {\n  font-size: 1.2rem;\n}',
    'p {\n  margin: 0 0 var(--space-3);\n}',
    'a {\n  color: var(--primary);\n  text-underline-offset: 0.2em;\n}',
    'a:hover {\n  color: var(--accent);\n}',
    'a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible, ' +
      'summary:focus-visible {\n  outline: 3px solid var(--accent);\n  outline-offset: 2px;\n}',
    'img {\n  max-width: 100%;\n  height: auto;\n  display: block;\n}',
    '.container {\n  width: 100%;\n  max-width: var(--max-width);\n  margin: 0 auto;\n  padding: 0 var(--space-4);\n}',
    '.skip-link {\n  position: absolute;\n  left: -999px;\n  top: var(--space-2);\n ' +
      ' background: var(--text);\n  color: var(--background);\n  padding: var(--space-2) ' +
      'var(--space-3);\n  border-radius: var(--radius);\n  z-index: 10;\n}',
    '.skip-link:focus {\n  left: var(--space-2);\n}',
    '.site-header {\n  position: sticky;\n  top: 0;\n  background: rgba(255, 255, 255, 0.92);\n ' +
      ' backdrop-filter: blur(8px);\n  border-bottom: 1px solid var(--border);\n  z-index: 5;\n}',
    '.header-inner {\n  display: flex;\n  align-items: center;\n  justify-content: space-between;\n  gap: var(--space-3);\n  min-height: 4.5rem;\n}',
    '.brand {\n  display: inline-flex;\n  align-items: center;\n  gap: var(--space-2);\n ' +
      ' font-weight: 700;\n  color: var(--text);\n  text-decoration: none;\n}',
    '.site-nav ul {\n  display: flex;\n  flex-wrap: wrap;\n  align-items: center;\n  gap: var(--space-3);\n  list-style: none;\n  margin: 0;\n  padding: 0;\n}',
    '.site-nav a {\n  text-decoration: none;\n  font-weight: 600;\n}',
    '.button {\n  display: inline-block;\n  background: var(--primary);\n  color: ' +
      'var(--background);\n  border: 2px solid var(--primary);\n  border-radius: 999px;\n ' +
      ' padding: 0.7rem 1.4rem;\n  font-weight: 700;\n  text-decoration: none;\n  cursor: ' +
      'pointer;\n  transition: background 0.2s ease, color 0.2s ease, transform 0.2s ease;\n}',
    '.button:hover {\n  background: var(--accent);\n  border-color: var(--accent);\n  color: var(--background);\n  transform: translateY(-1px);\n}',
    '.button-ghost {\n  background: transparent;\n  color: var(--primary);\n}',
    '.button-small {\n  padding: 0.4rem 0.9rem;\n  font-size: 0.95rem;\n  color: var(--background);\n}',
    '.hero {\n  padding: var(--space-6) 0;\n  background: linear-gradient(135deg, var(--surface), var(--background) 60%);\n}',
    '.hero-inner {\n  max-width: 48rem;\n}',
    '.eyebrow {\n  text-transform: uppercase;\n  letter-spacing: 0.12em;\n  font-size: 0.85rem;\n  font-weight: 700;\n  color: var(--accent);\n}',
    '.lead {\n  font-size: 1.25rem;\n  color: var(--muted);\n}',
    '.hero-actions {\n  display: flex;\n  flex-wrap: wrap;\n  gap: var(--space-3);\n  margin-top: var(--space-4);\n}',
    'section {\n  padding: var(--space-6) 0;\n}',
    '.section-intro {\n  max-width: 44rem;\n  color: var(--muted);\n  margin-bottom: var(--space-5);\n}',
    '.card-grid, .quote-grid, .team-grid {\n  display: grid;\n  gap: var(--space-4);\n  grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr));\n}',
    '.card, .quote, .person {\n  background: var(--background);\n  border: 1px solid var(--border);\n ' +
      ' border-radius: var(--radius);\n  padding: var(--space-4);\n  box-shadow: var(--shadow);\n}',
    '.card h3 {\n  color: var(--primary);\n}',
    '.services {\n  background: var(--surface);\n}',
    '.service-list {\n  list-style: none;\n  margin: 0;\n  padding: 0;\n  display: grid;\n  ' +
      'gap: var(--space-3);\n  grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr));\n}',
    '.service {\n  background: var(--background);\n  border-radius: var(--radius);\n  padding: var(--space-4);\n  border-left: 4px solid var(--accent);\n}',
    '.service-head {\n  display: flex;\n  justify-content: space-between;\n  align-items: baseline;\n  gap: var(--space-2);\n}',
    '.price {\n  font-weight: 700;\n  color: var(--accent);\n  white-space: nowrap;\n}',
    '.quote blockquote {\n  margin: 0 0 var(--space-3);\n  font-style: italic;\n}',
    '.quote figcaption {\n  font-weight: 700;\n  color: var(--muted);\n}',
    '.quote figcaption::before {\n  content: "\\2014\\00a0";\n}',
    '.faq details {\n  border-bottom: 1px solid var(--border);\n  padding: var(--space-3) 0;\n}',
    '.faq summary {\n  cursor: pointer;\n  font-weight: 700;\n  list-style: none;\n}',
    '.faq summary::after {\n  content: "+";\n  float: right;\n  color: var(--accent);\n}',
    '.faq details[open] summary::after {\n  content: "\\2212";\n}',
    '.contact-grid {\n  display: grid;\n  gap: var(--space-5);\n  grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr));\n}',
    '.contact-form {\n  display: grid;\n  gap: var(--space-2);\n}',
    '.contact-form input, .contact-form textarea {\n  width: 100%;\n  font: inherit;\n ' +
      ' padding: 0.7rem 0.9rem;\n  border: 1px solid var(--border);\n  border-radius: ' +
      'var(--radius);\n  background: var(--background);\n  color: var(--text);\n}',
    '.contact-form label {\n  font-weight: 600;\n}',
    '.page-hero {\n  background: var(--surface);\n  padding: var(--space-5) 0;\n}',
    '.prose {\n  max-width: 46rem;\n}',
    '.prose ul {\n  padding-left: 1.2rem;\n}',
    '.site-footer {\n  background: var(--text);\n  color: var(--background);\n  padding: var(--space-5) 0 var(--space-3);\n}',
    '.site-footer a {\n  color: var(--background);\n}',
    '.footer-grid {\n  display: grid;\n  gap: var(--space-4);\n  grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));\n}',
    '.footer-title {\n  color: var(--background);\n  font-size: 1.1rem;\n}',
    '.footer-links {\n  list-style: none;\n  margin: 0;\n  padding: 0;\n}',
    '.legal {\n  margin-top: var(--space-4);\n  font-size: 0.9rem;\n  opacity: 0.8;\n}',
    '@media (max-width: 40rem) {\n  .header-inner {\n    flex-direction: column;\n    align-items: ' +
      'flex-start;\n    padding: var(--space-2) 0;\n  }\n  .site-nav ul {\n    gap: var(--space-2);\n  ' +
      '}\n  section {\n    padding: var(--space-5) 0;\n  }\n  .hero {\n    padding: var(--space-5) 0;\n  }\n}',
    '@media (prefers-reduced-motion: reduce) {\n  html {\n    scroll-behavior: auto;\n  }\n  .button {\n    transition: none;\n  }\n}',
    '@media print {\n  .site-header, .contact-form, .skip-link {\n    display: none;\n  }\n  body {\n    color: #000;\n    background: #fff;\n  }\n}',
  ];
  return `/* Styles for the site: tokens, layout, components, responsive rules. */\n\n${rules.join('\n\n')}\n`;
}

/** The realistic site, in the order the builder writes it. */
export function realisticSiteFiles({
  title,
  seed,
  palette,
  fonts,
}: {
  title: string;
  seed: number;
  palette: { primary: string; background: string; text: string; accent: string };
  fonts: { heading: string; body: string };
}): RealisticSiteFile[] {
  const words = new WordPicker(seed, title);
  return [
    { path: 'index.html', content: indexPage(title, words) },
    { path: 'styles.css', content: stylesheet(palette, fonts) },
    { path: 'about.html', content: aboutPage(title, words) },
    {
      path: 'logo.svg',
      content:
        `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48" role="img" aria-label="${escapeHtml(title)} logo">` +
        `<circle cx="24" cy="24" r="22" fill="${palette.primary}"/>` +
        `<circle cx="24" cy="24" r="8" fill="${palette.accent}"/></svg>\n`,
    },
  ];
}
