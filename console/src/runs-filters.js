// The runs list's filters as the page's URL carries them (#/?prompt=…&status=…&from=…&to=…&tenant=…),
// so a filtered view can be shared and survives a reload. The values are GET /v1/runs's own: `from`
// and `to` are ISO 8601 instants, which the form shows and takes in the browser's local time.

export const FILTER_NAMES = ['prompt', 'status', 'from', 'to', 'tenant'];

/** The filters a query string names: the known ones only, blank ones dropped. */
export function filtersOf(query) {
  const params = new URLSearchParams(query);
  const filters = {};
  for (const name of FILTER_NAMES) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** The runs list's hash with these filters (#/ with none). */
export function hashOf(filters) {
  const params = new URLSearchParams();
  for (const name of FILTER_NAMES) if (filters[name]) params.set(name, filters[name]);
  const query = params.toString();
  return query ? `#/?${query}` : '#/';
}

/** An ISO instant as a datetime-local input's value (local time, to the second); '' if none. */
export function localInputOf(iso) {
  const date = new Date(iso ?? '');
  if (!iso || Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
}

/** A datetime-local input's value as an ISO instant, or undefined when blank or invalid. A date-time
 * without an offset is local time to Date, as the input means it. */
export function isoOfLocalInput(value) {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The instant the form's time field means: the URL's own value while the field still shows it
 * (the field has no milliseconds, which a shared link may), else what was typed. */
export function instantOf({ typed, current }) {
  if (current && localInputOf(current) === typed) return current;
  return isoOfLocalInput(typed);
}
