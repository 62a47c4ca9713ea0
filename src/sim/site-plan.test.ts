import { describe, expect, it } from 'vitest';
import { siteTitleFromBrief } from './site-plan.js';

describe('the simulated builder’s site title', () => {
  it.each([
    ['Build a site for Luna Bakery.', 'Luna Bakery'],
    ['Build a small website for "Harbor Lights Bakery": a home page with opening hours, an about page, and a simple stylesheet.', 'Harbor Lights Bakery'],
    ['Build a landing page for Harbor Bakery number 3, with an about page.', 'Harbor Bakery number 3'],
    ['a bakery landing page', 'Bakery'],
    ['Make me a simple florist website with a contact form', 'Florist'],
    ['A site called Ember & Oak', 'Ember and Oak'],
    ['Build a small bakery site for a bakery called Crumbs', 'Crumbs'],
    ['hello', 'My Site'],
  ])('%s → %s', (brief, title) => {
    expect(siteTitleFromBrief({ brief })).toBe(title);
  });
});
