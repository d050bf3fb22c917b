// The new-agent form of the agents screen: name, host, directory, provider, class (one of the
// service's classes or any label: a class the service does not define is only a label), skills
// and the agent's own standing instructions. On another host the directory is that machine's: it
// is not checked here, and each host remembers its own last one.

import {api} from './api.js';
import {sorted} from './catalog.js';
import {h} from './dom.js';
import {checkbox, errorText, field, required, select, skillChecks, textInput} from './forms.js';
import {LOCAL, hostNames} from './hosts.js';
import {classIcon} from './icons.js';
import {state} from './store.js';

const LAST_CWD = 'flotilla.lastCwd';

const cwdKey = (host) => (host === LOCAL ? LAST_CWD : `${LAST_CWD}.${host}`);
function remembered(host) {
  try { return localStorage.getItem(cwdKey(host)) || ''; } catch { return ''; }
}

export function newAgentForm(ctx, close) {
  const name = textInput({id: 'new-agent-name', required: true, maxlength: 100});
  const cwd = textInput({id: 'new-agent-cwd', required: true, value: remembered(LOCAL), placeholder: '/home/me/project'});
  const host = select(hostNames().map((n) => [n, n === LOCAL ? 'This machine (local)'
    : `${n} (${(state.hosts.get(n) || {}).state || '?'})`]), LOCAL, {id: 'new-agent-host'});
  const cwdHint = h('small', {class: 'muted', id: 'new-agent-cwd-hint'});
  const provider = select([['', 'The class’s, else Claude Code'], ['claude', 'Claude Code'], ['codex', 'Codex']], '',
    {id: 'new-agent-provider'});
  const cls = textInput({id: 'new-agent-class', list: 'new-agent-class-options', placeholder: 'builder'});
  const classes = h('datalist', {id: 'new-agent-class-options'},
    sorted('classes').map((c) => h('option', {value: c.slug}, c.name || c.slug)));
  const about = h('p', {class: 'muted small class-about', id: 'new-agent-class-about'});
  const showClass = () => {
    const c = state.classes.get(cls.value.trim());
    about.replaceChildren(...(c ? [classIcon(c.slug, 20), ' ', c.description || c.name || c.slug,
      (c.skills || []).length ? ` · skills: ${c.skills.join(', ')}` : ''].filter(Boolean)
      : cls.value.trim() ? ['Not a defined class: kept as a label.'] : []));
  };
  cls.addEventListener('input', showClass);
  const skills = skillChecks([], 'new-agent');
  const instructions = h('textarea', {id: 'new-agent-instructions', rows: 4,
    placeholder: 'Standing instructions for this agent (markdown), after its class’s.'});
  const worktree = checkbox('Its own git worktree', false, {id: 'new-agent-worktree'});
  // What another host cannot do yet (docs/api.md "Hosts"): no worktree, no skills there.
  let shownHost = LOCAL;
  const showHost = () => {
    const remote = host.value !== LOCAL;
    if (cwd.value.trim() === remembered(shownHost)) cwd.value = remembered(host.value);
    shownHost = host.value;
    cwdHint.textContent = remote ? `A directory on ${host.value} (absolute; checked there when the agent starts). `
      + 'No worktree, no skills there yet.' : 'An existing directory on the service’s machine.';
    worktree.input.disabled = remote;
    if (remote) worktree.input.checked = false;
  };
  host.addEventListener('change', showHost);
  showHost();
  const cwdField = field('Directory', cwd);
  cwdField.append(cwdHint);
  const error = h('p', {class: 'error', role: 'alert', id: 'new-agent-error'});
  error.hidden = true;
  const create = h('button', {type: 'submit', class: 'primary', id: 'new-agent-create'}, 'Create');
  const form = h('form', {class: 'editor card', id: 'new-agent-form', novalidate: true},
    h('h2', null, 'New agent'),
    h('div', {class: 'fields'}, field('Name', name), hostNames().length > 1 ? field('Host', host) : null, cwdField,
      field('Class', cls), classes, about, field('Provider', provider), skills.el,
      field('Instructions', instructions), worktree.el),
    error, h('div', {class: 'actions'}, create, h('button', {type: 'button', onclick: close}, 'Cancel')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.hidden = true;
    create.disabled = true;
    try {
      const body = {name: required(name, 'Name'), cwd: required(cwd, 'Directory')};
      if (host.value !== LOCAL) body.host = host.value;
      if (cls.value.trim()) body.class = cls.value.trim();
      if (provider.value) body.provider = provider.value;
      const picked = skills.value();
      if (picked.length) body.skills = picked;
      if (instructions.value.trim()) body.customInstructions = instructions.value;
      if (worktree.input.checked) body.worktree = true;
      const agent = await api('POST', '/api/agents', body);
      try { localStorage.setItem(cwdKey(host.value), body.cwd); } catch { /* private mode */ }
      ctx.toast(`Created ${agent.name}`);
      close(agent);
    } catch (err) {
      error.textContent = errorText(err);
      error.dataset.code = err.code || '';
      error.hidden = false;
    } finally {
      create.disabled = false;
    }
  });
  queueMicrotask(() => name.focus());
  return form;
}
