// What a tool use will change, as a person reads it before granting it: a file tool's change as
// diff lines (Write: the new content; Edit and MultiEdit: old lines removed, new ones added;
// Codex's fileChange: its unified diffs), a command as the command. Text nodes only.

import {h} from './dom.js';

const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'fileChange']);
const FOLD_AFTER = 20; // lines shown before "Show all"

function lines(text) {
  const s = String(text ?? '');
  if (!s) return [];
  return s.replace(/\n$/, '').split('\n');
}

// [{kind: 'file'|'hunk'|'add'|'del'|'ctx', text}] for a file tool, else null.
export function changeLines(tool, input) {
  if (!input || typeof input !== 'object' || !FILE_TOOLS.has(tool)) return null;
  const out = [];
  const edit = (path, before, after) => {
    if (path) out.push({kind: 'file', text: path});
    for (const l of lines(before)) out.push({kind: 'del', text: l});
    for (const l of lines(after)) out.push({kind: 'add', text: l});
  };
  if (tool === 'Write') {
    edit(input.file_path, '', input.content);
  } else if (tool === 'Edit') {
    edit(input.file_path, input.old_string, input.new_string);
  } else if (tool === 'MultiEdit') {
    if (input.file_path) out.push({kind: 'file', text: input.file_path});
    for (const e of Array.isArray(input.edits) ? input.edits : []) {
      out.push({kind: 'hunk', text: '@@'});
      edit('', e.old_string, e.new_string);
    }
  } else if (tool === 'NotebookEdit') {
    edit(input.notebook_path, '', input.new_source);
  } else {
    for (const c of Array.isArray(input.changes) ? input.changes : []) {
      out.push({kind: 'file', text: c.path || ''});
      const diff = typeof c.diff === 'string' ? c.diff : typeof c.content === 'string'
        ? c.content.split('\n').map((l) => '+' + l).join('\n') : '';
      for (const l of lines(diff)) {
        if (l.startsWith('@@')) out.push({kind: 'hunk', text: l});
        else if (l.startsWith('+++') || l.startsWith('---')) continue;
        else if (l.startsWith('+')) out.push({kind: 'add', text: l.slice(1)});
        else if (l.startsWith('-')) out.push({kind: 'del', text: l.slice(1)});
        else out.push({kind: 'ctx', text: l.startsWith(' ') ? l.slice(1) : l});
      }
    }
  }
  return out;
}

const MARK = {add: '+', del: '-', ctx: ' ', hunk: '', file: ''};

function diffBlock(rows) {
  const pre = h('pre', {class: 'diff'});
  for (const r of rows) {
    pre.append(h('span', {class: 'diff-' + r.kind}, MARK[r.kind] + r.text), '\n');
  }
  return pre;
}

// The preview of a permission request, or null when the summary line says it all.
export function changePreview(tool, input) {
  const rows = changeLines(tool, input);
  if (rows) {
    if (!rows.some((r) => r.kind !== 'file')) return null;
    const shown = rows.slice(0, FOLD_AFTER);
    const block = h('div', {class: 'change'}, diffBlock(shown));
    if (rows.length > FOLD_AFTER) {
      block.append(h('details', {class: 'change-rest'},
        h('summary', null, `Show all ${rows.length} lines`), diffBlock(rows.slice(FOLD_AFTER))));
    }
    return block;
  }
  const command = input && (typeof input.command === 'string' ? input.command
    : Array.isArray(input.command) ? input.command.join(' ') : '');
  return command ? h('pre', {class: 'command'}, command) : null;
}
