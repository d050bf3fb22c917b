#pragma once
// Issue 4, permissions. Every agent CLI runs with PreToolUse and PermissionRequest hooks that POST
// the hook's stdin to /api/agents/:id/permission-check (ClaudeProcess.cpp). This controller
// answers them:
//  - `auto` agents: allow, at once.
//  - `ask` agents: PreToolUse gets no decision (the CLI's own rules run, and we note the
//    tool_use_id); when the CLI would ask, its PermissionRequest hook arrives, is held open and
//    becomes a `permission_request` to every WebSocket client (replayed to late ones), the agent
//    is `waiting_permission` until a `permission_response` answers it, the agent is stopped
//    (deny) or 5 minutes pass (deny). `permission_resolved` follows each decision.
//  - any mode: a tool use naming the service's own credentials or state (ProtectedPaths) is
//    denied at PreToolUse, before the CLI's rules or the user are asked.
// A CLI that asks through its own process protocol instead (AgentRuntime::permissionRequested,
// Codex's approvals) goes through the same decisions and the same held request; the answer goes
// back through AgentRuntime::answerPermission.

#include "http/ApiTypes.h"
#include "permissions/ProtectedPaths.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>

#include <functional>

class QTimer;
class QWebSocket;

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class EventHub;
class HttpServer;

class PermissionController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PermissionController)
public:
    static constexpr int kDefaultTimeoutMs = 5 * 60 * 1000;

    PermissionController(HttpServer &http, AgentRegistry &agents, AgentRuntime &runtime,
                         EventHub &hub, int timeoutMs = kDefaultTimeoutMs,
                         ProtectedPaths protectedPaths = {}, QObject *parent = nullptr);
    ~PermissionController() override; // denies whatever is still pending

    int pendingCount() const { return int(m_pending.size()); }

private:
    // How a decision reaches the asking CLI: the hook's HTTP reply, or the runtime.
    using Answer = std::function<void(bool granted, const QString &reason)>;
    struct Pending {
        QString id;
        QString agentId;
        QJsonObject request; // the permission_request payload
        Answer answer;
        QTimer *timer = nullptr;
    };

    void check(const ApiRequest &request, const ReplyCallback &reply);
    void onProcessRequest(const QString &agentId, const QString &requestId, const QString &toolName,
                          const QJsonObject &toolInput);
    QString protectedPathNamedIn(const QString &agentId, const QJsonValue &toolInput) const;
    void hold(const QString &agentId, const QString &toolName, const QJsonValue &toolInput,
              const QString &toolUseId, Answer answer);
    void onResponse(QWebSocket *client, const QJsonObject &payload);
    void resolve(const QString &id, bool granted, const QString &reason);
    void denyAllOf(const QString &agentId, const QString &reason);
    void setWaiting(const QString &agentId, bool waiting);
    QList<QByteArray> replay() const;

    AgentRegistry &m_agents;
    AgentRuntime &m_runtime;
    EventHub &m_hub;
    int m_timeoutMs;
    ProtectedPaths m_protected;
    QList<Pending> m_pending;             // in arrival order
    QHash<QString, QString> m_toolUseIds; // agentId + tool + input -> tool_use_id (PreToolUse)
};

} // namespace flotilla
