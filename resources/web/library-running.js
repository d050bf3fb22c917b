// The library's sections for what runs beside the agents: hooks (a command on an event, each run
// kept; a failing last run is marked) and buildings (processes the service keeps running, with
// their state, start/stop/restart and a log that loads its tail, then follows building_output).

import {api} from './api.js';
import {itemPath, listOf, putItem, runFailed, sorted} from './catalog.js';
import {formatTime, h} from './dom.js';
import {argvText, checkbox, field, lines, required, select, textInput} from './forms.js';
import {safeUrl} from './markdown.js';
import {state, subscribe} from './store.js';

const badge = (text, cls = '') => h('span', {class: 'badge ' + cls}, text);
const agentName = (id) => (state.agents.get(id) || {}).name || id;
const agentOptions = (none) => [['', none],
  ...[...state.agents.values()].sort((a, b) => a.name.localeCompare(b.name)).map((a) => [a.id, a.name])];

// --- Hooks ----------------------------------------------------------------------------------

const HOOK_EVENTS = ['turn_finished', 'agent_finished', 'agent_error', 'agent_notification', 'permission_request',
  'agent_created', 'exec_finished', 'budget_exceeded', 'worktree_merged'];

export function runOutcome(run) {
  if (run.timedOut) return 'Timed out';
  if (run.error) return 'Error';
  if (run.signal) return `Signal ${run.signal}`;
  return `Exit ${run.exitCode ?? '–'}`;
}

function runItem(run) {
  const failed = runFailed(run);
  return h('li', {class: 'run' + (failed ? ' failed' : ''), dataset: {id: run.id}},
    h('div', {class: 'item-head'}, badge(runOutcome(run), failed ? 'status-error' : 'status-idle'),
      h('span', {class: 'muted small'}, [run.event, run.agentId ? agentName(run.agentId) : '', formatTime(run.startedAt),
        run.durationMs !== undefined ? `${run.durationMs} ms` : ''].filter(Boolean).join(' · '))),
    run.error ? h('p', {class: 'error small'}, run.error) : null,
    run.output ? h('details', null, h('summary', null, 'Output' + (run.outputTruncated ? ' (first 64 KiB)' : '')),
      h('pre', {class: 'run-output'}, run.output)) : null);
}

// A hook's runs, newest first: loaded once, then each hook_run of the hook on top.
function runsPanel(hook) {
  const list = h('ul', {class: 'runs', dataset: {hook: hook.id}, 'aria-label': `Runs of ${hook.name}`});
  const status = h('p', {class: 'muted small'}, 'Loading runs…');
  const seen = new Set();
  const add = (run, onTop) => {
    if (!run || seen.has(run.id)) return;
    seen.add(run.id);
    if (onTop) list.prepend(runItem(run)); else list.append(runItem(run));
    status.hidden = true;
  };
  const off = subscribe('hook-run:' + hook.id, (run) => add(run, true));
  api('GET', itemPath('hooks', hook) + '/runs').then((r) => {
    const runs = listOf(r, 'runs').sort((a, b) => (b.startedAt || 0) - (a.startedAt || 0));
    for (const run of runs) add(run, false);
    status.textContent = 'No runs yet.';
    status.hidden = seen.size > 0;
  }, (e) => { status.textContent = 'Could not load the runs: ' + e.message; });
  return {el: h('div', {class: 'panel'}, status, list), close: off};
}

function hookEditor(k) {
  const f = (k && k.filter) || {};
  const name = textInput({id: 'hook-name', value: k ? k.name : ''});
  const event = select(HOOK_EVENTS.map((e) => [e, e]), k ? k.event : 'turn_finished', {id: 'hook-event'});
  const command = h('textarea', {id: 'hook-command', rows: 3, class: 'mono', spellcheck: 'false',
    value: ((k && k.command) || []).join('\n')});
  const cwd = textInput({id: 'hook-cwd', value: (k && k.cwd) || '', placeholder: 'agent, or /an/absolute/path'});
  const timeout = h('input', {type: 'number', id: 'hook-timeout', min: 1, max: 300, value: (k && k.timeoutSeconds) || 30});
  const enabled = checkbox('Enabled', !k || k.enabled !== false, {id: 'hook-enabled'});
  const agent = select(agentOptions('Any agent'), f.agentId, {id: 'hook-agent'});
  const cls = textInput({id: 'hook-class', value: f.class || '', list: 'hook-class-options'});
  return {
    read: async () => {
      const argv = lines(command.value);
      if (!argv.length) throw new Error('Command is required: the program, then one argument per line.');
      const filter = {...f};
      for (const [key, v] of [['agentId', agent.value], ['class', cls.value.trim()]]) {
        if (v) filter[key] = v; else delete filter[key];
      }
      return {name: required(name, 'Name'), event: event.value, filter, command: argv,
        cwd: cwd.value.trim() || null, timeoutSeconds: Number(timeout.value) || 30, enabled: enabled.input.checked};
    },
    el: h('div', {class: 'fields'}, field('Name', name), field('When', event),
      field('Command', command, 'No shell: the program on the first line, one argument per line. The event arrives as JSON on stdin.'),
      field('Working directory', cwd, 'agent: the agent’s; empty: the service’s.'),
      field('Timeout (s)', timeout), enabled.el,
      h('fieldset', {class: 'group'}, h('legend', null, 'Only for'), field('Agent', agent), field('Class', cls),
        h('datalist', {id: 'hook-class-options'}, sorted('classes').map((c) => h('option', {value: c.slug}, c.name))))),
  };
}

