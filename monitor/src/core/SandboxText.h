#pragma once
// How an agent's sandbox reads in the monitor (its `sandbox` field, protocol/AgentSandbox.h):
// a short line for the agent's header, the details for tooltips, and whether its commands are
// confined. Null (the service's default applies) reads as nothing: the monitor cannot tell what
// that default is. Widgets-free (unit-tested).

#include <QJsonObject>
#include <QString>

namespace flotilla::monitor {

// "sandbox: workspace · network full", "sandbox: workspace · network allowlist (2 host(s))",
// "no sandbox" (mode off); empty when the agent has no sandbox of its own.
QString sandboxLine(const QJsonObject &agent);
// Several lines: the mode and what it means, the network and its allowed hosts, the extra
// writable and hidden paths. Empty when the agent has no sandbox of its own.
QString sandboxDetails(const QJsonObject &agent);
// Its commands can write only in its working directory (mode workspace).
bool isSandboxed(const QJsonObject &agent);
// A tool's output that a confined write produced ("Read-only file system"): the hint that says
// why, or empty when the output is not that or the agent is not sandboxed.
QString sandboxHint(bool sandboxed, const QString &toolOutput);

} // namespace flotilla::monitor
