// One agent's conversation: history pages loaded on scroll up, live output streamed delta by
// delta, tool calls collapsed, the agent's pending requests, a composer and Stop.

import {api} from './api.js';
import {listOf} from './catalog.js';
import {clip, formatTime, formatTokens, formatUsd, h, toolSummary} from './dom.js';
import {LOCAL, hostOf, hostText} from './hosts.js';
import {classIcon} from './icons.js';
import {mcpSummary, toolTitle} from './mcp.js';
import {renderMarkdown} from './markdown.js';
import {state, subscribe} from './store.js';
import {BUDGET_ERROR, budgetUse, contextMeter, hasTeam, requestCard, sandboxBlockedText, sandboxHint, sandboxText,
  statusBadge} from './views.js';

const PAGE = 40;
const MAX_TOOL_OUTPUT = 16 * 1024;

// The agent and its subordinates, recursively, as the page knows them.
function teamOf(a) {
  const team = [a];
  const seen = new Set([a.id]);
  for (let i = 0; i < team.length; ++i) {
    for (const id of team[i].subordinateIds || []) {
      const sub = state.agents.get(id);
      if (sub && !seen.has(id)) { seen.add(id); team.push(sub); }
    }
  }
  return team;
}

// Today in this browser's time zone (the service counts `day` budgets in its own).
function today() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function usageSummary(u) {
  return `${u.turns || 0} turn${u.turns === 1 ? '' : 's'} · in ${formatTokens(u.inputTokens)}` +
    ` · out ${formatTokens(u.outputTokens)} · cache read ${formatTokens(u.cacheReadTokens)}` +
    ` · ${formatUsd(u.costUsd)}`;
}

// hintFor(output): a line under the output that says why it failed, or ''.
function toolBlock(name, input, hintFor) {
  const out = h('pre', {class: 'tool-output'});
  out.hidden = true;
  const hint = h('p', {class: 'tool-hint muted'});
  hint.hidden = true;
  const summary = mcpSummary(name, input) || toolSummary(input);
  const block = h('details', {class: 'tool'},
    h('summary', null, h('span', {class: 'tool-name'}, toolTitle(name)), summary ? ' ' + clip(summary, 120) : ''),
    input && Object.keys(input).length ? h('pre', {class: 'tool-input'}, JSON.stringify(input, null, 2)) : null,
    out, hint);
  block.toolName = name;
  block.setOutput = (text, isError) => {
    const t = String(text ?? '');
    out.textContent = t.length > MAX_TOOL_OUTPUT ? t.slice(0, MAX_TOOL_OUTPUT) + '\n…' : t;
    out.hidden = !t;
    hint.textContent = hintFor(t);
    hint.hidden = !hint.textContent;
    if (isError) block.classList.add('failed');
  };
  return block;
}

function bubble(kind, text, timestamp) {
  const body = h('div', {class: 'body'});
  if (kind === 'assistant') body.append(renderMarkdown(text));
  else body.textContent = text;
  return h('div', {class: 'msg ' + kind},
    body, timestamp ? h('span', {class: 'when muted'}, formatTime(timestamp)) : null);
}

