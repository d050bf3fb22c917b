// A small Markdown renderer for agent output that builds DOM nodes and never parses HTML: raw
// HTML in the text (<script>, <img onerror>) stays text. Links only for absolute http(s) URLs,
// opened with rel="noopener noreferrer". Covers what agents write: paragraphs, headings, fenced
// and inline code, emphasis, strike-through, links, lists, block quotes, rules, GitHub-style
// tables (a header row, a delimiter row of dashes with optional colons, then body rows).

import {h} from './dom.js';

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const RULE = /^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const BLANK = /^\s*$/;
const TABLE_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const MAX_TABLE_COLUMNS = 64;

export function renderMarkdown(source) {
  const frag = document.createDocumentFragment();
  renderBlocks(String(source).replace(/\r\n?/g, '\n').split('\n'), frag, 0);
  return frag;
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) ||
    ITEM.test(line);
}

// A row's cells: split on | not escaped and not inside `code`, outer pipes dropped.
function tableCells(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells = [];
  let cell = '';
  let inCode = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\' && s[i + 1] === '|') { cell += '|'; i++; continue; }
    if (ch === '`') inCode = !inCode;
    if (ch === '|' && !inCode) { cells.push(cell.trim()); cell = ''; continue; }
    cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

function isTableStart(lines, i) {
  return lines[i].includes('|') && i + 1 < lines.length && TABLE_DELIMITER.test(lines[i + 1]) &&
    lines[i + 1].includes('-') && tableCells(lines[i]).length === tableCells(lines[i + 1]).length;
}

function renderTable(lines, i, parent) {
  const head = tableCells(lines[i]).slice(0, MAX_TABLE_COLUMNS);
  const aligns = tableCells(lines[i + 1]).map((d) =>
    d.startsWith(':') && d.endsWith(':') ? 'align-center' : d.endsWith(':') ? 'align-right' : null);
  const row = (cells, tag) => h('tr', null, head.map((_, c) =>
    inline(h(tag, aligns[c] ? {class: aligns[c]} : null), cells[c] ?? '')));
  const body = h('tbody');
  i += 2;
  while (i < lines.length && !BLANK.test(lines[i]) && lines[i].includes('|')) {
    body.append(row(tableCells(lines[i]), 'td'));
    i++;
  }
  parent.append(h('div', {class: 'table-wrap'}, h('table', null, h('thead', null, row(head, 'th')), body)));
  return i;
}

function renderBlocks(lines, parent, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (BLANK.test(line)) { i++; continue; }
    if ((m = FENCE.exec(line))) {
      const fence = m[1];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++]);
      i++;
      const code = h('code', null, body.join('\n'));
      if (m[2]) code.dataset.lang = m[2];
      parent.append(h('pre', {class: 'code'}, code));
      continue;
    }
    if ((m = HEADING.exec(line))) {
      const level = Math.min(6, m[1].length + 2);
      parent.append(inline(h('h' + level), m[2]));
      i++;
      continue;
    }
    if (RULE.test(line)) { parent.append(h('hr')); i++; continue; }
    if (QUOTE.test(line) && depth < 8) {
      const inner = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) { inner.push(m[1]); i++; }
      const quote = h('blockquote');
      renderBlocks(inner, quote, depth + 1);
      parent.append(quote);
      continue;
    }
    if ((m = ITEM.exec(line))) {
      i = renderList(lines, i, parent, depth);
      continue;
    }
    if (isTableStart(lines, i)) {
      i = renderTable(lines, i, parent);
      continue;
    }
    const para = [];
    while (i < lines.length && !BLANK.test(lines[i]) &&
           !(para.length && (startsBlock(lines[i]) || isTableStart(lines, i)))) {
      para.push(lines[i++].trim());
    }
    parent.append(inline(h('p'), para.join('\n')));
  }
}

function renderList(lines, i, parent, depth) {
  const first = ITEM.exec(lines[i]);
  const ordered = /\d/.test(first[2]);
  const list = h(ordered ? 'ol' : 'ul');
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) list.setAttribute('start', String(start));
  }
  let item = null;
  while (i < lines.length) {
    const line = lines[i];
    const m = ITEM.exec(line);
    if (m && /\d/.test(m[2]) === ordered && m[1].length <= first[1].length + 1) {
      item = [m[3]];
      list.append(h('li'));
      list.lastChild.lines = item;
      i++;
      continue;
    }
    if (BLANK.test(line)) {
      const next = lines[i + 1];
      if (next !== undefined && (ITEM.test(next) || /^\s{2,}\S/.test(next))) { item.push(''); i++; continue; }
      break;
    }
    if (/^\s{2,}\S/.test(line) || !startsBlock(line)) { item.push(line.replace(/^\s{1,4}/, '')); i++; continue; }
    break;
  }
  for (const li of list.children) {
    const content = li.lines;
    delete li.lines;
    if (depth < 8 && content.some((l) => startsBlock(l) || BLANK.test(l))) {
      renderBlocks(content, li, depth + 1);
    } else {
      inline(li, content.join('\n'));
    }
  }
  parent.append(list);
  return i;
}

