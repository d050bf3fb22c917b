// DOM building without HTML parsing: every text goes in through text nodes, so nothing an agent
// writes can become markup. No HTML-parsing DOM property or eval is used anywhere in this page.

// h('a', {href: '/x', class: 'c', onclick: fn}, 'text', childNode, [more])
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith('on') && typeof value === 'function') {
        el.addEventListener(key.slice(2), value);
      } else if (key === 'class') {
        el.className = value;
      } else if (key === 'dataset') {
        Object.assign(el.dataset, value);
      } else if (key === 'value') {
        el.value = value;
      } else if (value === true) {
        el.setAttribute(key, '');
      } else {
        el.setAttribute(key, String(value));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.append(child);
    else el.append(document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function formatTime(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  const today = new Date();
  return d.toDateString() === today.toDateString()
    ? d.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit', second: '2-digit'})
    : d.toLocaleString([], {month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit'});
}

export function formatTokens(n) {
  if (!n) return '0';
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e4) return Math.round(n / 1e3) + 'k';
  if (n >= 1e3) return (n / 1e3).toFixed(1) + 'k';
  return String(n);
}

export function formatUsd(usd) {
  if (!usd) return '$0';
  return '$' + usd.toFixed(usd >= 1 ? 2 : usd >= 0.01 ? 3 : 4);
}

// A tool use in one line: the command, the file, or the input's first string.
export function toolSummary(toolInput) {
  if (!toolInput || typeof toolInput !== 'object') return '';
  for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'description', 'prompt']) {
    const v = toolInput[key];
    if (typeof v === 'string' && v) return v;
    if (Array.isArray(v) && v.length) return v.join(' ');
  }
  if (Array.isArray(toolInput.changes)) {
    return toolInput.changes.map((c) => c.path).filter(Boolean).join(', ');
  }
  const first = Object.values(toolInput).find((v) => typeof v === 'string');
  return first || '';
}

export function clip(text, n) {
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}
