// Sign-in: the key is read from the form once, sent to the console's server, and the form reset.
// The page keeps no copy: from then on the browser's HttpOnly cookie stands for it.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { requestConsole } from './console-client.js';

export function SignInPage({ onSignedIn }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const apiKey = new FormData(form).get('apiKey');
    form.reset();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await requestConsole('/session', { method: 'POST', body: { apiKey: String(apiKey ?? '') } }));
    } catch (failure) {
      setError(failure.message);
    } finally {
      setBusy(false);
    }
  };

  return html`
    <main class="sign-in">
      <h1>buildfleet console</h1>
      <form onSubmit=${submit}>
        <label for="api-key">API key</label>
        <input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck="false" placeholder="bf_…" required />
        <button type="submit" disabled=${busy}>Sign in</button>
        ${error && html`<p class="error" role="alert">${error}</p>`}
      </form>
      <p class="hint">
        Create a key with <code>npm run buildfleet -- keys create --tenant T --scopes runs:read,runs:write</code>.
        The console keeps it on its server for this session; this page never holds it after you sign in.
      </p>
    </main>
  `;
}
