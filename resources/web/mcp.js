// MCP tools in the conversation: a tool use named "mcp__<server>__<tool>" (Claude Code's name,
// and the service's for Codex's MCP calls) reads as "Flotilla · report_task" with a line of its
// arguments. The page's one place for that naming rule (the monitor's: core/McpTools).

const PREFIX = 'mcp__';
const SEPARATOR = '__';
const FLOTILLA = 'flotilla'; // the service's own server (shared/protocol/McpNames.h)

// {server, tool} of "mcp__<server>__<tool>" (a tool's own name may hold "__"), else null.
export function mcpTool(name) {
  if (typeof name !== 'string' || !name.startsWith(PREFIX)) return null;
  const sep = name.indexOf(SEPARATOR, PREFIX.length);
  if (sep <= PREFIX.length || sep + SEPARATOR.length >= name.length) return null;
  return {server: name.slice(PREFIX.length, sep), tool: name.slice(sep + SEPARATOR.length)};
}

// "Flotilla · report_task", "github · create_issue"; any other tool by its name.
export function toolTitle(name) {
  const mcp = mcpTool(name);
  if (!mcp) return name || 'tool';
  return `${mcp.server === FLOTILLA ? 'Flotilla' : mcp.server} · ${mcp.tool}`;
}

const joined = (a, sep, b) => (a && b ? a + sep + b : a || b || '');
const firstLine = (s) => String(s || '').split('\n')[0];

// One line of an MCP call's arguments: report_task's status and summary, notify's title,
// delegate's agent and task, spawn_agent's name; another tool's first string argument. Empty for
// a tool that is not MCP (the caller summarises it its own way).
export function mcpSummary(name, input) {
  const mcp = mcpTool(name);
  if (!mcp || !input || typeof input !== 'object') return '';
  if (mcp.server === FLOTILLA) {
    switch (mcp.tool) {
    case 'report_task': return joined(input.status || '', ' · ', firstLine(input.summary));
    case 'notify': return firstLine(input.title);
    case 'delegate': return joined(input.agentName || input.agentId || '', ': ', firstLine(input.task));
    case 'spawn_agent': return firstLine(input.name);
    }
  }
  const first = Object.values(input).find((v) => typeof v === 'string' && v);
  return firstLine(first);
}
