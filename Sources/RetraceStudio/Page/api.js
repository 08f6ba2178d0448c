// The Studio's only way to the server: GET requests to /api with the token from the page's
// address, answered with JSON (and the POSTs: the commands to a live session's app, and an
// uploaded file, whose `body` is sent as it is). A request made again for the same purpose (`key`) cancels
// the one before it, so that holding an arrow key never queues stale states.
const token = new URLSearchParams(location.search).get('token') || '';
const inFlight = new Map();

export class APIError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

export async function api(path, params = {}, key = null, method = 'GET', payload = undefined) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') query.set(name, value);
  }
  const url = '/api/' + path + (query.toString() ? '?' + query : '');
  let controller = null;
  if (key) {
    inFlight.get(key)?.abort();
    controller = new AbortController();
    inFlight.set(key, controller);
  }
  try {
    const response = await fetch(url, {
      method,
      headers: { Authorization: 'Bearer ' + token },
      signal: controller?.signal,
      body: payload,
    });
    const body = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok) throw new APIError(response.status, body.error || response.statusText);
    return body;
  } finally {
    if (key && inFlight.get(key) === controller) inFlight.delete(key);
  }
}

export function isAbort(error) { return error?.name === 'AbortError'; }

export function download(name, text, type = 'application/octet-stream') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
