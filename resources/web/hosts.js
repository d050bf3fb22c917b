// Hosts (docs/api.md "Hosts"): the machines agents run on over SSH, `local` being the service's
// own. The Hosts view lists each with its connection's state and why it is down, checks one
// (latency, the CLIs' versions there), adds, edits and removes one; the agents' host badge and
// the host choices of the agent list and the new-agent form come from here too.

import {api} from './api.js';
import {h} from './dom.js';
import {errorText, field, required, textInput} from './forms.js';
import {emit, setHosts, state, subscribe} from './store.js';

export const LOCAL = 'local';
export const hostOf = (a) => a.host || LOCAL;
// The agent list's host filter ('' for all): here so that a host's agent count can set it.
export const listFilter = {host: ''};

// On every connection; a service without hosts (an older flotillad) leaves the map empty.
export function loadHosts() {
  return api('GET', '/api/hosts').then((r) => setHosts(Array.isArray(r) ? r : []), () => setHosts([]));
}

// Every host the page knows, `local` first: the service's, then any only an agent names.
export function hostNames() {
  const names = new Set([LOCAL, ...state.hosts.keys()]);
  for (const a of state.agents.values()) names.add(hostOf(a));
  return [...names];
}

// 'box: unreachable (Connection refused)'; the bare name while the page does not know it.
export function hostText(name) {
  const x = state.hosts.get(name);
  return x ? `${name}: ${x.state}${x.error ? ` (${x.error})` : ''}` : name;
}

// The list's mark for an agent on another machine (its state colours it); null for `local`.
export function hostBadge(a) {
  const name = hostOf(a);
  if (name === LOCAL) return null;
  const x = state.hosts.get(name);
  return h('span', {class: 'badge host', dataset: {host: name, state: (x && x.state) || ''},
    title: 'Host ' + hostText(name)}, name);
}

const agentsOn = (name) => [...state.agents.values()].filter((a) => hostOf(a) === name).length;
const hostPath = (name) => '/api/hosts/' + encodeURIComponent(name);

// What POST /api/hosts/:name/check answered (or its refusal), under the host.
function checkResult(c) {
  if (c === 'checking') return h('p', {class: 'muted check-result'}, 'Checking…');
  if (c instanceof Error) return h('p', {class: 'error check-result'}, 'Check failed: ' + errorText(c));
  if (!c.reachable) {
    return h('p', {class: 'error check-result', dataset: {reachable: '0'}}, 'Unreachable: ' + (c.error || 'no reason given'));
  }
  return h('div', {class: 'check-result', dataset: {reachable: '1'}},
    h('p', null, `Reachable in ${c.latencyMs} ms as ${c.user || '?'} (home ${c.home || '?'})`),
    h('dl', {class: 'versions'}, ['claude', 'codex', 'git'].map((k) =>
      [h('dt', null, k), h('dd', {dataset: {tool: k}, class: c[k] ? '' : 'muted'}, c[k] || 'not found')])));
}

function hostEditor(x, ctx, close) {
  const name = textInput({id: 'host-name', value: x ? x.name : '', maxlength: 40, placeholder: 'box', disabled: !!x});
  const ssh = textInput({id: 'host-ssh', value: x ? x.ssh : '', placeholder: 'me@box.example:22'});
  const claude = textInput({id: 'host-claude', value: (x && x.claudeBin) || '', placeholder: 'claude'});
  const codex = textInput({id: 'host-codex', value: (x && x.codexBin) || '', placeholder: 'codex'});
  const max = h('input', {type: 'number', id: 'host-max', min: 1, max: 1000, value: (x && x.maxAgents) || '',
    placeholder: 'no limit'});
  const error = h('p', {class: 'error', role: 'alert', id: 'host-form-error'});
  error.hidden = true;
  const save = h('button', {type: 'submit', class: 'primary', id: 'host-save'}, x ? 'Save' : 'Add');
  const form = h('form', {class: 'editor card', id: 'host-form', novalidate: true},
    h('h2', null, x ? 'Edit ' + x.name : 'New host'),
    h('div', {class: 'fields'}, field('Name', name, 'a-z, 0-9 and -, e.g. box'),
      field('SSH destination', ssh, 'user@host[:port] or an alias of the ssh config. Its key must be in known_hosts and the login needs no prompt.'),
      field('Claude Code there', claude, 'Empty: claude on that host’s PATH.'),
      field('Codex there', codex, 'Empty: codex on that host’s PATH.'), field('At most this many agents', max)),
    error, h('div', {class: 'actions'}, save, h('button', {type: 'button', onclick: close}, 'Cancel')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hidden = true;
    save.disabled = true;
    try {
      const body = {ssh: required(ssh, 'SSH destination'), claudeBin: claude.value.trim() || null,
        codexBin: codex.value.trim() || null, maxAgents: max.value ? Number(max.value) : null};
      if (!x) body.name = required(name, 'Name');
      const saved = await api(x ? 'PATCH' : 'POST', x ? hostPath(x.name) : '/api/hosts', body);
      state.hosts.set(saved.name, saved);
      emit('hosts');
      ctx.toast(`${x ? 'Saved' : 'Added'} host ${saved.name}`);
      close();
    } catch (err) {
      error.textContent = errorText(err);
      error.dataset.code = err.code || '';
      error.hidden = false;
    } finally {
      save.disabled = false;
    }
  });
  queueMicrotask(() => (x ? ssh : name).focus());
  return form;
}

