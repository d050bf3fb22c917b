#pragma once
// A change of an agent's runtime fields, computed whole and then applied to AgentRegistry in one
// updateRuntime() call: one event (or one turn start) is one agent_updated for clients, and the
// runtime never writes a field only to read it back for the next step.

#include "agents/AgentEvent.h"

#include <QString>

#include <optional>

namespace flotilla {

struct Agent;

struct RuntimeUpdate {
    std::optional<QString> status;
    std::optional<QString> lastError;
    std::optional<QString> currentTask;
    std::optional<QString> currentTool;
    std::optional<QString> sessionId;
    std::optional<qint64> contextUsed;
    std::optional<qint64> contextLimit;
    std::optional<qint64> lastActivity;
    std::optional<bool> processRunning;
    qint64 addTokens = 0;
    int addTasks = 0;
    UsageTotals addUsage; // a turn's usage, added to the agent's `usage`

    bool isEmpty() const;
    void applyTo(Agent &agent) const;

    // What `event` changes of `agent` as it is now (pure: no registry, no clock of its own).
    // `defaultContextLimit` stands in for a window size that neither the agent nor the provider
    // knows.
    static RuntimeUpdate forEvent(const Agent &agent, const AgentEvent &event,
                                  qint64 defaultContextLimit, qint64 nowMs);

    // The runtime's own moments, added to this update (several can make one change).
    RuntimeUpdate &processStarted();
    RuntimeUpdate &processEnded();
    RuntimeUpdate &turnStarted(const QString &message, qint64 nowMs);
    RuntimeUpdate &turnFailed(const QString &why);
    RuntimeUpdate &stopped();
    // A message that cannot run: the agent shows why, as the caller was told.
    RuntimeUpdate &refused(const QString &why);
    // The next message starts a new conversation. `clearError`: a turn was cut short by it.
    RuntimeUpdate &contextCleared(bool clearError);
};

} // namespace flotilla
