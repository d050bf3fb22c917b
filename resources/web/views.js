// The page's screens except the conversation: agents, inbox, notifications, tasks, sign-in and
// the connection screen. A view is view(main, params, ctx) -> cleanup function.

import {newAgentForm} from './agentform.js';
import {api} from './api.js';
import {changePreview} from './change.js';
import {clear, clip, formatTime, formatTokens, formatUsd, h, toolSummary} from './dom.js';
import {hostBadge, hostNames, hostOf, listFilter} from './hosts.js';
import {classIcon} from './icons.js';
import {runningTasks, state, subscribe} from './store.js';

const STATUS_LABEL = {
  idle: 'Idle', working: 'Working', waiting_permission: 'Needs you', error: 'Error', stopped: 'Stopped',
};

export function statusBadge(status) {
  return h('span', {class: 'badge status-' + (status || 'unknown')}, STATUS_LABEL[status] || status || '?');
}

export function contextMeter(agent) {
  const used = agent.contextUsed || 0;
  const limit = agent.contextLimit || 0;
  const pct = limit ? Math.round((100 * used) / limit) : 0;
  return h('span', {class: 'context'},
    h('meter', {min: 0, max: limit || 1, value: Math.min(used, limit || 1), low: (limit || 1) * 0.6,
      high: (limit || 1) * 0.85, optimum: 0, 'aria-label': 'Context used'}),
    h('span', {class: 'muted'}, limit ? `${formatTokens(used)} / ${formatTokens(limit)} (${pct}%)` : 'context —'));
}

// --- Usage and budgets -----------------------------------------------------------------------

// Every lastError a reached budget sets starts so (the service clears it when the budget allows).
export const BUDGET_ERROR = 'Budget reached: ';
const NEAR = 0.8;

export function hasTeam(a) {
  return !!a.isBoss || (a.subordinateIds || []).length > 0;
}

// What a budget counts as tokens: input + output (cache reads are not counted).
const budgetTokens = (u) => (u.inputTokens || 0) + (u.outputTokens || 0);

// "$0.12 · 12.3k tok" (Codex reports no cost: tokens only).
export function usageText(a) {
  const u = a.usage || {};
  if (!u.turns) return 'no turns yet';
  const tokens = `${formatTokens(budgetTokens(u))} tok`;
  return u.costUsd || (a.provider || 'claude') === 'claude' ? `${formatUsd(u.costUsd)} · ${tokens}` : tokens;
}

// How much of `budget` the usage object `used` takes: {fraction, text}; the larger of its caps.
export function budgetUse(budget, used) {
  const parts = [];
  let fraction = 0;
  if (budget.costUsd) {
    fraction = Math.max(fraction, (used.costUsd || 0) / budget.costUsd);
    parts.push(`${formatUsd(used.costUsd)} of ${formatUsd(budget.costUsd)}`);
  }
  if (budget.tokens) {
    fraction = Math.max(fraction, budgetTokens(used) / budget.tokens);
    parts.push(`${formatTokens(budgetTokens(used))} of ${formatTokens(budget.tokens)} tokens`);
  }
  return {fraction, text: parts.join(', ')};
}

// 'over' | 'near' | '': a reached budget (the service's lastError, over the agent or its team),
// else what the agent's own usage shows of its own lifetime budget (day and team budgets need
// GET /api/usage: the conversation shows them).
export function budgetLevel(a) {
  if ((a.lastError || '').startsWith(BUDGET_ERROR)) return 'over';
  if (!a.budget || a.budget.period !== 'total' || hasTeam(a)) return '';
  const {fraction} = budgetUse(a.budget, a.usage || {});
  return fraction >= 1 ? 'over' : fraction >= NEAR ? 'near' : '';
}

export function usageLine(a) {
  const level = budgetLevel(a);
  return h('span', {class: 'usage muted'}, usageText(a),
    level === 'over' ? h('span', {class: 'badge budget-over'}, 'Budget reached')
      : level === 'near' ? h('span', {class: 'badge budget-near'}, 'Budget ≥ 80%') : null);
}

