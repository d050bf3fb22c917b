#pragma once
// The agent resource as it travels on the wire and as the service stores it.

#include "protocol/AgentSandbox.h"
#include "protocol/AgentWorktree.h"
#include "protocol/Usage.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace flotilla {

struct Agent {
    QString id;
    QString name;
    QString agentClass;
    QString status;
    QString cwd;
    QString provider;
    QString model;
    QString taskLabel;
    QString trackingStatus; // empty means JSON null
    QString trackingStatusDetail;
    QString currentTask;
    QString currentTool;
    bool isProcessRunning = false;
    qint64 contextUsed = 0;
    qint64 contextLimit = 0;
    qint64 tokensUsed = 0;
    QString sessionId; // empty means JSON null
    qint64 createdAt = 0;
    qint64 lastActivity = 0;
    int taskCount = 0;
    bool isBoss = false;
    QString bossId; // empty means JSON null
    QStringList subordinateIds;
    QString areaId;                                // empty means JSON null
    QString lastError;                             // empty means JSON null
    QString permissionMode{QStringLiteral("ask")}; // "ask" or "auto" (PermissionNames.h)
    AgentWorktree worktree;                        // the agent's own git worktree; unset: JSON null
    AgentSandbox sandbox; // what confines its processes; unset: JSON null (the service's default)
    // The machine its processes run on (docs/api.md "Hosts"): a host's name; empty means "local".
    QString host;
    // Seconds without work after which the agent's CLI process is ended (its session kept);
    // -1 means JSON null: the service's --idle-timeout; 0: never.
    int idleTimeoutSeconds = -1;
    UsageTotals usage; // every recorded turn's usage (UsageStore's rows are the durable record)
    Budget budget;     // unset: JSON null; on a boss it caps the boss's whole team
    // The agent's own standing instructions (markdown, "" = none) and the skills assigned to it
    // by slug, besides those of its class (docs/api.md "Shaping agents").
    QString customInstructions;
    QStringList skills;

    // Full object (GET /api/agents/:id, agents_update, agent_created, storage).
    QJsonObject toJson() const;
    // Items of GET /api/agents/status.
    QJsonObject toStatusJson() const;
    // Items of GET /api/agents/simple.
    QJsonObject toSimpleJson() const;

    // Lenient decoder for stored or received objects: unknown keys are ignored, missing ones
    // keep their defaults. Returns false only when id or name is missing.
    static bool fromJson(const QJsonObject &json, Agent *out);

    // The agent_updated payload: id and name plus every field whose value differs.
    static QJsonObject changedFields(const Agent &before, const Agent &after);
    // The same from both agents' toJson(), for a caller that has them already (toJson() is the
    // costly part: an agent PATCH serializes each side once, not once per question).
    static QJsonObject changedFields(const QJsonObject &before, const QJsonObject &after);

    friend bool operator==(const Agent &a, const Agent &b) { return a.toJson() == b.toJson(); }
    friend bool operator!=(const Agent &a, const Agent &b) { return !(a == b); }
};

} // namespace flotilla
