// A valid input for every write tool, for tests that check each one is refused (or runs).
// fetch_image needs a url of the test's own upstream: callers add it.
export const WRITE_TOOL_INPUTS: Record<string, Record<string, unknown>> = {
  fetch_image: { path: 'images/a.png' },
  set_colors: { primary: '#112233', background: '#ffffff', text: '#000000' },
  set_fonts: { heading: 'Georgia, serif', body: 'Inter' },
  write_file: { path: 'late.html', content: '<p>late</p>' },
  delete_file: { path: 'index.html' },
  deploy: {},
  regen_og: { title: 'Bakery' },
  set_meta: { title: 'Bakery', description: 'Fresh bread' },
  publish: { deploy_id: 'dep_0123456789abcdef' },
};