// Absolute http(s) URLs only; anything else (javascript:, data:, relative) is no link.
export function safeUrl(raw) {
  const text = String(raw).trim();
  if (!/^https?:\/\//i.test(text)) return null;
  let url;
  try { url = new URL(text); } catch { return null; }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

function link(href, labelText, parentForLabel) {
  const a = h('a', {href, rel: 'noopener noreferrer nofollow', target: '_blank'});
  if (parentForLabel) inline(a, labelText); else a.append(document.createTextNode(labelText));
  return a;
}

const AUTOLINK = /^https?:\/\/[^\s<>"'`]*[^\s<>"'`.,;:!?)\]]/i;
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!~<>|]/;

// Inline spans of `text` appended to `el` (returned).
export function inline(el, text, depth = 0) {
  let buf = '';
  const flush = () => { if (buf) { el.append(document.createTextNode(buf)); buf = ''; } };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\' && ESCAPABLE.test(text[i + 1] || '')) { buf += text[i + 1]; i += 2; continue; }
    if (c === '\n') { flush(); el.append(h('br')); i++; continue; }
    if (c === '`') {
      let n = 1;
      while (text[i + n] === '`') n++;
      const tick = '`'.repeat(n);
      const end = text.indexOf(tick, i + n);
      if (end > 0) {
        flush();
        el.append(h('code', null, text.slice(i + n, end).replace(/^ (.+) $/, '$1')));
        i = end + n;
        continue;
      }
      buf += tick; i += n; continue;
    }
    if ((c === '*' || c === '_' || c === '~') && depth < 6) {
      const double = text[i + 1] === c;
      const delim = double ? c + c : c;
      const prev = text[i - 1] || ' ';
      const after = text[i + delim.length] || ' ';
      const wordInside = c === '_' && /[\p{L}\p{N}]/u.test(prev);
      if (!(c === '~' && !double) && !wordInside && !/\s/.test(after)) {
        const end = findClose(text, i + delim.length, delim);
        if (end > 0) {
          flush();
          const tag = c === '~' ? 'del' : double ? 'strong' : 'em';
          el.append(inline(h(tag), text.slice(i + delim.length, end), depth + 1));
          i = end + delim.length;
          continue;
        }
      }
      buf += delim; i += delim.length; continue;
    }
    if (c === '[') {
      const close = matchBracket(text, i);
      if (close > 0 && text[close + 1] === '(') {
        const end = text.indexOf(')', close + 2);
        if (end > 0) {
          const label = text.slice(i + 1, close);
          const target = text.slice(close + 2, end).trim().split(/\s+/)[0] || '';
          const href = safeUrl(target.replace(/^<|>$/g, ''));
          flush();
          if (href) {
            el.append(link(href, label, depth < 6));
          } else {
            // Not a URL we link (javascript:, data:, relative): the label, inert, and the target as text.
            inline(el, label, depth + 1);
            el.append(document.createTextNode(` (${target})`));
          }
          i = end + 1;
          continue;
        }
      }
    }
    if (c === '<') {
      const m = /^<(https?:\/\/[^\s<>]+)>/i.exec(text.slice(i, i + 2048));
      const href = m && safeUrl(m[1]);
      if (href) { flush(); el.append(link(href, m[1])); i += m[0].length; continue; }
    }
    if ((c === 'h' || c === 'H') && !/[\p{L}\p{N}]/u.test(text[i - 1] || ' ')) {
      const m = AUTOLINK.exec(text.slice(i, i + 2048));
      const href = m && safeUrl(m[0]);
      if (href) { flush(); el.append(link(href, m[0])); i += m[0].length; continue; }
    }
    buf += c;
    i++;
  }
  flush();
  return el;
}

function findClose(text, from, delim) {
  let j = from;
  while ((j = text.indexOf(delim, j)) > from - 1) {
    if (j > from && !/\s/.test(text[j - 1]) && (delim.length === 2 || text[j + 1] !== delim[0])) {
      // An underscore run closes only at the end of a word: snake_case and __dunder__ stay text.
      if (delim[0] !== '_' || !/[\p{L}\p{N}]/u.test(text[j + delim.length] || ' ')) return j;
    }
    j += delim.length;
    if (j >= text.length) break;
  }
  return -1;
}

function matchBracket(text, open) {
  let level = 0;
  for (let j = open; j < text.length && j < open + 1000; j++) {
    if (text[j] === '\\') { j++; continue; }
    if (text[j] === '[') level++;
    else if (text[j] === ']' && --level === 0) return j;
  }
  return -1;
}
