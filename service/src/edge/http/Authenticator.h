#pragma once
// Token check for REST and WebSocket. The token never leaves this object: not logged, not echoed
// (except the subprotocol the client itself offered, which browsers require back).
//
// Two kinds of credential: the service token (full rights) and an agent's own token
// (security/AgentTokens.h: acts only as that agent). Without a service token the service is
// open (the contract's optional token) and every caller has full rights.

#include <QByteArray>
#include <QString>

namespace flotilla {

class AgentTokens;

struct Caller {
    enum class Kind { Anonymous, Agent, Service };
    Kind kind = Kind::Anonymous;
    QString agentId; // Kind::Agent: the only agent this caller may act as
};

class Authenticator final {
public:
    explicit Authenticator(QByteArray token = {}, const AgentTokens *agentTokens = nullptr);

    bool required() const { return !m_token.isEmpty(); }
    // Constant time in the content of both sides: a common prefix does not show in the timing;
    // the time grows with the longer of the two lengths.
    bool accepts(const QByteArray &candidate) const;
    // Who presents `candidate`: the service token, an agent's own token, or neither.
    Caller identify(const QByteArray &candidate) const;
    // The agent a valid agent token belongs to, whether or not a service token is required
    // (identify() calls every caller of an open service Service).
    QString agentOf(const QByteArray &candidate) const;
    // Extracts a candidate from `X-Auth-Token` or `Authorization: Bearer`.
    static QByteArray fromHeaders(const QByteArray &xAuthToken, const QByteArray &authorization);
    // The subprotocol `auth-<token>`, for the WebSocket handshake echo.
    QByteArray subprotocol() const { return QByteArrayLiteral("auth-") + m_token; }

private:
    QByteArray m_token;
    const AgentTokens *m_agentTokens;
};

} // namespace flotilla
