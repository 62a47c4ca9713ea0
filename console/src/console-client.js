// Every request the page makes goes to its own origin: /session for the sign-in, /api/v1/… for the
// API, which the console's server forwards with the session's key. The page never holds the key:
// the browser sends the HttpOnly session cookie, which page scripts cannot read.

/** An error answer, as `{ error: { code, message } }` (the console's codes and the API's alike). */
export class ConsoleRequestError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let signedOutListener = () => {};

/** Called whenever an answer says the session is gone (401), so the app shows the sign-in. */
export function onSignedOut(listener) {
  signedOutListener = listener;
}

/** Reads an error body defensively: a proxy in between may answer HTML. */
function errorOf(status, payload) {
  const error = payload && typeof payload === 'object' ? payload.error : null;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') return new ConsoleRequestError(status, error.code, error.message);
  return new ConsoleRequestError(status, 'unexpected_answer', `The console answered ${status} without an error body.`);
}

/** A JSON request to the console's origin; resolves to the parsed body (null for 204). */
export async function requestConsole(path, { method = 'GET', body, headers = {} } = {}) {
  const init = { method, credentials: 'same-origin', headers: { accept: 'application/json', ...headers } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (response.status === 204) return null;
  const payload = await response.json().catch(() => null);
  if (!response.ok) {
    const error = errorOf(response.status, payload);
    if (response.status === 401 && path !== '/session') signedOutListener();
    throw error;
  }
  if (payload === null || typeof payload !== 'object') throw new ConsoleRequestError(response.status, 'unexpected_answer', 'The console answered without a JSON body.');
  return payload;
}

/** A request to the API through the console (path starts with /v1/). */
export function requestApi(path, options) {
  return requestConsole(`/api${path}`, options);
}
