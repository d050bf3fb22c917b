// What the page knows, fed by REST loads and WebSocket events; views subscribe to topics.

export const state = {
  agents: new Map(),        // id -> agent
  requests: new Map(),      // permission id -> permission_request payload
  notifications: [],        // newest first
  unseen: 0,
  tasks: new Map(),         // taskId -> {…exec_task_started, output, running, result}
  // The service's sandbox for auto agents without one of their own (GET /api/health
  // sandbox.default: 'off' | 'workspace'); '' while not known.
  sandboxDefault: '',
  // agentId -> {count, last: 'host:port'}: connections the agent's sandbox refused while this
  // page watched (sandbox_blocked; the service keeps no count, its decision log has each).
  blocked: new Map(),
  // name -> host (GET /api/hosts: 'local' first, then creation order), kept by host_* events.
  hosts: new Map(),
};

const listeners = new Map(); // topic -> Set(fn)

export function subscribe(topic, fn) {
  if (!listeners.has(topic)) listeners.set(topic, new Set());
  listeners.get(topic).add(fn);
  return () => listeners.get(topic).delete(fn);
}

export function emit(topic, data) {
  for (const fn of listeners.get(topic) || []) {
    try { fn(data); } catch (e) { console.error(e); }
  }
}

const MAX_TASK_OUTPUT = 64 * 1024;
const MAX_NOTIFICATIONS = 200;

export function setAgents(list) {
  state.agents = new Map(list.map((a) => [a.id, a]));
  emit('agents');
}

// The agents read differently with another default (views.js effectiveSandbox).
export function setSandboxDefault(mode) {
  if (mode === state.sandboxDefault) return;
  state.sandboxDefault = mode;
  emit('agents');
}

export function setHosts(list) {
  state.hosts = new Map(list.map((x) => [x.name, x]));
  emit('hosts');
}

export function setRequests(list) {
  state.requests = new Map(list.map((r) => [r.id, r]));
  emit('requests');
}

export function setNotifications(list) {
  state.notifications = list.slice(0, MAX_NOTIFICATIONS);
  emit('notifications');
}

export function addTask(task) {
  const known = state.tasks.get(task.taskId);
  state.tasks.set(task.taskId, {output: '', running: true, ...known, ...task});
  emit('tasks');
}

export function runningTasks() {
  return [...state.tasks.values()].filter((t) => t.running).length;
}

// One WebSocket message, by type.
const handlers = {
  agents_update: (list) => setAgents(Array.isArray(list) ? list : []),
  agent_created: (a) => { state.agents.set(a.id, a); emit('agents'); },
  agent_updated: (patch) => {
    const a = state.agents.get(patch.id);
    if (!a) return;
    Object.assign(a, patch);
    emit('agents');
    emit('agent:' + a.id, a);
  },
  agent_deleted: ({id}) => { state.agents.delete(id); state.blocked.delete(id); emit('agents'); },
  context_update: (p) => {
    const a = state.agents.get(p.agentId);
    if (!a) return;
    a.contextUsed = p.contextUsed;
    a.contextLimit = p.contextLimit;
    emit('agents');
    emit('agent:' + a.id, a);
  },
  output: (chunk) => emit('output:' + chunk.agentId, chunk),
  permission_request: (r) => { state.requests.set(r.id, r); emit('requests'); },
  permission_resolved: (r) => { state.requests.delete(r.id); emit('requests'); },
  agent_notification: (n) => {
    if (state.notifications.some((x) => x.id === n.id)) return;
    state.notifications.unshift(n);
    state.notifications.length = Math.min(state.notifications.length, MAX_NOTIFICATIONS);
    state.unseen += 1;
    emit('notifications');
    emit('notification', n);
  },
  exec_task_started: (t) => addTask(t),
  exec_task_output: (p) => {
    const t = state.tasks.get(p.taskId);
    if (!t) return;
    t.output += p.output || '';
    if (t.output.length > MAX_TASK_OUTPUT) t.output = t.output.slice(-MAX_TASK_OUTPUT);
    emit('task:' + p.taskId, t);
  },
  exec_task_completed: (p) => {
    const t = state.tasks.get(p.taskId) || {taskId: p.taskId, agentId: p.agentId, output: ''};
    state.tasks.set(p.taskId, {...t, running: false, result: p});
    emit('tasks');
  },
  // The conversation shows where it happened ('blocked:' + agentId), the list a count.
  sandbox_blocked: (p) => {
    const where = hostPort(p.host, p.port);
    const known = state.blocked.get(p.agentId) || {count: 0};
    state.blocked.set(p.agentId, {count: known.count + 1, last: where});
    emit('agents');
    emit('blocked:' + p.agentId, where);
  },
  host_created: (x) => { state.hosts.set(x.name, x); emit('hosts'); },
  host_updated: (x) => { state.hosts.set(x.name, x); emit('hosts'); },
  host_deleted: ({name}) => { if (state.hosts.delete(name)) emit('hosts'); },
  error: (p) => emit('server-error', p),
};

// What a refused connection names: '127.0.0.1:43351', '[::1]:443' (an IPv6 host bracketed, as a
// URL writes it). Repeats of one are counted by it.
export function hostPort(host, port) {
  const h = String(host ?? '');
  return (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h) + ':' + port;
}

// More message types, from the modules that keep their own part of the state (catalog.js).
export function addHandlers(more) {
  Object.assign(handlers, more);
}

export function handleMessage({type, payload}) {
  const fn = handlers[type];
  if (fn && payload !== undefined && payload !== null) fn(payload);
}
