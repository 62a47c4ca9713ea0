// The run console's app: the session decides between the sign-in and the pages, and the URL's
// hash picks the page (#/ the runs, with its filters as a query, #/?prompt=…&status=…; #/new a new
// build; #/runs/<id> one run; #/admin the fleet for admin keys; #/overview the fleet overview, where
// an admin lands when the URL has no hash), so the server serves one page and
// a link to a run, or to a filtered list, survives a reload.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { onSignedOut, requestConsole } from './console-client.js';
import { SignInPage } from './sign-in-page.js';
import { RunsPage } from './runs-page.js';
import { RunPage } from './run-page.js';
import { NewRunPage } from './new-run-page.js';
import { AdminPage } from './admin-page.js';
import { OverviewPage } from './overview-page.js';
import { RUN_ID_PATTERN } from '../../src/domain/ids.js';

/** The page the hash names. */
function routeOf(hash) {
  const run = /^#\/runs\/(.+)$/.exec(hash);
  if (run && RUN_ID_PATTERN.test(run[1])) return { page: 'run', runId: run[1] };
  if (hash === '#/new') return { page: 'new' };
  if (hash === '#/admin') return { page: 'admin' };
  // The fleet overview, its range and tenant as a query (overview-page.js); with no hash at all
  // the console lands on it for an admin key and on the runs list for others.
  if (hash === '#/overview' || hash.startsWith('#/overview?')) return { page: 'overview', query: hash.slice('#/overview?'.length) };
  if (hash === '' || hash === '#') return { page: 'landing', query: '' };
  // The runs list's filters ride in the hash (runs-filters.js): the server never sees them.
  const query = hash.startsWith('#/?') ? hash.slice('#/?'.length) : '';
  return { page: 'runs', query };
}

function useRoute() {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const update = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

function App() {
  // undefined: not known yet; null: signed out; else what /session says about it.
  const [session, setSession] = useState(undefined);
  const route = useRoute();
  useEffect(() => {
    onSignedOut(() => setSession(null));
    requestConsole('/session').then(setSession, () => setSession(null));
  }, []);

  if (session === undefined) return html`<p class="loading">Loading the console…</p>`;
  if (session === null) return html`<${SignInPage} onSignedIn=${setSession} />`;

  // Only an admin key is shown the fleet; the API refuses the admin routes to others anyway, so
  // this hides what would fail rather than guarding anything.
  const isAdmin = session.scopes.includes('admin');
  const page = route.page === 'landing' ? (isAdmin ? 'overview' : 'runs') : route.page;
  const signOut = async () => {
    await requestConsole('/session', { method: 'DELETE' }).catch(() => null);
    setSession(null);
  };
  return html`
    <header class="top">
      <a class="brand" href="#/">buildfleet console</a>
      <nav>
        <a href="#/overview" class=${page === 'overview' ? 'current' : ''}>Overview</a>
        <a href="#/" class=${page === 'runs' ? 'current' : ''}>Runs</a>
        <a href="#/new" class=${route.page === 'new' ? 'current' : ''}>New build</a>
        ${isAdmin && html`<a href="#/admin" class=${route.page === 'admin' ? 'current' : ''}>Admin</a>`}
      </nav>
      <span class="who" data-testid="who">tenant <b>${session.tenant}</b> · ${session.scopes.join(', ')}</span>
      <button type="button" class="link" onClick=${signOut}>Sign out</button>
    </header>
    <main>
      ${page === 'overview' && html`<${OverviewPage} key=${route.query} query=${route.query} isAdmin=${isAdmin} tenant=${session.tenant} />`}
      ${page === 'runs' && html`<${RunsPage} key=${route.query} query=${route.query} isAdmin=${isAdmin} tenant=${session.tenant} />`}
      ${route.page === 'new' && html`<${NewRunPage} />`}
      ${route.page === 'run' && html`<${RunPage} key=${route.runId} runId=${route.runId} session=${session} />`}
      ${route.page === 'admin' && (isAdmin ? html`<${AdminPage} />` : html`<p class="error" role="alert" data-testid="admin-only">The fleet view needs a key with the admin scope.</p>`)}
    </main>
  `;
}

render(html`<${App} />`, document.getElementById('console'));