// --- Sandbox ---------------------------------------------------------------------------------

// The sandbox the agent's commands run in: its own, else the default for its permission mode
// (the service's for auto agents, state.sandboxDefault; none for ask agents), with network
// full and byDefault set. null for an auto agent while the service's default is not known.
export function effectiveSandbox(a) {
  if (a.sandbox && a.sandbox.mode) return {...a.sandbox, byDefault: false};
  const mode = a.permissionMode === 'auto' ? state.sandboxDefault : 'off';
  return mode ? {mode, network: 'full', byDefault: true} : null;
}

export const isSandboxed = (a) => (effectiveSandbox(a) || {}).mode === 'workspace';

// 'Sandbox: workspace · network full', with the allowed hosts and the extra writable and hidden
// paths; 'No sandbox' for mode off; ' (default)' after the mode when it is the default; ''
// while not known.
export function sandboxText(a) {
  const s = effectiveSandbox(a);
  if (!s) return '';
  const byDefault = s.byDefault ? ' (default)' : '';
  if (s.mode !== 'workspace') return 'No sandbox' + byDefault;
  const network = s.network || 'full';
  const list = (xs) => (xs || []).join(', ');
  return [`Sandbox: ${s.mode}${byDefault}`,
    network === 'allowlist' ? `network allowlist: ${list(s.allowHosts) || 'no hosts'}` : `network ${network}`,
    s.writable && s.writable.length ? `also writable: ${list(s.writable)}` : '',
    s.hidden && s.hidden.length ? `hidden: ${list(s.hidden)}` : ''].filter(Boolean).join(' · ');
}

// What a refused write in a sandbox prints (EROFS): said once under the tool's output.
export function sandboxHint(a, output) {
  return isSandboxed(a) && /Read-only file system/.test(output || '')
    ? 'The sandbox allows writes only in the agent\'s working directory (and the paths it lists as writable).'
    : '';
}

// The conversation's line for a connection the agent's allow-list sandbox refused
// (sandbox_blocked), with ' (3 times)' when it repeated in the turn.
export function sandboxBlockedText(where, times) {
  return `Sandbox blocked a connection to ${where} (not on this agent's allow-list)` +
    (times > 1 ? ` (${times} times)` : '');
}

// The list's mark for an agent whose sandbox refused connections while this page watched.
function blockedBadge(a) {
  const b = state.blocked.get(a.id);
  if (!b) return null;
  return h('span', {class: 'badge blocked', title: `Connections its sandbox refused (last: ${b.last})`},
    `${b.count} blocked`);
}

// --- Agents -------------------------------------------------------------------------------

let filterText = '';

