// The library's sections for what shapes agents: classes (defaults, instructions, skills, an
// icon), skills (SKILL.md bodies, edited beside their rendered preview) and saved prompts.

import {sorted} from './catalog.js';
import {clip, h} from './dom.js';
import {checkbox, field, readBase64, required, select, skillChecks, textInput, words} from './forms.js';
import {classIcon} from './icons.js';
import {renderMarkdown} from './markdown.js';
import {state} from './store.js';

const MAX_ICON_BYTES = 64 * 1024;
const ICON_TYPES = {png: 'image/png', svg: 'image/svg+xml'};

const badge = (text, cls = '') => h('span', {class: 'badge ' + cls}, text);
const textarea = (attrs) => h('textarea', {spellcheck: 'false', ...attrs});
const skillName = (slug) => (state.skills.get(slug) || {}).name || slug;

// --- Classes --------------------------------------------------------------------------------

function defaultsText(d) {
  if (!d) return '';
  return [d.provider, d.model, d.permissionMode && `permissions: ${d.permissionMode}`,
    d.idleTimeoutSeconds && `idle ${d.idleTimeoutSeconds} s`, d.worktree && 'own worktree']
    .filter(Boolean).join(' · ');
}

function classEditor(c) {
  const d = (c && c.defaults) || {};
  const slug = textInput({id: 'class-slug', value: c ? c.slug : '', pattern: '[a-z][a-z0-9-]{0,39}', maxlength: 40});
  slug.disabled = !!c;
  const name = textInput({id: 'class-name', value: c ? c.name : ''});
  const description = textarea({id: 'class-description', rows: 2, value: (c && c.description) || ''});
  const instructions = textarea({id: 'class-instructions', rows: 6, value: (c && c.instructions) || ''});
  const provider = select([['', 'Service default'], ['claude', 'Claude Code'], ['codex', 'Codex']], d.provider,
    {id: 'class-provider'});
  const model = textInput({id: 'class-model', value: d.model || ''});
  const permission = select([['', 'Service default'], ['ask', 'Ask'], ['auto', 'Auto']], d.permissionMode,
    {id: 'class-permission'});
  const idle = h('input', {type: 'number', id: 'class-idle', min: 0, value: d.idleTimeoutSeconds ?? ''});
  const worktree = checkbox('Each agent gets its own git worktree', !!d.worktree, {id: 'class-worktree'});
  const skills = skillChecks(c && c.skills, 'class');
  const allowed = textInput({id: 'class-allowed', value: ((c && c.allowedTools) || []).join(', ')});
  const disallowed = textInput({id: 'class-disallowed', value: ((c && c.disallowedTools) || []).join(', ')});
  const icon = h('input', {type: 'file', id: 'class-icon-file', accept: 'image/png,image/svg+xml,.png,.svg'});
  const dropIcon = checkbox('Remove the icon', false, {id: 'class-icon-remove'});
  dropIcon.el.hidden = !(c && c.hasIcon);

  const read = async () => {
    const body = {};
    if (!c) body.slug = required(slug, 'Slug');
    if (name.value.trim() && !(c && c.builtin && name.value.trim() === c.name)) body.name = name.value.trim();
    body.description = description.value;
    body.instructions = instructions.value;
    const defaults = {...d};
    const set = (k, v) => { if (v === '' || v === null || v === undefined) delete defaults[k]; else defaults[k] = v; };
    set('provider', provider.value);
    set('model', model.value.trim());
    set('permissionMode', permission.value);
    set('idleTimeoutSeconds', idle.value === '' ? '' : Number(idle.value));
    set('worktree', worktree.input.checked ? d.worktree || true : '');
    body.defaults = defaults;
    body.skills = skills.value();
    const allow = words(allowed.value);
    const deny = words(disallowed.value);
    if (c || allow) body.allowedTools = allow;
    if (c || deny) body.disallowedTools = deny;
    const file = icon.files && icon.files[0];
    if (file) {
      const ext = (file.name.split('.').pop() || '').toLowerCase();
      const mediaType = Object.values(ICON_TYPES).includes(file.type) ? file.type : ICON_TYPES[ext];
      if (!mediaType) throw new Error('The icon must be a PNG or an SVG file.');
      if (file.size > MAX_ICON_BYTES) throw new Error('The icon is over 64 KiB.');
      body.icon = {mediaType, dataBase64: await readBase64(file)};
    } else if (dropIcon.input.checked) {
      body.icon = null;
    }
    return body;
  };
  return {
    read,
    el: h('div', {class: 'fields'},
      field('Slug', slug, c ? 'The slug of a class does not change.' : 'Lower case letters, digits and -; what agents name as their class.'),
      field('Name', name), field('Description', description),
      field('Instructions', instructions, 'Markdown; reaches every agent of the class after the area’s instructions.'),
      h('fieldset', {class: 'group'}, h('legend', null, 'Defaults for new agents'),
        field('Provider', provider), field('Model', model), field('Permissions', permission),
        field('Idle timeout (s)', idle), worktree.el),
      skills.el,
      field('Allowed tools', allowed, 'Comma-separated; empty: the agent’s own.'),
      field('Disallowed tools', disallowed),
      field('Icon', icon, 'PNG or SVG, at most 64 KiB.'),
      c && c.hasIcon ? h('p', {class: 'current-icon'}, classIcon(c.slug, 40), ' current icon') : null,
      dropIcon.el),
  };
}