export function hostsView(main, params, ctx) {
  const error = h('p', {class: 'error', role: 'alert', id: 'hosts-error'});
  error.hidden = true;
  const editorBox = h('div');
  const empty = h('p', {class: 'empty'}, 'This service has no hosts (an older flotillad).');
  const list = h('ul', {class: 'catalog', id: 'host-list', 'aria-label': 'Hosts'});
  const close = () => { editorBox.replaceChildren(); add.hidden = false; };
  const openEditor = (x) => {
    showError(null);
    editorBox.replaceChildren(hostEditor(x, ctx, close));
    add.hidden = true;
  };
  const add = h('button', {type: 'button', class: 'primary', id: 'host-new', onclick: () => openEditor(null)}, 'New host');
  main.append(h('section', {class: 'view'}, h('div', {class: 'view-head'}, h('h1', null, 'Hosts'), add),
    h('p', {class: 'muted'}, 'Machines the agents run on, over SSH: only the agent CLIs, sh and git are needed there.'),
    error, editorBox, empty, list));
  const checks = new Map(); // name -> 'checking' | the check's answer | its error
  const armed = new Set(); // hosts whose Delete was tapped once
  const rows = new Map(); // name -> {li, sigs}: what each part of the row last showed

  const showError = (e) => {
    error.hidden = !e;
    error.textContent = e ? errorText(e) : '';
    error.dataset.code = (e && e.code) || '';
  };
  const check = async (name) => {
    checks.set(name, 'checking');
    render();
    try {
      checks.set(name, await api('POST', hostPath(name) + '/check'));
    } catch (e) {
      checks.set(name, e);
    }
    render();
  };
  // Two taps: the first arms the button, the second deletes (no blocking dialog on a phone).
  const remove = async (name) => {
    showError(null);
    if (!armed.has(name)) {
      armed.add(name);
      render();
      return;
    }
    armed.delete(name);
    try {
      await api('DELETE', hostPath(name));
      if (state.hosts.delete(name)) emit('hosts');
      ctx.toast('Removed host ' + name);
    } catch (e) {
      showError(e); // host_in_use names the agents still there
      render();
    }
  };

  // A row is its facts and its buttons, each rebuilt only when what it shows changed: a host
  // retrying its connection never swaps a button away under a finger.
  const facts = (x) => {
    const n = agentsOn(x.name);
    const c = checks.get(x.name);
    const bins = [x.claudeBin && 'claude: ' + x.claudeBin, x.codexBin && 'codex: ' + x.codexBin,
      x.maxAgents && `at most ${x.maxAgents} agents`].filter(Boolean).join(' · ');
    return h('div', null, h('div', {class: 'item-head'}, h('strong', null, x.name),
      h('span', {class: 'badge host-state', dataset: {state: x.state}}, x.state),
      h('a', {href: '/', 'data-nav': true, class: 'host-agents', onclick: () => { listFilter.host = x.name; }},
        `${n} agent${n === 1 ? '' : 's'}`)),
    h('p', {class: 'small'}, x.name === LOCAL ? 'This machine' : h('code', {class: 'host-ssh'}, x.ssh)),
    bins ? h('p', {class: 'muted small'}, bins) : null,
    x.error ? h('p', {class: 'error small host-error'}, x.error) : null,
    c ? checkResult(c) : null);
  };
  const buttons = (name) => h('div', {class: 'actions'},
    h('button', {type: 'button', class: 'check', disabled: checks.get(name) === 'checking', onclick: () => check(name)},
      'Check'),
    name === LOCAL ? null : [
      h('button', {type: 'button', class: 'edit', onclick: () => openEditor(state.hosts.get(name))}, 'Edit'),
      h('button', {type: 'button', class: 'deny delete' + (armed.has(name) ? ' armed' : ''), onclick: () => remove(name)},
        armed.has(name) ? 'Tap again to remove' : 'Remove')]);

  const render = () => {
    const hosts = [...state.hosts.values()];
    for (const [name, r] of rows) {
      if (state.hosts.has(name)) continue;
      r.li.remove();
      rows.delete(name);
      checks.delete(name);
      armed.delete(name);
    }
    hosts.forEach((x, i) => {
      const c = checks.get(x.name);
      const sigs = [JSON.stringify([x, agentsOn(x.name), c instanceof Error ? c.message : c]),
        `${c === 'checking'} ${armed.has(x.name)}`];
      let r = rows.get(x.name);
      if (!r) {
        r = {li: h('li', {class: 'card item host-item', dataset: {key: x.name}}), sigs: []};
        rows.set(x.name, r);
      }
      r.li.dataset.state = x.state;
      [facts, buttons].forEach((make, k) => {
        if (r.sigs[k] === sigs[k]) return;
        r.sigs[k] = sigs[k];
        const part = make(k ? x.name : x);
        if (r.li.children[k]) r.li.children[k].replaceWith(part); else r.li.append(part);
      });
      if (list.children[i] !== r.li) list.insertBefore(r.li, list.children[i] || null);
    });
    empty.hidden = hosts.length > 0;
    add.disabled = !hosts.length;
  };
  render();
  const offs = ['hosts', 'agents'].map((t) => subscribe(t, render));
  return () => { for (const off of offs) off(); };
}