export function agentsView(main, params, ctx) {
  const input = h('input', {type: 'search', id: 'agent-filter', placeholder: 'Filter by name, status, provider…',
    'aria-label': 'Filter agents', value: filterText, autocomplete: 'off'});
  // Which machine's agents: shown once there is more than this one to choose from.
  const hostSelect = h('select', {id: 'agent-host-filter', 'aria-label': 'Host', onchange: () => {
    listFilter.host = hostSelect.value;
    render();
  }});
  const list = h('ul', {class: 'agents', id: 'agent-list', 'aria-label': 'Agents'});
  const summary = h('p', {class: 'muted summary', 'aria-live': 'polite'});
  const formBox = h('div');
  const closeForm = () => { formBox.replaceChildren(); add.hidden = false; };
  const add = h('button', {type: 'button', class: 'primary', id: 'new-agent', onclick: () => {
    formBox.replaceChildren(newAgentForm(ctx, closeForm));
    add.hidden = true;
  }}, 'New agent');
  main.append(h('section', {class: 'view'},
    h('div', {class: 'view-head'}, h('h1', null, 'Agents'), input, hostSelect, add), formBox, summary, list));

  const render = () => {
    const names = hostNames();
    if (!names.includes(listFilter.host)) listFilter.host = '';
    if (hostSelect.dataset.names !== names.join(' ')) { // not rebuilt under an open picker
      hostSelect.dataset.names = names.join(' ');
      hostSelect.replaceChildren(h('option', {value: ''}, 'All hosts'), ...names.map((n) => h('option', {value: n}, n)));
    }
    hostSelect.value = listFilter.host;
    hostSelect.hidden = names.length < 2;
    const words = filterText.toLowerCase().split(/\s+/).filter(Boolean);
    const agents = [...state.agents.values()];
    const shown = agents.filter((a) => {
      if (listFilter.host && hostOf(a) !== listFilter.host) return false;
      const hay = [a.name, a.status, a.provider, a.model, a.class, a.currentTask, a.currentTool, a.taskLabel, a.cwd,
        hostOf(a)].join(' ').toLowerCase();
      return words.every((w) => hay.includes(w));
    });
    clear(list);
    for (const a of shown) list.append(agentRow(a));
    summary.textContent = agents.length === 0 ? 'No agents yet.'
      : shown.length === agents.length ? `${agents.length} agent${agents.length === 1 ? '' : 's'}`
        : `${shown.length} of ${agents.length} agents`;
    if (agents.length && !performance.getEntriesByName('flotilla:first-agent-list').length) {
      performance.mark('flotilla:first-agent-list');
    }
  };
  input.addEventListener('input', () => { filterText = input.value; render(); });
  render();
  // A retrying host changes state often: its badges change in place, the rows (links) stay.
  const onHosts = () => {
    if (hostSelect.dataset.names !== hostNames().join(' ')) return render();
    for (const b of list.querySelectorAll('.badge.host')) b.replaceWith(hostBadge({host: b.dataset.host}));
  };
  const offs = [...['agents', 'classes'].map((t) => subscribe(t, render)), subscribe('hosts', onHosts)];
  return () => { for (const off of offs) off(); };
}

function agentRow(a) {
  const doing = a.currentTool ? `Tool: ${a.currentTool}` : a.currentTask ? clip(a.currentTask, 140)
    : a.taskLabel || (a.lastError && a.status === 'error' ? clip(a.lastError, 140) : '');
  const level = budgetLevel(a);
  return h('li', {class: 'agent', dataset: {id: a.id, status: a.status, ...(level && {budget: level})}},
    h('a', {href: '/agents/' + encodeURIComponent(a.id), 'data-nav': true, class: 'agent-link'},
      h('span', {class: 'agent-top'},
        classIcon(a.class),
        h('strong', {class: 'agent-name'}, a.name),
        statusBadge(a.status),
        isSandboxed(a) ? h('span', {class: 'badge sandbox', title: sandboxText(a)}, 'Sandboxed') : null,
        hostBadge(a),
        blockedBadge(a),
        h('span', {class: 'provider'}, `${a.provider || 'claude'} · ${a.model || ''}`)),
      doing ? h('span', {class: 'doing'}, doing) : null,
      h('span', {class: 'agent-foot'}, contextMeter(a), usageLine(a))));
}

// --- Permission requests --------------------------------------------------------------------

export function requestCard(r, conn, toast) {
  const remember = h('select', {'aria-label': 'Remember this answer', class: 'remember'},
    h('option', {value: ''}, 'Just this once'),
    h('option', {value: 'agent'}, 'Always for this agent'),
    h('option', {value: 'project'}, 'Always in this project'),
    h('option', {value: 'global'}, 'Always, everywhere'));
  const answer = (granted) => {
    const payload = {agentId: r.agentId, permissionId: r.id, granted};
    if (remember.value) payload.remember = remember.value;
    if (!conn.send('permission_response', payload)) {
      toast('Not connected: the answer was not sent.', 'error');
      return;
    }
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    card.classList.add('answered');
  };
  const input = r.toolInput ? JSON.stringify(r.toolInput, null, 2) : '';
  const card = h('li', {class: 'request', dataset: {id: r.id}},
    h('div', {class: 'request-head'},
      h('strong', null, r.tool),
      h('span', null, ' for '),
      h('a', {href: '/agents/' + encodeURIComponent(r.agentId), 'data-nav': true}, r.agentName || r.agentId),
      h('span', {class: 'muted when'}, formatTime(r.timestamp))),
    h('p', {class: 'summary-line'}, clip(toolSummary(r.toolInput), 300)),
    changePreview(r.tool, r.toolInput),
    input ? h('details', null, h('summary', null, 'Full input'), h('pre', null, input)) : null,
    h('div', {class: 'actions'}, remember,
      h('button', {type: 'button', class: 'grant', onclick: () => answer(true)}, 'Grant'),
      h('button', {type: 'button', class: 'deny', onclick: () => answer(false)}, 'Deny')));
  return card;
}