export function classSpec() {
  return {
    kind: 'classes', noun: 'class', title: 'Classes', empty: 'No classes.',
    intro: 'A class gives its agents a role: defaults, instructions, skills and an icon.',
    canDelete: (c) => !c.builtin,
    row: (c) => [
      h('div', {class: 'item-head'}, classIcon(c.slug, 28), h('strong', null, c.name || c.slug),
        h('code', null, c.slug), c.builtin ? badge('built-in', 'muted') : null),
      c.description ? h('p', null, c.description) : null,
      h('p', {class: 'muted small'}, [defaultsText(c.defaults),
        (c.skills || []).length ? 'skills: ' + c.skills.map(skillName).join(', ') : '',
        c.instructions ? 'instructions: ' + clip(c.instructions.replace(/\s+/g, ' '), 80) : '']
        .filter(Boolean).join(' · ')),
    ],
    editor: classEditor,
    topics: ['skills'],
  };
}

// --- Skills ---------------------------------------------------------------------------------

function skillEditor(s) {
  const slug = textInput({id: 'skill-slug', value: s ? s.slug : '', maxlength: 40});
  slug.disabled = !!s;
  const name = textInput({id: 'skill-name', value: s ? s.name : ''});
  const description = textarea({id: 'skill-description', rows: 2, value: (s && s.description) || ''});
  const content = textarea({id: 'skill-content', rows: 14, class: 'mono', value: (s && s.content) || ''});
  const allowed = textInput({id: 'skill-allowed', value: ((s && s.allowedTools) || []).join(', ')});
  const enabled = checkbox('Enabled', !s || s.enabled !== false, {id: 'skill-enabled'});
  // The preview goes through the page's markdown renderer: DOM nodes, never parsed HTML.
  const preview = h('div', {class: 'msg preview', id: 'skill-preview', 'aria-label': 'Preview'});
  let frame = 0;
  const paint = () => { frame = 0; preview.replaceChildren(renderMarkdown(content.value)); };
  content.addEventListener('input', () => { if (!frame) frame = requestAnimationFrame(paint); });
  paint();
  return {
    read: async () => {
      const body = {};
      if (!s) body.slug = required(slug, 'Slug');
      body.name = name.value.trim() || (s ? s.name : body.slug);
      body.description = required(description, 'Description');
      body.content = content.value;
      const allow = words(allowed.value);
      if (s || allow) body.allowedTools = allow;
      body.enabled = enabled.input.checked;
      return body;
    },
    el: h('div', {class: 'fields'},
      field('Slug', slug), field('Name', name),
      field('Description', description, 'The model sees the name and this line until it uses the skill.'),
      h('div', {class: 'split'}, field('SKILL.md', content), h('div', {class: 'field'}, h('span', {class: 'label'}, 'Preview'), preview)),
      field('Allowed tools', allowed, 'Comma-separated; empty: none added.'), enabled.el),
  };
}

export function skillSpec() {
  return {
    kind: 'skills', noun: 'skill', title: 'Skills', empty: 'No skills yet.',
    intro: 'A skill is instructions the model loads when it needs them; give it to agents or classes.',
    rowClass: (s) => (s.enabled === false ? 'disabled' : ''),
    row: (s) => [
      h('div', {class: 'item-head'}, h('strong', null, s.name || s.slug), h('code', null, s.slug),
        s.enabled === false ? badge('disabled', 'muted') : null),
      h('p', null, s.description || ''),
    ],
    editor: skillEditor,
  };
}

// --- Saved prompts --------------------------------------------------------------------------

function scopeOf(p) {
  const s = (p && p.scope) || {};
  return s.agentId ? 'agent:' + s.agentId : s.class ? 'class:' + s.class : '';
}

export function scopeText(p) {
  const s = (p && p.scope) || {};
  if (s.agentId) return 'agent ' + ((state.agents.get(s.agentId) || {}).name || s.agentId);
  if (s.class) return 'class ' + ((state.classes.get(s.class) || {}).name || s.class);
  return 'every agent';
}

function promptEditor(p) {
  const name = textInput({id: 'prompt-name', value: p ? p.name : '', maxlength: 100});
  const text = textarea({id: 'prompt-text', rows: 6, value: p ? p.text : ''});
  const current = scopeOf(p);
  const classes = sorted('classes').map((c) => ['class:' + c.slug, c.name || c.slug]);
  const agents = [...state.agents.values()].sort((a, b) => a.name.localeCompare(b.name)).map((a) => ['agent:' + a.id, a.name]);
  const scope = h('select', {id: 'prompt-scope'}, h('option', {value: ''}, 'Every agent'),
    h('optgroup', {label: 'Agents of class'}, classes.map(([v, l]) => h('option', {value: v}, l))),
    h('optgroup', {label: 'One agent'}, agents.map(([v, l]) => h('option', {value: v}, l))));
  if (current && ![...classes, ...agents].some(([v]) => v === current)) {
    scope.append(h('option', {value: current}, current.replace(':', ' ')));
  }
  scope.value = current;
  return {
    read: async () => {
      const [kind, value] = scope.value.split(/:(.*)/s);
      return {name: required(name, 'Name'), text: required(text, 'Text'),
        scope: kind === 'agent' ? {agentId: value} : kind === 'class' ? {class: value} : {}};
    },
    el: h('div', {class: 'fields'}, field('Name', name), field('Text', text), field('Offered to', scope)),
  };
}

export function promptSpec() {
  return {
    kind: 'prompts', noun: 'prompt', title: 'Prompts', empty: 'No saved prompts yet.',
    intro: 'Prompts you send often, offered in the message box of the agents they are for.',
    row: (p) => [
      h('div', {class: 'item-head'}, h('strong', null, p.name), h('span', {class: 'muted small'}, 'for ' + scopeText(p))),
      h('p', {class: 'clip'}, clip(p.text || '', 240)),
    ],
    editor: promptEditor,
    topics: ['agents', 'classes'],
  };
}
