#pragma once
// Scoped credentials of agent processes (docs/security.md). An agent never receives the
// service's token: each process gets its own, random, held only in memory and revoked when the
// process ends. With it the agent may act only as itself (report-task, notify, its own PATCH,
// its permission hook, reading its own agent object): HttpServer's dispatcher enforces that.
//
// Token: "flotilla-agent.<agentId>.<64 hex digits>". The id part is public (it only says which
// secret to compare against, in constant time); the 256 random bits are the secret.

#include <QByteArray>
#include <QHash>
#include <QString>

#include <optional>

namespace flotilla {

class AgentTokens final {
public:
    AgentTokens() = default;
    Q_DISABLE_COPY_MOVE(AgentTokens)

    // A new token for the agent's next process; any earlier one of that agent stops working.
    QByteArray issue(const QString &agentId);
    // Revokes `token` if it is still the agent's current one (a late exit of an old process
    // must not revoke its successor's token).
    void revoke(const QByteArray &token);
    // The agent a valid token belongs to.
    std::optional<QString> agentFor(const QByteArray &token) const;
    // Whether the text is shaped like an agent token (not whether it is valid).
    static bool looksLikeAgentToken(const QByteArray &token);
    qsizetype size() const { return m_secrets.size(); }

private:
    static bool split(const QByteArray &token, QString *agentId, QByteArray *secret);
    QHash<QString, QByteArray> m_secrets; // agent id -> secret
};

} // namespace flotilla
