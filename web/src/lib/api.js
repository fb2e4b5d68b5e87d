// The daemon's JSON API (docs/web.md). Every refusal arrives as {"error": "<sentence>"}; that
// sentence is what the page shows, so an ApiError carries it as its message, with the status
// and the rest of the body (a 415 names where the file can be downloaded).

export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body ?? {};
  }
}

async function readAnswer(response) {
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = null;
  }
  if (response.ok && body !== null) return body;
  if (body && typeof body.error === 'string') throw new ApiError(body.error, response.status, body);
  throw new ApiError(
    `the daemon answered ${response.status} ${response.statusText} without a JSON error`,
    response.status,
    body,
  );
}

async function request(path, init) {
  let response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
  } catch (e) {
    throw new ApiError(`the daemon could not be reached (${e.message})`, 0);
  }
  return readAnswer(response);
}

export function getJson(path) {
  return request(path, { headers: { Accept: 'application/json' } });
}

export function postJson(path, body) {
  return request(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
}

function threadPath(thread, rest = '') {
  return `/api/sessions/${encodeURIComponent(thread)}${rest}`;
}

function withPath(thread, rest, path) {
  return `${threadPath(thread, rest)}?path=${encodeURIComponent(path || '.')}`;
}

export const api = {
  interface: () => getJson('/api/interface'),
  sessions: () => getJson('/api/sessions'),
  session: (thread) => getJson(threadPath(thread)),
  start: (prompt, project) => postJson('/api/sessions', { prompt, project }),
  send: (thread, text) => postJson(threadPath(thread, '/send'), { text }),
  tree: (thread, path) => getJson(withPath(thread, '/tree', path)),
  file: (thread, path) => getJson(withPath(thread, '/file', path)),
  downloadHref: (thread, path) => withPath(thread, '/download', path),
  receipts: (thread) => getJson(threadPath(thread, '/receipts')),
  sessionsStream: '/api/events',
  threadStream: (thread) => threadPath(thread, '/events'),
};

// Follows a Server-Sent Events stream; `handlers` maps event names to functions of the parsed
// data, and `onConnection(open)` hears when the stream drops and comes back (EventSource
// reconnects by itself). Returns the function that closes the stream.
export function follow(url, handlers, onConnection = () => {}) {
  const source = new EventSource(url);
  source.onopen = () => onConnection(true);
  source.onerror = () => onConnection(false);
  for (const [name, handle] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch (e) {
        // Not silently: the page would otherwise look complete while missing an event.
        console.error(`the ${name} event from ${url} is not JSON (${e.message}); it was not shown`);
        return;
      }
      handle(data);
    });
  }
  return () => source.close();
}
