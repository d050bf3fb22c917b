// The page's shell: sign-in, the connection's life, routing between views, counts and toasts.

import {api, ApiError, Connection, forgetToken, storeToken, storedToken} from './api.js';
import {clear, h} from './dom.js';
import {addTask, handleMessage, runningTasks, setNotifications, setRequests, setSandboxDefault, state, subscribe}
  from './store.js';
import {agentsView, connectionView, inboxView, loadTasks, notificationsView, signInView, tasksView} from './views.js';
import {conversationView} from './conversation.js';
import {loadCatalog} from './catalog.js';
import {libraryView} from './library.js';
import {hostsView, loadHosts} from './hosts.js';

const main = document.getElementById('main');
const linkState = document.getElementById('link-state');
const conn = new Connection();

const routes = [
  {pattern: /^\/$/, view: agentsView, section: 'agents'},
  {pattern: /^\/agents\/([^/]+)$/, view: conversationView, section: 'agents', keys: ['id']},
  {pattern: /^\/inbox$/, view: inboxView, section: 'inbox'},
  {pattern: /^\/notifications$/, view: notificationsView, section: 'notifications'},
  {pattern: /^\/tasks$/, view: tasksView, section: 'tasks'},
  {pattern: /^\/library(?:\/([^/]+))?$/, view: libraryView, section: 'library', keys: ['section']},
  {pattern: /^\/hosts$/, view: hostsView, section: 'hosts'},
];

// 'signin' | 'connecting' | 'lost' | 'ready'
let phase = 'connecting';
let cleanup = () => {};
let shownOnce = false;

const ctx = {
  conn,
  toast,
  addTask,
  updateCounts,
  signInMessage: '',
  signIn,
  reconnectNow: () => connect(),
};

function toast(message, kind = 'info') {
  const box = document.getElementById('toasts');
  const item = h('div', {class: 'toast ' + kind}, message);
  box.append(item);
  setTimeout(() => item.remove(), kind === 'error' ? 8000 : 5000);
}

function setCount(id, n) {
  const el = document.getElementById(id);
  el.textContent = String(n);
  el.hidden = !n;
}

function updateCounts() {
  setCount('count-inbox', state.requests.size);
  setCount('count-notifications', state.unseen);
  setCount('count-tasks', runningTasks());
}

function render() {
  cleanup();
  cleanup = () => {};
  clear(main);
  document.body.dataset.phase = phase;
  if (phase === 'signin') {
    cleanup = signInView(main, {}, ctx);
    return;
  }
  if (phase === 'lost') {
    cleanup = connectionView(main, {}, ctx);
    return;
  }
  if (phase === 'connecting') {
    main.append(h('p', {class: 'empty'}, 'Connecting…'));
    return;
  }
  const path = location.pathname;
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    const params = {};
    (route.keys || []).forEach((k, i) => { if (m[i + 1] !== undefined) params[k] = decodeURIComponent(m[i + 1]); });
    for (const a of document.querySelectorAll('nav a')) {
      if (a.dataset.section === route.section) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    cleanup = route.view(main, params, ctx) || (() => {});
    if (shownOnce) main.focus({preventScroll: true});
    shownOnce = true;
    return;
  }
  main.append(h('section', {class: 'view narrow'}, h('h1', null, 'Not found'),
    h('p', null, h('a', {href: '/', 'data-nav': true}, 'Back to the agents'))));
}

function navigate(path) {
  if (path !== location.pathname) history.pushState(null, '', path);
  render();
}

document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[data-nav]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', render);

function setPhase(next) {
  phase = next;
  linkState.textContent = {ready: 'Live', lost: 'Offline', connecting: '…', signin: 'Signed out'}[next];
  linkState.dataset.state = next;
  render();
}

// Checks the stored token against the service. Returns null when it is accepted, else why not.
async function checkToken() {
  try {
    await api('GET', '/api/agents/simple');
    return null;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      return storedToken() ? 'This token is not accepted by the service.' : 'This service needs a token.';
    }
    throw e;
  }
}

async function signIn(token) {
  if (!token) return 'Enter the token.';
  storeToken(token);
  let why;
  try {
    why = await checkToken();
  } catch (e) {
    forgetToken();
    return 'The service cannot be reached: ' + e.message;
  }
  if (why) {
    forgetToken();
    return 'Wrong token: ' + why;
  }
  ctx.signInMessage = '';
  if (location.pathname === '/signin') history.replaceState(null, '', '/');
  connect();
  return null;
}

// (Re)connects: the service up, the token accepted, then the WebSocket and a fresh load of
// everything the views show. Any failure shows a screen of its own, never stale data.
async function connect() {
  conn.close();
  let why;
  try {
    why = await checkToken();
  } catch {
    if (phase !== 'lost') setPhase('lost');
    conn.retryLater();
    return;
  }
  if (why) {
    const had = storedToken();
    forgetToken();
    ctx.signInMessage = had ? 'The service no longer accepts the stored token (it may have restarted with a new one). Sign in again.' : '';
    setPhase('signin');
    return;
  }
  conn.open();
}

conn.addEventListener('retry', () => connect());
conn.addEventListener('open', async () => {
  // agents_update arrives first on every connection; the rest is loaded over REST. The
  // service's sandbox default is asked for on every connection (a restarted service may have
  // another), and known before the views render, so a refused write gets its hint at once.
  const health = api('GET', '/api/health').then(
    (body) => setSandboxDefault((body && body.sandbox && body.sandbox.default) || ''), () => {});
  try {
    const [requests, notifications] = await Promise.all([
      api('GET', '/api/permission-requests'),
      api('GET', '/api/notifications?limit=50'),
    ]);
    setRequests((requests && requests.requests) || []);
    setNotifications(Array.isArray(notifications) ? notifications : []);
  } catch (e) {
    toast('Could not load the inbox: ' + e.message, 'error');
  }
  await health;
  setPhase('ready');
  // Classes (icons beside agents), skills, prompts, hooks, buildings and hosts: the views fill
  // in as each arrives.
  loadCatalog();
  loadHosts();
  loadTasks().then((tasks) => { for (const t of tasks) if (!state.tasks.has(t.taskId)) addTask(t); });
});
conn.addEventListener('close', () => {
  if (phase === 'ready' || phase === 'connecting') {
    // Whatever the page showed may be out of date: a clear screen until the service is back.
    state.tasks.clear();
    setPhase('lost');
  }
});
conn.addEventListener('message', (e) => handleMessage(e.detail));

subscribe('requests', updateCounts);
subscribe('notifications', updateCounts);
subscribe('tasks', updateCounts);
subscribe('notification', (n) => {
  if (location.pathname !== '/notifications') toast(`${n.agentName ? n.agentName + ': ' : ''}${n.title}`);
});
subscribe('server-error', (p) => {
  toast(`Refused: ${p.message || p.code}`, 'error');
  for (const b of document.querySelectorAll('.request.answered button')) b.disabled = false;
  for (const c of document.querySelectorAll('.request.answered')) c.classList.remove('answered');
});

(async function start() {
  setPhase('connecting');
  // A stored token is checked by connect() itself: one round trip less before the agents show.
  if (storedToken()) {
    connect();
    return;
  }
  let health;
  try {
    health = await api('GET', '/api/health');
  } catch {
    setPhase('lost');
    conn.retryLater();
    return;
  }
  // An open service: no token (a stale one would offer a subprotocol the handshake refuses).
  if (health && !health.authRequired) forgetToken();
  if (health && health.authRequired && !storedToken()) {
    setPhase('signin');
    return;
  }
  connect();
})();
