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
  // Commas as they are (a query may hold them): a skip list of 1,000 seven-digit numbers
  // then fits the server's request line, where `%2C` for each made it too long.
  const text = query.toString().replaceAll('%2C', ',');
  const url = '/api/' + path + (text ? '?' + text : '');
  let controller = null;
  if (key) {
    inFlight.get(key)?.abort();
    controller = new AbortController();
    inFlight.set(key, controller);
  }
  const request = pending(path, key);
  try {
    const response = await fetch(url, {
      method,
      headers: { Authorization: 'Bearer ' + token },
      signal: controller?.signal,
      body: payload,
    });
    let body;
    try {
      body = await response.json();
    } catch (error) {
      // A request cancelled while its answer arrives is cancelled, not answered: its caller
      // must not take the error for the answer.
      if (controller?.signal.aborted || error?.name === 'AbortError') throw error;
      throw new APIError(response.status, response.ok ? 'the answer is not JSON' : response.statusText);
    }
    if (!response.ok) throw new APIError(response.status, body.error || response.statusText);
    return body;
  } finally {
    request.done();
    if (key && inFlight.get(key) === controller) inFlight.delete(key);
  }
}

// The requests under way, but the session list's polls: what the page says it is waiting for
// (`onBusy` listeners get the list, oldest first, each { what, started }).
const under = new Set();
const busyListeners = [];
const ENDPOINTS = {
  '': 'the session', actions: 'actions', state: 'the state', search: 'searching the state',
  diff: 'the diff', bisect: 'checking every action', bench: 'the benchmark', flows: 'the navigation',
  lanes: 'the swimlanes', export: 'the export', shrink: 'shrinking',
};

function pending(path, key) {
  const parts = path.split('/');
  const what = key === 'poll-sessions' ? null : parts.length === 1 ? 'the sessions' : ENDPOINTS[parts[2] ?? ''] ?? parts[2];
  const entry = { what, started: performance.now() };
  if (what) under.add(entry);
  busyListeners.forEach((listener) => listener([...under]));
  return {
    done() {
      if (!under.delete(entry)) return;
      busyListeners.forEach((listener) => listener([...under]));
    },
  };
}

export function onBusy(listener) { busyListeners.push(listener); }

// A GET whose answer is read as it arrives: `progress(received, total)` is called with the
// bytes received and the Content-Length (null when the server sends none). `signal` cancels.
export async function apiWithProgress(path, params, { signal, progress }) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== null && v !== undefined && v !== ''));
  const request = pending(path, null);
  try {
    const response = await fetch('/api/' + path + (query.toString() ? '?' + query : ''),
      { headers: { Authorization: 'Bearer ' + token }, signal });
    const total = Number(response.headers.get('Content-Length')) || null;
    const reader = response.body.getReader();
    const chunks = [];
    let received = 0;
    progress(0, total);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      progress(received, total);
    }
    const text = await new Blob(chunks).text();
    let body;
    try { body = JSON.parse(text); } catch { body = { error: response.statusText }; }
    if (!response.ok) throw new APIError(response.status, body.error || response.statusText);
    return body;
  } finally {
    request.done();
  }
}

export function isAbort(error) { return error?.name === 'AbortError'; }

// Cancels the request made for `key`, if one is under way.
export function cancel(key) {
  inFlight.get(key)?.abort();
  inFlight.delete(key);
}

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
