#pragma once
// Decides every tool use an agent's CLI asks about. Claude Code runs with PreToolUse and
// PermissionRequest hooks (set up in agents/claude/ClaudeProvider.cpp) that POST the hook's stdin
// to /api/agents/:id/permission-check; that route hands it to answerHook():
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
// Standing rules (RuleStore, RuleMatcher.h) answer before anyone is asked: deny rules at
// PreToolUse and for Codex requests in any mode, allow rules where the CLI would ask. A
// permission_response with `remember` stores the rule that covers the request before the answer
// goes out (no rule, no answer); a new rule also answers the pending requests it covers. Every
// decision except `auto` mode's is logged (RuleStore::log) with who made it.

#include "base/Clock.h"
#include "base/Error.h"
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
class RuleStore;

class PermissionBroker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PermissionBroker)
public:
    static constexpr int kDefaultTimeoutMs = 5 * 60 * 1000;

    // Masks secret values in a tool input before it is logged.
    using Masker = std::function<QJsonObject(const QJsonObject &)>;
    // What a hook prints for its CLI (its stdout JSON), or why the call is refused.
    using HookAnswer = std::function<void(const Result<QJsonObject> &)>;

    PermissionBroker(AgentRegistry &agents, AgentRuntime &runtime, EventHub &hub, RuleStore &rules,
                     Clock clock, int timeoutMs = kDefaultTimeoutMs,
                     ProtectedPaths protectedPaths = {}, Masker mask = {},
                     QObject *parent = nullptr);
    ~PermissionBroker() override; // denies whatever is still pending

    // A hook call of the agent's CLI (`hookInput`: the hook's stdin). `answer` gets the decision
    // at once, or when a held PermissionRequest is decided; an unknown agent is a NotFound Error,
    // an unsupported hook_event_name an Invalid one.
    void answerHook(const QString &agentId, const QJsonObject &hookInput, const HookAnswer &answer);

    // A user's answer to a pending request: the payload of a WebSocket permission_response
    // ({permissionId | requestId, granted | approved, agentId?, remember?, pattern?}), also what
    // the MCP tool answer_permission sends. Refusals: BadRequest (missing_field, wrong_type),
    // NotFound (no such pending request), Invalid (agentId mismatch), a rule's own errors.
    Status answer(const QJsonObject &payload);

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
    Clock m_clock;
    Masker m_mask;
    HookLogLimiter m_hookLog;
    QString m_answering; // the request a permission_response with `remember` is answering
    int m_timeoutMs;
    ProtectedPaths m_protected;
    QList<Pending> m_pending;             // in arrival order
    QHash<QString, QString> m_toolUseIds; // agentId + tool + input -> tool_use_id (PreToolUse)
};

} // namespace flotilla
