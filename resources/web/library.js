// The library: what shapes agents (classes, skills, saved prompts) and what runs beside them
// (hooks, buildings), one section at a time at /library/<section>. Each section lists what the
// service holds, follows its events, edits an item in a form above the list and shows the
// service's refusal (a class in use, a bad icon...) as the service words it.

import {api} from './api.js';
import {KINDS, itemPath, putItem, sorted} from './catalog.js';
import {clear, h} from './dom.js';
import {errorText} from './forms.js';
import {buildingSpec, hookSpec} from './library-running.js';
import {classSpec, promptSpec, skillSpec} from './library-shaping.js';
import {emit, state, subscribe} from './store.js';

const SECTIONS = [
  {id: 'classes', title: 'Classes', spec: classSpec},
  {id: 'skills', title: 'Skills', spec: skillSpec},
  {id: 'prompts', title: 'Prompts', spec: promptSpec},
  {id: 'hooks', title: 'Hooks', spec: hookSpec},
  {id: 'buildings', title: 'Buildings', spec: buildingSpec},
];
let lastSection = 'classes';

export function libraryView(main, params, ctx) {
  const id = SECTIONS.some((s) => s.id === params.section) ? params.section : lastSection;
  lastSection = id;
  const section = SECTIONS.find((s) => s.id === id);
  const tabs = h('div', {class: 'tabs', role: 'navigation', 'aria-label': 'Library sections'},
    SECTIONS.map((s) => h('a', {href: '/library/' + s.id, 'data-nav': true, class: 'tab', dataset: {tab: s.id},
      'aria-current': s.id === id ? 'page' : null}, s.title)));
  const body = h('div', {class: 'library-body', id: 'library-' + id});
  main.append(h('section', {class: 'view library'},
    h('div', {class: 'view-head'}, h('h1', null, 'Library'), h('span', {class: 'muted'}, section.title)), tabs, body));
  return catalogSection(body, ctx, section.spec(ctx));
}

const label = (item) => item.name || item.slug || item.id;

// One kind's list and editor. `spec`: {kind, noun, title, intro, empty, row(item) -> nodes,
// editor(item | null) -> {el, read() -> body}, canDelete?(item), rowClass?(item),
// actions?(item, showError) -> nodes, panel?: {label, open(item, ctx) -> {el, close, moved?}},
// topics?: more topics that re-render the list}.
function catalogSection(body, ctx, spec) {
  const {kind} = spec;
  const key = (item) => item[KINDS[kind].key];
  const error = h('p', {class: 'error', role: 'alert', id: kind + '-error'});
  error.hidden = true;
  const editorBox = h('div', {class: 'editor-box'});
  const list = h('ul', {class: 'catalog', id: kind + '-list', 'aria-label': spec.title});
  const empty = h('p', {class: 'empty'}, spec.empty);
  const add = h('button', {type: 'button', class: 'primary', id: kind + '-new', onclick: () => openEditor(null)},
    'New ' + spec.noun);
  body.append(h('div', {class: 'section-head'}, h('p', {class: 'muted'}, spec.intro), add), error, editorBox, empty, list);
  const panels = new Map(); // key -> open panel {el, close, moved?}

  const showError = (e) => {
    error.hidden = !e;
    error.textContent = e ? errorText(e) : '';
    error.dataset.code = (e && e.code) || '';
    if (e) error.scrollIntoView({block: 'nearest'});
  };

  const closeEditor = () => {
    clear(editorBox);
    add.hidden = false;
  };
  const openEditor = (item) => {
    clear(editorBox);
    showError(null);
    const ed = spec.editor(item, ctx);
    const formError = h('p', {class: 'error', role: 'alert', id: kind + '-form-error'});
    formError.hidden = true;
    const save = h('button', {type: 'submit', class: 'primary', id: kind + '-save'}, item ? 'Save' : 'Create');
    const form = h('form', {class: 'editor card', id: kind + '-form', novalidate: true},
      h('h2', null, item ? `Edit ${label(item)}` : `New ${spec.noun}`), ed.el, formError,
      h('div', {class: 'actions'}, save, h('button', {type: 'button', onclick: closeEditor}, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      formError.hidden = true;
      save.disabled = true;
      try {
        const payload = await ed.read();
        const saved = item ? await api('PATCH', itemPath(kind, item), payload)
          : await api('POST', KINDS[kind].path, payload);
        putItem(kind, saved);
        closeEditor();
        ctx.toast(`${item ? 'Saved' : 'Created'} ${label(saved || payload)}`);
      } catch (err) {
        formError.textContent = errorText(err);
        formError.dataset.code = err.code || '';
        formError.hidden = false;
      } finally {
        save.disabled = false;
      }
    });
    editorBox.append(form);
    add.hidden = true;
    form.scrollIntoView({block: 'nearest'});
    const first = form.querySelector('input:not([disabled]), textarea, select');
    if (first) first.focus({preventScroll: true});
  };

  // Two taps: the first arms the button, the second deletes (no blocking dialog on a phone).
  const remove = async (item, button) => {
    if (!button.classList.contains('armed')) {
      button.classList.add('armed');
      button.textContent = 'Tap again to delete';
      return;
    }
    button.disabled = true;
    showError(null);
    try {
      await api('DELETE', itemPath(kind, item));
      if (state[kind].delete(key(item))) emit(kind);
      ctx.toast(`Deleted ${label(item)}`);
    } catch (e) {
      showError(e);
      button.disabled = false;
      button.classList.remove('armed');
      button.textContent = 'Delete';
    }
  };

  const togglePanel = (item) => {
    const k = key(item);
    const open = panels.get(k);
    if (open) {
      open.close();
      panels.delete(k);
    } else {
      panels.set(k, spec.panel.open(item, ctx));
    }
    render();
  };

  const render = () => {
    const items = sorted(kind);
    for (const [k, p] of panels) {
      if (!state[kind].has(k)) { p.close(); panels.delete(k); }
    }
    clear(list);
    for (const item of items) {
      const k = key(item);
      const panel = panels.get(k);
      const li = h('li', {class: 'card item ' + ((spec.rowClass && spec.rowClass(item)) || ''), dataset: {key: k}},
        spec.row(item),
        h('div', {class: 'actions'},
          spec.actions ? spec.actions(item, showError) : null,
          spec.panel ? h('button', {type: 'button', class: 'panel-toggle', 'aria-expanded': panel ? 'true' : 'false',
            onclick: () => togglePanel(item)}, spec.panel.label) : null,
          h('button', {type: 'button', class: 'edit', onclick: () => openEditor(item)}, 'Edit'),
          spec.canDelete && !spec.canDelete(item) ? null
            : h('button', {type: 'button', class: 'deny delete', onclick: (e) => remove(item, e.currentTarget)},
              'Delete')));
      if (panel) li.append(panel.el);
      list.append(li);
      if (panel && panel.moved) panel.moved();
    }
    const missing = state.missing.has(kind);
    empty.textContent = missing ? `This service has no ${spec.title.toLowerCase()} (an older flotillad).` : spec.empty;
    empty.hidden = items.length > 0 && !missing;
    add.disabled = missing;
  };
  render();
  const offs = [kind, ...(spec.topics || [])].map((t) => subscribe(t, render));
  return () => {
    for (const off of offs) off();
    for (const p of panels.values()) p.close();
  };
}
