#pragma once
// How an agent's sandbox reads in the monitor: the effective one, that is its own `sandbox`
// (protocol/AgentSandbox.h) or, when that is null, the default for its permission mode: the
// service's (GET /api/health `sandbox.default`) for `auto` agents, none for `ask` agents. A
// default says so ("(default)"), so that an auto agent the service confines does not read as
// unconfined. A short line for the agent's header, the details for tooltips, and whether its
// commands are confined. Widgets-free (unit-tested).

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

} // namespace flotilla::monitor
