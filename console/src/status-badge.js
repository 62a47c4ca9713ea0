import { html } from './html.js';

/** A run status as a coloured label (the colours come from console.css, by status). */
export function StatusBadge({ status }) {
  return html`<span class=${`status status-${status}`} data-status=${status}>${status.replaceAll('_', ' ')}</span>`;
}
