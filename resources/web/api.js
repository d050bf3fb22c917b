// REST calls and the WebSocket event channel. The token lives in localStorage; REST sends it as
// X-Auth-Token, the WebSocket as the subprotocol auth-<token> (browsers cannot set headers there).

const TOKEN_KEY = 'flotilla.token';

export function storedToken() {
  try { return localStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}
export function storeToken(token) {
  try { localStorage.setItem(TOKEN_KEY, token); } catch { /* private mode: this tab only */ }
}
export function forgetToken() {
  try { localStorage.removeItem(TOKEN_KEY); } catch { /* nothing stored */ }
}

export class ApiError extends Error {
  constructor(status, code, message, data) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data || {}; // the whole error body: some codes say more (class_in_use: agents)
  }
}

export async function api(method, path, body) {
  const headers = {};
  const token = storedToken();
  if (token) headers['X-Auth-Token'] = token;
  const init = {method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error'};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'network', 'The service cannot be reached.');
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!res.ok) {
    throw new ApiError(res.status, (data && data.code) || 'http',
      (data && data.error) || `${res.status} ${res.statusText}`, data);
  }
  return data;
}

// One WebSocket, reopened with backoff after it drops. Events: 'open', 'close', 'message'
// (detail: {type, payload}).
export class Connection extends EventTarget {
  constructor() {
    super();
    this.ws = null;
    this.wanted = false;
    this.attempt = 0;
    this.timer = 0;
  }

  get isOpen() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  open() {
    this.wanted = true;
    clearTimeout(this.timer);
    if (this.ws) return;
    const token = storedToken();
    const url = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws`;
    let ws;
    try {
      ws = token ? new WebSocket(url, ['auth-' + token]) : new WebSocket(url);
    } catch {
      // A token that is not a valid subprotocol name: the query parameter works too.
      ws = new WebSocket(url + '?token=' + encodeURIComponent(token));
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.dispatchEvent(new Event('open'));
    };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg && typeof msg.type === 'string') {
        this.dispatchEvent(new CustomEvent('message', {detail: msg}));
      }
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.dispatchEvent(new CustomEvent('close', {detail: {code: e.code}}));
      if (this.wanted) this.retryLater();
    };
  }

  retryLater() {
    this.attempt += 1;
    const delay = Math.min(10000, 500 * 2 ** Math.min(this.attempt, 5));
    this.nextAttemptAt = Date.now() + delay;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.dispatchEvent(new Event('retry')), delay);
  }

  close() {
    this.wanted = false;
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
  }

  send(type, payload) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify({type, payload}));
    return true;
  }
}