export function inboxView(main, params, ctx) {
  const list = h('ul', {class: 'requests', id: 'request-list', 'aria-label': 'Pending permission requests'});
  const empty = h('p', {class: 'empty'}, 'Nothing waits for you.');
  main.append(h('section', {class: 'view'}, h('div', {class: 'view-head'}, h('h1', null, 'Inbox')), empty, list));
  const render = () => {
    const items = [...state.requests.values()].sort((a, b) => a.timestamp - b.timestamp);
    const keep = new Set(items.map((r) => r.id));
    for (const li of [...list.children]) if (!keep.has(li.dataset.id)) li.remove();
    const present = new Set([...list.children].map((li) => li.dataset.id));
    for (const r of items) if (!present.has(r.id)) list.append(requestCard(r, ctx.conn, ctx.toast));
    empty.hidden = items.length > 0;
  };
  render();
  return subscribe('requests', render);
}

// --- Notifications ---------------------------------------------------------------------------

export function notificationsView(main, params, ctx) {
  const list = h('ul', {class: 'notifications', id: 'notification-list', 'aria-label': 'Notifications'});
  const empty = h('p', {class: 'empty'}, 'No notifications.');
  main.append(h('section', {class: 'view'}, h('div', {class: 'view-head'}, h('h1', null, 'Notifications')), empty, list));
  const render = () => {
    state.unseen = 0;
    ctx.updateCounts();
    clear(list);
    for (const n of state.notifications) {
      list.append(h('li', {class: 'notification', dataset: {id: n.id}},
        h('div', {class: 'request-head'}, h('strong', null, n.title),
          h('span', {class: 'muted when'}, formatTime(n.timestamp))),
        h('p', null, n.message),
        n.agentId ? h('a', {href: '/agents/' + encodeURIComponent(n.agentId), 'data-nav': true, class: 'muted'},
          n.agentName || 'agent') : null));
    }
    empty.hidden = state.notifications.length > 0;
  };
  render();
  return subscribe('notifications', render);
}

// --- Exec tasks -------------------------------------------------------------------------------

export async function loadTasks() {
  const ids = [...state.agents.keys()];
  const found = [];
  for (let i = 0; i < ids.length; i += 6) {
    const batch = await Promise.all(ids.slice(i, i + 6).map((id) =>
      api('GET', '/api/exec/tasks/' + encodeURIComponent(id)).then((r) => r.tasks || [], () => [])));
    for (const tasks of batch) found.push(...tasks);
  }
  return found;
}

