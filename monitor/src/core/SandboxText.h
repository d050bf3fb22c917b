#pragma once
// How an agent's sandbox reads in the monitor: the effective one, that is its own `sandbox`
// (protocol/AgentSandbox.h) or, when that is null, the default for its permission mode: the
// service's (GET /api/health `sandbox.default`) for `auto` agents, none for `ask` agents. A
// default says so ("(default)"), so that an auto agent the service confines does not read as
// unconfined. A short line for the agent's header, the details for tooltips, whether its
// commands are confined, and how a connection its allow-list refused reads (sandbox_blocked).
// Widgets-free (unit-tested).

#include <QJsonObject>
#include <QString>

namespace flotilla::monitor {

// `serviceDefault` is the service's default for auto agents ("off" or "workspace"); empty when
// it is not known (not fetched yet, an older service), and an auto agent without a sandbox of
// its own then reads as nothing.

// "sandbox: workspace · network full", "sandbox: workspace (default) · network full",
// "sandbox: workspace · network allowlist (2 host(s))", "no sandbox" (mode off),
// "no sandbox (default)"; empty when the effective sandbox is not known.
QString sandboxLine(const QJsonObject &agent, const QString &serviceDefault);
// Several lines: the mode, whose default it is and what it means, the network and its allowed
// hosts, the extra writable and hidden paths. Empty when the effective sandbox is not known.
QString sandboxDetails(const QJsonObject &agent, const QString &serviceDefault);
// Its commands can write only in its working directory (effective mode workspace).
bool isSandboxed(const QJsonObject &agent, const QString &serviceDefault);
// A tool's output that a confined write produced ("Read-only file system"): the hint that says
// why, or empty when the output is not that or the agent is not sandboxed.
QString sandboxHint(bool sandboxed, const QString &toolOutput);

// What a refused connection names: "127.0.0.1:43351", "[::1]:443" (an IPv6 host bracketed, as a
// URL writes it). Repeats of one are counted by it.
QString hostPort(const QString &host, int port);
// The conversation's line for a connection the agent's allow-list sandbox refused: "Sandbox
// blocked a connection to 127.0.0.1:43351 (not on this agent's allow-list)", and " (3 times)"
// after it when `times` > 1.
QString sandboxBlockedLine(const QString &where, int times);
// For the agent's tooltip: "Sandbox blocked 3 connection(s) while this monitor watched (last:
// 127.0.0.1:43351)" (the service keeps no count; the decision log has each); empty for none.
QString sandboxBlockedTally(int count, const QString &last);

} // namespace flotilla::monitor
