// Form parts shared by the library's editors and the new-agent form: labelled fields, lists typed
// one per line or comma-separated, the skills as checkboxes, a file read as base64.

import {h} from './dom.js';
import {sorted} from './catalog.js';

let seq = 0;

// A labelled input (the input gets an id when it has none); `hint` under it.
export function field(label, input, hint) {
  if (!input.id) input.id = 'field-' + ++seq;
  return h('div', {class: 'field'}, h('label', {for: input.id}, label), input,
    hint ? h('small', {class: 'muted'}, hint) : null);
}

export function textInput(attrs) {
  return h('input', {type: 'text', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', ...attrs});
}

export function checkbox(label, checked, attrs) {
  const input = h('input', {type: 'checkbox', ...attrs});
  input.checked = !!checked;
  return {input, el: h('label', {class: 'check'}, input, ' ', label)};
}

export function select(options, value, attrs) {
  const el = h('select', attrs, options.map(([v, label]) => h('option', {value: v}, label)));
  el.value = value ?? '';
  return el;
}

// Non-empty lines, as typed (an argument may hold spaces), for argv fields.
export function lines(value) {
  return String(value).split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
}

// An argv as one line a person reads: an argument with spaces or quotes shown quoted.
export function argvText(argv) {
  return (argv || []).map((a) => (/[\s'"\\]/.test(a) || a === '' ? JSON.stringify(a) : a)).join(' ');
}

// "Read, Grep, Bash(git:*)" -> ['Read', 'Grep', 'Bash(git:*)']; nothing typed -> null.
export function words(value) {
  const list = String(value).split(',').map((w) => w.trim()).filter(Boolean);
  return list.length ? list : null;
}

// A required trimmed value, else an error naming the field.
export function required(input, label) {
  const v = input.value.trim();
  if (!v) throw new Error(`${label} is required.`);
  return v;
}

// Every skill as a checkbox, `chosen` ticked. value() -> the ticked slugs.
export function skillChecks(chosen, idPrefix) {
  const picked = new Set(chosen || []);
  const boxes = [];
  const set = h('fieldset', {class: 'checks', id: idPrefix + '-skills'}, h('legend', null, 'Skills'));
  const skills = sorted('skills');
  for (const s of skills) {
    const {input, el} = checkbox(s.name || s.slug, picked.has(s.slug), {value: s.slug, name: idPrefix + '-skill'});
    if (s.enabled === false) el.append(h('span', {class: 'muted'}, ' (disabled)'));
    if (s.description) el.title = s.description;
    boxes.push(input);
    set.append(el);
  }
  // A slug the agent has but the page does not know (yet): kept, shown as such.
  for (const slug of picked) {
    if (skills.some((s) => s.slug === slug)) continue;
    const {input, el} = checkbox(slug, true, {value: slug, name: idPrefix + '-skill'});
    boxes.push(input);
    set.append(el);
  }
  if (!boxes.length) set.append(h('p', {class: 'muted'}, 'No skills yet: add them in Library › Skills.'));
  return {el: set, value: () => boxes.filter((b) => b.checked).map((b) => b.value)};
}

// A file's bytes as base64 (no data: URL prefix).
export async function readBase64(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

// What an error answer says, with its code and whoever holds the item (class_in_use, skill_in_use).
export function errorText(e) {
  let text = e.message || String(e);
  if (e.code && e.code !== 'http' && !text.includes(e.code)) text += ` (${e.code})`;
  const data = e.data || {};
  const named = (list) => Array.isArray(list) && list.length && !list.every((n) => text.includes(n));
  if (named(data.agents)) text += ` Agents: ${data.agents.join(', ')}.`;
  if (named(data.classes)) text += ` Classes: ${data.classes.join(', ')}.`;
  return text;
}
