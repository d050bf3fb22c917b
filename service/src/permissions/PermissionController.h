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
// Issue 13: standing rules (RuleStore, RuleMatcher.h) answer before anyone is asked: deny rules
// at PreToolUse and for Codex requests in any mode, allow rules where the CLI would ask. A
// permission_response with `remember` stores the rule that covers the request before the answer
// goes out (no rule, no answer); a new rule also answers the pending requests it covers. Every
// decision except `auto` mode's is logged (RuleStore::log) with who made it.

#include "http/ApiTypes.h"
#include "permissions/HookLogLimiter.h"
#include "permissions/ProtectedPaths.h"
#include "permissions/RuleMatcher.h"

#include <QHash>
#include <QJsonArray>
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
class RuleStore;

class PermissionController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PermissionController)
public:
    static constexpr int kDefaultTimeoutMs = 5 * 60 * 1000;

    // Masks secret values in a tool input before it is logged.
    using Masker = std::function<QJsonObject(const QJsonObject &)>;

    PermissionController(HttpServer &http, AgentRegistry &agents, AgentRuntime &runtime,
                         EventHub &hub, RuleStore &rules, int timeoutMs = kDefaultTimeoutMs,
                         ProtectedPaths protectedPaths = {}, Masker mask = {},
                         QObject *parent = nullptr);
    ~PermissionController() override; // denies whatever is still pending

    int pendingCount() const { return int(m_pending.size()); }
    // The pending permission_request payloads, oldest first (GET /api/permission-requests).
    QJsonArray pendingRequests() const;

private:
    // How a decision reaches the asking CLI: the hook's HTTP reply, or the runtime.
    using Answer = std::function<void(bool granted, const QString &reason)>;
    struct Pending {
        QString id;
        QString agentId;
        QString tool;
        QJsonObject toolInput;
        QJsonObject request; // the permission_request payload (its toolInput masked)
        QLatin1String via;   // wire::permission::via: the agent's hook or the CLI's process
        Answer answer;
        QTimer *timer = nullptr;
    };

    void check(const ApiRequest &request, const ReplyCallback &reply);
    void onProcessRequest(const QString &agentId, const QString &requestId, const QString &toolName,
                          const QJsonObject &toolInput);
    QString protectedPathNamedIn(const QString &agentId, const QJsonValue &toolInput) const;
    void hold(const QString &agentId, const QString &toolName, const QJsonValue &toolInput,
              const QString &toolUseId, QLatin1String via, Answer answer);
    void onResponse(QWebSocket *client, const QJsonObject &payload);
    // The verdict of the standing rules for a tool use of `agentId`.
    RuleVerdict rulesFor(const QString &agentId, const QString &tool,
                         const QJsonValue &toolInput) const;
    // Entries a hook caused are rate-limited per agent (HookLogLimiter), a user's never.
    void logDecision(const QString &agentId, const QString &tool, const QJsonValue &toolInput,
                     bool granted, QLatin1String by, QLatin1String via, const QString &ruleId = {});
    void resolve(const QString &id, bool granted, const QString &reason, QLatin1String by,
                 const QString &ruleId = {});
    void denyAllOf(const QString &agentId, const QString &reason);
    void applyRulesToPending();
    Result<PermissionRule> rememberRule(const Pending &p, const QJsonObject &payload, bool granted);
    void setWaiting(const QString &agentId, bool waiting);
    QList<QByteArray> replay() const;

    AgentRegistry &m_agents;
    AgentRuntime &m_runtime;
    EventHub &m_hub;
    RuleStore &m_rules;
    Masker m_mask;
    HookLogLimiter m_hookLog;
    QString m_answering; // the request a permission_response with `remember` is answering
    int m_timeoutMs;
    ProtectedPaths m_protected;
    QList<Pending> m_pending;             // in arrival order
    QHash<QString, QString> m_toolUseIds; // agentId + tool + input -> tool_use_id (PreToolUse)
};

} // namespace flotilla
