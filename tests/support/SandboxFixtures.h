#pragma once
// What the sandbox suites (tst_sandbox_agents, tst_sandbox_network) share: the create fields of an
// `auto` agent in a sandbox, and the output of an agent's last command. Header-only.

#include "support/AgentRig.h"

namespace flotilla::test {

// An agent that runs commands unasked, in `sandbox`.
inline QJsonObject sandboxed(const QJsonObject &sandbox = {
                                 {QStringLiteral("mode"), QStringLiteral("workspace")}}) {
    return {{QStringLiteral("permissionMode"), QStringLiteral("auto")},
            {QStringLiteral("sandbox"), sandbox}};
}

// The tool output of the agent's last command (Bash / commandExecution).
inline QString lastToolOutput(const AgentRig &rig, const QString &agentId = {}) {
    QString out;
    for (const QJsonObject &c : rig.chunks(agentId)) {
        if (c.contains(QStringLiteral("toolOutput")))
            out = c.value(QStringLiteral("toolOutput")).toString();
    }
    return out;
}

} // namespace flotilla::test