export function hookSpec() {
  return {
    kind: 'hooks', noun: 'hook', title: 'Hooks', empty: 'No hooks yet.',
    intro: 'A hook runs a command when something happens to an agent; every run is kept.',
    rowClass: (k) => (runFailed(k.lastRun) ? 'failed' : ''),
    row: (k) => {
      const last = k.lastRun;
      const failed = runFailed(last);
      const f = k.filter || {};
      return [
        h('div', {class: 'item-head'}, h('strong', null, k.name), badge(k.event), k.enabled === false ? badge('disabled', 'muted') : null,
          last ? badge((failed ? 'Last run failed: ' : 'Last run: ') + runOutcome(last),
            'last-run ' + (failed ? 'status-error' : 'status-idle')) : null),
        h('code', {class: 'command'}, argvText(k.command)),
        h('p', {class: 'muted small'}, [f.agentId && 'agent ' + agentName(f.agentId), f.class && 'class ' + f.class,
          k.cwd && 'in ' + k.cwd, `timeout ${k.timeoutSeconds || 30} s`, last && 'last ' + formatTime(last.startedAt)]
          .filter(Boolean).join(' · ')),
      ];
    },
    panel: {label: 'Runs', open: runsPanel},
    editor: hookEditor,
  };
}

// --- Buildings ------------------------------------------------------------------------------

const STATE_LABEL = {stopped: 'Stopped', starting: 'Starting', running: 'Running', exited: 'Exited', crashed: 'Crashed'};
const STATE_CLASS = {running: 'status-idle', starting: 'status-working', crashed: 'status-error', exited: 'status-stopped',
  stopped: 'status-stopped'};
const MAX_LOG_CHARS = 512 * 1024;

// The logs answer as [{text, stream?}]: text, {text}, or lines (strings or {text, stream}).
function logParts(r) {
  if (typeof r === 'string') return [{text: r}];
  if (r && typeof r.text === 'string') return [{text: r.text}];
  const nl = (t) => (t.endsWith('\n') ? t : t + '\n');
  return listOf(r, 'lines').map((l) => (typeof l === 'string' ? {text: nl(l)}
    : {text: nl(String(l.text ?? '')), stream: l.stream}));
}

// The tail of a building's log, then what it writes; stderr marked. Sticks to the bottom unless
// scrolled up.
function logPanel(b) {
  const pre = h('pre', {class: 'log', role: 'log', tabindex: '0', dataset: {building: b.id},
    'aria-label': `Log of ${b.name}`});
  const status = h('p', {class: 'muted small'}, 'Loading the log…');
  let stick = true;
  let top = 0;
  let chars = 0;
  pre.addEventListener('scroll', () => {
    stick = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 40;
    top = pre.scrollTop;
  }, {passive: true});
  const add = ({text, stream}) => {
    if (!text) return;
    pre.append(stream === 'stderr' ? h('span', {class: 'stderr'}, text) : document.createTextNode(text));
    chars += text.length;
    while (chars > MAX_LOG_CHARS && pre.firstChild) {
      chars -= pre.firstChild.textContent.length;
      pre.firstChild.remove();
    }
    if (stick) pre.scrollTop = pre.scrollHeight;
  };
  let early = []; // output that came while the tail was loading
  const off = subscribe('building-output:' + b.id, (p) => (early ? early.push(p) : add(p)));
  api('GET', `${itemPath('buildings', b)}/logs?tail=500`).then((r) => {
    for (const part of logParts(r)) add(part);
    status.textContent = r && r.truncated ? 'The newest 500 lines, then what it prints.' : 'Following the log.';
  }, (e) => { status.textContent = 'Could not load the log: ' + e.message; }).finally(() => {
    const queued = early;
    early = null;
    for (const p of queued) add(p);
  });
  return {el: h('div', {class: 'panel log-panel'}, status, pre), close: off,
    moved: () => { pre.scrollTop = stick ? pre.scrollHeight : top; }};
}