export function conversationView(main, params, ctx) {
  const agentId = params.id;
  const agent = state.agents.get(agentId);
  if (!agent) {
    main.append(h('section', {class: 'view narrow'}, h('h1', null, 'No such agent'),
      h('p', null, h('a', {href: '/', 'data-nav': true}, 'Back to the agents'))));
    return () => {};
  }
  const title = h('h1', null, agent.name);
  const status = h('span');
  const meta = h('span', {class: 'muted'});
  const context = h('span');
  const usage = h('span', {id: 'agent-usage'});
  const budget = h('span', {id: 'agent-budget', class: 'budget'});
  const processState = h('span', {id: 'agent-process', class: 'muted'});
  const sandbox = h('span', {id: 'agent-sandbox', class: 'muted'});
  const host = h('span', {id: 'agent-host'});
  const stop = h('button', {type: 'button', class: 'deny', id: 'stop-agent', onclick: () => {
    if (!ctx.conn.send('stop_agent', {agentId})) ctx.toast('Not connected.', 'error');
  }}, 'Stop');
  const log = h('div', {class: 'transcript', id: 'transcript', role: 'log', 'aria-label': 'Conversation', tabindex: '0'});
  const older = h('p', {class: 'muted older'});
  const requests = h('ul', {class: 'requests inline', 'aria-label': 'Waiting for you'});
  const textarea = h('textarea', {id: 'message', rows: 2, placeholder: 'Message (Ctrl+Enter sends)',
    'aria-label': 'Message to the agent', required: true});
  const send = h('button', {type: 'submit', class: 'primary', id: 'send'}, 'Send');
  const picker = h('select', {id: 'prompt-picker', class: 'prompt-picker', 'aria-label': 'Saved prompts'});
  picker.hidden = true;
  const form = h('form', {class: 'composer', id: 'composer'}, picker, textarea, send);
  const icon = h('span', {class: 'agent-icon'});
  const shape = h('p', {class: 'agent-shape', id: 'agent-shape'});
  main.append(h('section', {class: 'view conversation'},
    h('div', {class: 'view-head'},
      h('a', {href: '/', 'data-nav': true, class: 'back', 'aria-label': 'Back to agents'}, '‹'),
      icon, title, status, stop),
    shape,
    h('p', {class: 'agent-meta'}, host, meta, sandbox, context, usage, budget, processState),
    log, requests, form));
  log.append(older);

  // The agent's class (its icon, its name when the service defines it) and skills.
  const renderShape = (a) => {
    icon.replaceChildren(classIcon(a.class, 28) || '');
    const cls = a.class && state.classes.get(a.class);
    const skills = (a.skills || []).map((slug) => (state.skills.get(slug) || {}).name || slug);
    shape.replaceChildren(
      a.class ? h('span', {class: 'agent-class', dataset: {class: a.class}}, cls ? cls.name || a.class : a.class) : '',
      ...skills.map((name) => h('span', {class: 'chip skill'}, name)));
    shape.hidden = !a.class && !skills.length;
  };

  // Saved prompts for this agent (global, its class's, its own): one fills the box, to be
  // edited before it is sent.
  let prompts = [];
  let promptsFor = null;
  const renderPicker = () => {
    picker.replaceChildren(h('option', {value: ''}, `Saved prompts (${prompts.length})…`),
      ...prompts.map((p) => h('option', {value: p.id}, p.name)));
    picker.value = '';
    picker.hidden = prompts.length === 0;
  };
  const loadPrompts = () => {
    api('GET', '/api/prompts?agentId=' + encodeURIComponent(agentId)).then((r) => {
      prompts = listOf(r, 'prompts').sort((a, b) => a.name.localeCompare(b.name));
      renderPicker();
    }, () => { prompts = []; renderPicker(); });
  };
  picker.addEventListener('change', () => {
    const p = prompts.find((x) => x.id === picker.value);
    picker.value = '';
    if (!p) return;
    textarea.value = p.text;
    textarea.focus();
    textarea.setSelectionRange(p.text.length, p.text.length);
  });

  const renderHead = () => {
    const a = state.agents.get(agentId) || agent;
    renderShape(a);
    if (promptsFor !== (a.class || '')) {
      promptsFor = a.class || '';
      loadPrompts();
    }
    status.replaceChildren(statusBadge(a.status));
    meta.textContent = `${a.provider || 'claude'} · ${a.model || ''} · ${a.cwd || ''}` +
      (a.currentTool ? ` · tool: ${a.currentTool}` : '');
    const on = hostOf(a);
    host.replaceChildren(on === LOCAL ? '' : h('a', {href: '/hosts', 'data-nav': true}, 'Host ' + hostText(on)));
    host.dataset.state = (state.hosts.get(on) || {}).state || '';
    host.hidden = on === LOCAL;
    sandbox.textContent = sandboxText(a);
    sandbox.hidden = !sandbox.textContent;
    context.replaceChildren(contextMeter(a));
    usage.textContent = usageSummary(a.usage || {});
    renderBudget(a);
    processState.textContent = a.isProcessRunning === false
      ? 'Process released (idle): the next message resumes the session' : '';
    processState.hidden = a.isProcessRunning !== false;
    stop.disabled = !(a.status === 'working' || a.status === 'waiting_permission');
  };

  // The agent's own budget and what it has used. A lifetime budget of an agent alone counts its
  // own usage; a day budget or a team's comes from GET /api/usage, asked again when the team's
  // turns, the budget or the day change.
  let asked = '';
  let fetched = {key: '', used: null};
  const renderBudget = (a) => {
    const b = a.budget;
    const reached = (a.lastError || '').startsWith(BUDGET_ERROR) ? a.lastError : '';
    budget.hidden = !b && !reached;
    budget.classList.toggle('over', !!reached);
    if (!b) {
      budget.textContent = reached;
      return;
    }
    const team = hasTeam(a) ? teamOf(a) : [a];
    const perDay = b.period === 'day';
    const key = JSON.stringify(b) + '|' + team.map((m) => (m.usage && m.usage.turns) || 0).join(',') +
      '|' + (perDay ? today() : '');
    let used = null;
    if (!perDay && team.length === 1) used = a.usage || {};
    else if (fetched.key === key) used = fetched.used;
    else if (asked !== key) {
      asked = key;
      const byTeam = team.length > 1 || hasTeam(a);
      api('GET', `/api/usage?groupBy=${byTeam ? 'boss' : 'agent'}${perDay ? '&from=' + today() + '&to=' + today() : ''}`)
        .then((r) => {
          const g = ((r && r.groups) || []).find((x) => (byTeam ? x.bossId : x.agentId) === agentId);
          fetched = {key, used: g || {}};
          if (asked === key) renderBudget(state.agents.get(agentId) || a);
        }, () => { /* shown without the figure */ });
    }
    const caps = [b.costUsd ? formatUsd(b.costUsd) : '', b.tokens ? `${formatTokens(b.tokens)} tokens` : '']
      .filter(Boolean).join(' or ');
    const whose = team.length > 1 ? ` for the team (${team.length} agents)` : '';
    const period = perDay ? 'per day' : 'in total';
    if (!used) {
      budget.replaceChildren(`Budget ${caps} ${period}${whose}`);
    } else {
      const use = budgetUse(b, used);
      const pct = Math.round(100 * use.fraction);
      budget.replaceChildren(
        h('meter', {min: 0, max: 1, value: Math.min(use.fraction, 1), low: 0.6, high: 0.8, optimum: 0,
          'aria-label': 'Budget used'}),
        ` Budget ${caps} ${period}${whose}: ${use.text} used${perDay ? ' today' : ''} (${pct}%)`);
      budget.classList.toggle('over', !!reached || use.fraction >= 1);
    }
    if (reached) budget.append(h('span', {class: 'error budget-reached'}, ' ' + reached));
  };
  renderHead();

  const renderRequests = () => {
    const mine = [...state.requests.values()].filter((r) => r.agentId === agentId);
    const keep = new Set(mine.map((r) => r.id));
    for (const li of [...requests.children]) if (!keep.has(li.dataset.id)) li.remove();
    const present = new Set([...requests.children].map((li) => li.dataset.id));
    for (const r of mine) if (!present.has(r.id)) requests.append(requestCard(r, ctx.conn, ctx.toast));
    requests.hidden = mine.length === 0;
  };
  renderRequests();

  const nearBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  const toBottom = () => { log.scrollTop = log.scrollHeight; };

  // --- history, oldest first; older pages prepended on scroll up ---
  let loaded = 0;
  let hasMore = true;
  let loading = false;
  let sessionId = null;
  const toolsById = new Map();
  const hintFor = (output) => sandboxHint(state.agents.get(agentId) || agent, output);

  const entryNodes = (entries) => {
    const nodes = [];
    for (const e of entries) {
      if (e.type === 'user') nodes.push(bubble('user', e.content || '', e.timestamp));
      else if (e.type === 'assistant') nodes.push(bubble('assistant', e.content || '', e.timestamp));
      else if (e.type === 'tool_use') {
        const block = toolBlock(e.toolName, e.toolInput, hintFor);
        if (e.toolUseId) toolsById.set(e.toolUseId, block);
        nodes.push(block);
      } else if (e.type === 'tool_result') {
        const block = e.toolUseId && toolsById.get(e.toolUseId);
        if (block) block.setOutput(e.content, e.isError);
        else { const b = toolBlock(e.toolName || 'result', null, hintFor); b.setOutput(e.content, e.isError); nodes.push(b); }
      }
    }
    return nodes;
  };

  const loadOlder = async () => {
    if (loading || !hasMore) return;
    loading = true;
    older.textContent = 'Loading earlier messages…';
    try {
      const q = `limit=${PAGE}&offset=${loaded}&includeSubagents=false` +
        (sessionId ? `&sessionId=${encodeURIComponent(sessionId)}` : '');
      const page = await api('GET', `/api/agents/${encodeURIComponent(agentId)}/history?${q}`);
      sessionId = page.sessionId || sessionId;
      const entries = page.messages || [];
      loaded += entries.length;
      hasMore = !!page.hasMore;
      const before = log.scrollHeight;
      const first = loaded === entries.length;
      older.after(...entryNodes(entries));
      if (first) toBottom(); else log.scrollTop += log.scrollHeight - before;
      older.textContent = hasMore ? 'Scroll up for earlier messages' : 'Start of the conversation';
    } catch (e) {
      older.textContent = 'Could not load the history: ' + e.message;
    } finally {
      loading = false;
    }
  };
  log.addEventListener('scroll', () => { if (log.scrollTop < 60) loadOlder(); }, {passive: true});
  loadOlder();

  // --- live output ---
  let current = null; // the assistant bubble being streamed
  let pending = '';
  let frame = 0;
  const lastTools = [];
  const blockedInTurn = new Map(); // 'host:port' -> {node, times}, until the turn ends
  const paint = () => {
    frame = 0;
    if (!current) return;
    const stick = nearBottom();
    current.text += pending;
    pending = '';
    current.body.replaceChildren(renderMarkdown(current.text));
    if (stick) toBottom();
  };
  const endBubble = () => {
    if (frame) { cancelAnimationFrame(frame); paint(); }
    if (current) current.node.classList.remove('streaming');
    current = null;
  };
  const appendNode = (node) => {
    const stick = nearBottom();
    log.append(node);
    if (stick) toBottom();
  };
  const onChunk = (c) => {
    if (c.toolName && c.toolInput !== undefined) {
      endBubble();
      const block = toolBlock(c.toolName, c.toolInput, hintFor);
      lastTools.push(block);
      appendNode(block);
      return;
    }
    if (c.toolName && c.toolOutput !== undefined) {
      const block = [...lastTools].reverse().find((b) => b.toolName === c.toolName && !b.done);
      if (block) { block.setOutput(c.toolOutput, c.isError); block.done = true; }
      return;
    }
    if (c.isStreaming) {
      if (!c.text) return;
      if (!current) {
        const node = bubble('assistant', '', c.timestamp);
        node.classList.add('streaming');
        current = {node, body: node.querySelector('.body'), text: ''};
        appendNode(node);
      }
      pending += c.text;
      if (!frame) frame = requestAnimationFrame(paint);
      return;
    }
    endBubble();
    blockedInTurn.clear();
    if (c.text) appendNode(h('p', {class: 'note' + (c.text.startsWith('Error') ? ' error' : '')}, c.text));
  };

  // A connection the sandbox refused: a line where it happened; a repeat in the same turn counts
  // on it.
  const onBlocked = (where) => {
    const seen = blockedInTurn.get(where);
    if (seen) {
      seen.times += 1;
      seen.node.textContent = sandboxBlockedText(where, seen.times);
      seen.node.dataset.times = String(seen.times);
      return;
    }
    endBubble();
    const node = h('p', {class: 'note sandbox-blocked', dataset: {where, times: '1'}}, sandboxBlockedText(where, 1));
    blockedInTurn.set(where, {node, times: 1});
    appendNode(node);
  };

  // --- sending ---
  const submit = async () => {
    const message = textarea.value;
    if (!message.trim()) return;
    send.disabled = true;
    try {
      const r = await api('POST', `/api/agents/${encodeURIComponent(agentId)}/message`, {message});
      endBubble();
      appendNode(bubble('user', message, Date.now()));
      toBottom();
      textarea.value = '';
      if (r && /queued/.test(r.message || '')) ctx.toast(`Queued: ${r.message}`);
    } catch (e) {
      ctx.toast('Not sent: ' + e.message, 'error');
    } finally {
      send.disabled = false;
      textarea.focus();
    }
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); submit(); });
  textarea.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); submit(); }
  });

  const offs = [
    subscribe('output:' + agentId, onChunk),
    subscribe('blocked:' + agentId, onBlocked),
    subscribe('agent:' + agentId, renderHead),
    subscribe('agents', renderHead),
    subscribe('hosts', renderHead),
    subscribe('requests', renderRequests),
    subscribe('classes', renderHead),
    subscribe('skills', renderHead),
    subscribe('prompts', loadPrompts),
  ];
  return () => { if (frame) cancelAnimationFrame(frame); for (const off of offs) off(); };
}
