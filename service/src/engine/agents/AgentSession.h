#pragma once
// What AgentRuntime keeps per agent while it runs (private to the runtime's own files: the
// turn loop in AgentRuntime.cpp and the control verbs in AgentControl.cpp).

#include "agents/AgentProcess.h"
#include "agents/AgentRuntime.h"
#include "agents/AgentShaper.h"
#include "protocol/AgentSandbox.h"

#include <QHash>
#include <QList>
#include <QStringList>
#include <QTimer>

namespace flotilla {

struct AgentRuntime::Session {
    AgentProcess *process = nullptr;
    QString cliName;   // the running process's provider, as messages name it ("Claude Code")
    QString hostInUse; // the running process's host, empty for this machine
    QStringList queue;
    bool turnActive = false;
    bool respawnBeforeNextTurn = false; // prompt or model changed while the process ran
    bool exiting = false; // asked to exit (stop, clear, respawn): the queue waits for finished()
    // A stopped turn the process is still ending (Codex's turn/interrupt): its remaining events
    // are dropped, the queue waits for its TurnEnded, and interruptTimer ends the process if
    // that never comes.
    bool interrupting = false;
    QTimer interruptTimer;
    bool compacting = false;
    QString providerInUse;
    QString promptInUse;
    AgentShape shapeInUse; // what the running process was started with
    QString modelInUse;
    AgentSandbox sandboxInUse; // the effective sandbox the running process was started in
    QString launchWarning;     // AgentLaunch::warning of the running process: lastError each turn
    QString pendingText;
    QTimer flushTimer;
    QHash<QString, QString> toolNames;  // tool_use id -> tool name, to label results
    QHash<QString, QString> toolSkills; // tool_use id -> the skill it invokes
    QList<qint64> crashRestarts;        // times of automatic restarts after a crash
    bool crashed = false;
    QByteArray token; // the running process's own credential (AgentTokens), revoked at its end
    // The running process's unanswered permission requests: the runtime's key -> the process's
    // own request id (a CLI's ids restart with each process; the keys never repeat).
    QHash<QString, QString> openPermissions;
    // Ends the process after the agent's idle timeout (AgentIdle.cpp); runs only while the
    // agent has a process and nothing to do.
    QTimer idleTimer;
    // The queue waits because admit() refused (a budget): resumeQueue() looks again.
    bool heldByBudget = false;
};

} // namespace flotilla