function buildingEditor(b) {
  const name = textInput({id: 'building-name', value: b ? b.name : ''});
  const cwd = textInput({id: 'building-cwd', value: b ? b.cwd : ''});
  const command = h('textarea', {id: 'building-command', rows: 3, class: 'mono', spellcheck: 'false',
    value: ((b && b.command) || []).join('\n')});
  const env = h('textarea', {id: 'building-env', rows: 2, class: 'mono', spellcheck: 'false',
    value: Object.entries((b && b.env) || {}).map(([k, v]) => `${k}=${v}`).join('\n')});
  const autostart = checkbox('Start with the service', b && b.autostart, {id: 'building-autostart'});
  const restart = select([['no', 'Never'], ['on-failure', 'When it fails'], ['always', 'Always']],
    (b && b.restart) || 'on-failure', {id: 'building-restart'});
  const url = h('input', {type: 'url', id: 'building-url', value: (b && b.url) || '', placeholder: 'http://localhost:5173'});
  const agent = select(agentOptions('No agent'), b && b.agentId, {id: 'building-agent'});
  return {
    read: async () => {
      const argv = lines(command.value);
      if (!argv.length) throw new Error('Command is required: the program, then one argument per line.');
      const vars = {};
      lines(env.value).forEach((l, i) => {
        const eq = l.indexOf('=');
        if (eq < 1) throw new Error(`Environment line ${i + 1}: write NAME=value.`);
        vars[l.slice(0, eq).trim()] = l.slice(eq + 1);
      });
      const body = {name: required(name, 'Name'), command: argv, env: vars, autostart: autostart.input.checked,
        restart: restart.value, url: url.value.trim() || null, agentId: agent.value || null};
      // With an agent the building runs in the agent's directory unless one is given.
      if (cwd.value.trim() || !agent.value) body.cwd = required(cwd, 'Directory');
      else if (b) body.cwd = null;
      return body;
    },
    el: h('div', {class: 'fields'}, field('Name', name),
      field('Directory', cwd, 'Empty with an agent: the agent’s directory.'),
      field('Command', command, 'No shell: the program on the first line, one argument per line.'),
      field('Environment', env, 'NAME=value, one a line; {{SECRET}} names a stored secret.'),
      autostart.el, field('Restart', restart), field('URL', url), field('Agent', agent)),
  };
}

function buildingActions(b, showError) {
  const stopped = ['stopped', 'exited', 'crashed'].includes(b.state);
  return [['start', 'Start', !stopped], ['stop', 'Stop', stopped], ['restart', 'Restart', false]].map(([op, text, off]) => {
    const button = h('button', {type: 'button', class: 'op-' + op, disabled: off, onclick: async () => {
      button.disabled = true;
      showError(null);
      try {
        putItem('buildings', await api('POST', `${itemPath('buildings', b)}/${op}`));
      } catch (e) {
        showError(e);
        button.disabled = false;
      }
    }}, text);
    return button;
  });
}

export function buildingSpec() {
  return {
    kind: 'buildings', noun: 'building', title: 'Buildings', empty: 'No buildings yet.',
    intro: 'Processes the service keeps running beside the agents: a dev server, a database, a watcher.',
    rowClass: (b) => 'state-' + b.state,
    row: (b) => {
      const href = b.url && safeUrl(b.url);
      return [
        h('div', {class: 'item-head'}, h('strong', null, b.name),
          badge(STATE_LABEL[b.state] || b.state || '?', 'building-state ' + (STATE_CLASS[b.state] || 'status-unknown')),
          href ? h('a', {href, target: '_blank', rel: 'noopener noreferrer', class: 'building-url'}, b.url) : null),
        h('code', {class: 'command'}, argvText(b.command)),
        h('p', {class: 'muted small'}, [b.cwd, b.agentId && 'agent ' + agentName(b.agentId), b.pid && 'pid ' + b.pid,
          b.state === 'running' && b.startedAt && 'since ' + formatTime(b.startedAt),
          b.restarts ? `${b.restarts} restart${b.restarts === 1 ? '' : 's'}` : '',
          b.exitCode !== null && b.exitCode !== undefined && `exit ${b.exitCode}`, b.autostart && 'autostart']
          .filter(Boolean).join(' · ')),
      ];
    },
    actions: buildingActions,
    panel: {label: 'Logs', open: logPanel},
    editor: buildingEditor,
  };
}
