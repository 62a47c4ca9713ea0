// "Open a run by its id" on the runs list: takes a run id (or a pasted link or log line holding
// one), asks the API for that run (GET /v1/runs/:id) and opens its page, or says plainly that there
// is no such run for this key. Whole ids only: GET /v1/runs has no id-prefix filter, and guessing
// from the page's own rows would miss every run not on it.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { requestApi } from './console-client.js';
import { RUN_ID_PATTERN } from '../../src/domain/ids.js';

// The id as src/domain/ids.ts spells it (its one home), found anywhere in what was typed.
const RUN_ID_IN_TEXT = new RegExp(`\\b${RUN_ID_PATTERN.source.replace(/^\^|\$$/g, '')}\\b`);

export function RunIdSearch() {
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  const open = async (event) => {
    event.preventDefault();
    const typed = String(new FormData(event.currentTarget).get('run-id') ?? '').trim();
    if (!typed) return;
    const runId = RUN_ID_IN_TEXT.exec(typed)?.[0];
    if (!runId) {
      setMessage(`“${typed.slice(0, 80)}” is not a run id: a run id is run_ followed by 8 to 64 letters and digits.`);
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      await requestApi(`/v1/runs/${runId}`);
      location.hash = `#/runs/${runId}`;
    } catch (failure) {
      const notFound = failure.code === 'run_not_found';
      setMessage(notFound ? `No run ${runId} here: no such run, or another tenant's.` : `${runId} could not be read: ${failure.message}`);
    } finally {
      setBusy(false);
    }
  };
  return html`
    <form class="run-id-search" onSubmit=${open} data-testid="run-id-search">
      <label>Run id <input type="search" name="run-id" placeholder="run_…" autocomplete="off" spellcheck="false" maxlength="300" /></label>
      <button type="submit" disabled=${busy}>Open</button>
      ${message && html`<p class="error" role="alert" data-testid="run-id-search-message">${message}</p>`}
    </form>
  `;
}
