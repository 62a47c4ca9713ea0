// A new build: the prompt, and the run options most worth choosing from a browser. Submitted with
// an Idempotency-Key made once per form, so a double click or a retried request starts one run.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { requestApi } from './console-client.js';

/** The body of POST /v1/runs from the form's fields; empty fields are left to the fleet's defaults. */
export function createRunBody(fields) {
  const body = { prompt: fields.prompt.trim() };
  if (fields.model.trim()) body.model = fields.model.trim();
  if (fields.maxTurns.trim()) body.maxTurns = Number(fields.maxTurns);
  const options = {};
  if (fields.budgetUsd.trim()) options.budgetUsd = Number(fields.budgetUsd);
  if (fields.scenario.trim()) options.scenario = fields.scenario.trim();
  if (Object.keys(options).length > 0) body.options = options;
  return body;
}

export function NewRunPage() {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [idempotencyKey] = useState(() => `console-${crypto.randomUUID()}`);

  const submit = async (event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const field = (name) => String(data.get(name) ?? '');
    setBusy(true);
    setError(null);
    try {
      const body = createRunBody({ prompt: field('prompt'), model: field('model'), maxTurns: field('maxTurns'), budgetUsd: field('budgetUsd'), scenario: field('scenario') });
      const accepted = await requestApi('/v1/runs', { method: 'POST', body, headers: { 'idempotency-key': idempotencyKey } });
      if (typeof accepted.id !== 'string') throw new Error('The API accepted the run but named no id.');
      location.hash = `#/runs/${accepted.id}`;
    } catch (failure) {
      setError(failure.code ? `${failure.message} (${failure.code})` : failure.message);
      setBusy(false);
    }
  };

  return html`
    <section class="new-run">
      <h1>New build</h1>
      <form onSubmit=${submit}>
        <label for="prompt">What should the agent build?</label>
        <textarea id="prompt" name="prompt" rows="5" required placeholder="A landing page for a bakery in Lisbon, with opening hours and a menu"></textarea>
        <details>
          <summary>Options</summary>
          <div class="fields">
            <label>Model <input name="model" placeholder="the fleet's default" /></label>
            <label>Max turns <input name="maxTurns" type="number" min="1" max="200" /></label>
            <label>Budget (USD) <input name="budgetUsd" type="number" min="0.000001" step="any" /></label>
            <label>Simulator scenario <input name="scenario" placeholder="e.g. ask_user (simulator only)" pattern="[a-z0-9_]{1,64}" /></label>
          </div>
        </details>
        <button type="submit" disabled=${busy}>Start the build</button>
        ${error && html`<p class="error" role="alert">${error}</p>`}
      </form>
    </section>
  `;
}