export function tasksView(main, params, ctx) {
  const list = h('ul', {class: 'tasks', id: 'task-list', 'aria-label': 'Exec tasks'});
  const empty = h('p', {class: 'empty'}, 'No commands are running.');
  main.append(h('section', {class: 'view'}, h('div', {class: 'view-head'}, h('h1', null, 'Tasks')), empty, list));
  const outputs = new Map();
  const render = () => {
    clear(list);
    outputs.clear();
    const tasks = [...state.tasks.values()].sort((a, b) => (b.startedAt || 0) - (a.startedAt || 0));
    for (const t of tasks) {
      const out = h('pre', {class: 'task-output', 'aria-label': 'Output'}, t.output || '');
      outputs.set(t.taskId, out);
      const r = t.result;
      const state_ = t.running ? h('span', {class: 'badge status-working'}, 'Running')
        : h('span', {class: 'badge ' + (r && r.success ? 'status-idle' : 'status-error')},
          r ? (r.killed ? 'Killed' : r.timedOut ? 'Timed out' : `Exit ${r.exitCode ?? '–'}`) : 'Ended');
      const kill = t.running ? h('button', {type: 'button', class: 'deny kill', onclick: async () => {
        kill.disabled = true;
        try {
          await api('DELETE', '/api/exec/tasks/' + encodeURIComponent(t.taskId));
        } catch (e) {
          kill.disabled = false;
          ctx.toast('Kill failed: ' + e.message, 'error');
        }
      }}, 'Kill') : null;
      list.append(h('li', {class: 'task', dataset: {id: t.taskId, running: t.running ? '1' : '0'}},
        h('div', {class: 'request-head'}, state_, h('code', {class: 'command'}, clip(t.command || '', 300))),
        h('p', {class: 'muted'}, `${t.agentName || ''} · ${t.cwd || ''} · ${formatTime(t.startedAt)}`),
        out, h('div', {class: 'actions'}, kill)));
    }
    empty.hidden = tasks.length > 0;
  };
  render();
  const offTasks = subscribe('tasks', render);
  const offs = [];
  const watchOutput = () => {
    for (const off of offs.splice(0)) off();
    for (const id of state.tasks.keys()) {
      offs.push(subscribe('task:' + id, (t) => {
        const pre = outputs.get(id);
        if (pre) { pre.textContent = t.output; pre.scrollTop = pre.scrollHeight; }
      }));
    }
  };
  watchOutput();
  const offWatch = subscribe('tasks', watchOutput);
  loadTasks().then((tasks) => { for (const t of tasks) if (!state.tasks.has(t.taskId)) ctx.addTask(t); });
  return () => { offTasks(); offWatch(); for (const off of offs) off(); };
}

export {runningTasks};

// --- Sign-in and connection screens ----------------------------------------------------------

export function signInView(main, params, ctx) {
  const input = h('input', {type: 'password', id: 'token', name: 'token', autocomplete: 'current-password',
    required: true, spellcheck: 'false', autocapitalize: 'off'});
  const error = h('p', {class: 'error', id: 'signin-error', role: 'alert'}, ctx.signInMessage || '');
  error.hidden = !ctx.signInMessage;
  const button = h('button', {type: 'submit', class: 'primary'}, 'Sign in');
  const form = h('form', {class: 'signin', id: 'signin-form', onsubmit: async (e) => {
    e.preventDefault();
    button.disabled = true;
    error.hidden = true;
    const message = await ctx.signIn(input.value.trim());
    button.disabled = false;
    if (message) {
      error.textContent = message;
      error.hidden = false;
      input.select();
    }
  }},
  h('h1', null, 'Sign in'),
  h('p', {class: 'muted'}, 'Enter the service token (the AUTH_TOKEN, or the content of the token file, e.g. ',
    h('code', null, '~/.config/flotilla/token'), '). It stays in this browser.'),
  h('label', {for: 'token'}, 'Token'), input, error, button);
  main.append(h('section', {class: 'view narrow'}, form));
  input.focus();
  return () => {};
}

export function connectionView(main, params, ctx) {
  const text = h('p', {id: 'connection-message'});
  const retry = h('button', {type: 'button', class: 'primary', onclick: () => ctx.reconnectNow()}, 'Retry now');
  main.append(h('section', {class: 'view narrow connection', id: 'connection-screen'},
    h('h1', null, 'Connection lost'), text,
    h('p', {class: 'muted'}, 'The service may be restarting or the network dropped. This page reconnects by itself and reloads what it shows.'),
    retry));
  const tick = () => {
    const wait = Math.max(0, Math.round(((ctx.conn.nextAttemptAt || Date.now()) - Date.now()) / 1000));
    text.textContent = wait > 0 ? `Reconnecting in ${wait} s (attempt ${ctx.conn.attempt + 1})…` : 'Reconnecting…';
  };
  tick();
  const timer = setInterval(tick, 500);
  return () => clearInterval(timer);
}
