#pragma once
// Token check for REST and WebSocket. The token never leaves this object: not logged, not echoed
// (except the subprotocol the client itself offered, which browsers require back).

#include <QByteArray>
#include <QString>

namespace flotilla {

class Authenticator final {
public:
    explicit Authenticator(QByteArray token = {});

    bool required() const { return !m_token.isEmpty(); }
    // Constant time in the candidate's content: both sides are hashed to fixed-size digests first,
    // so neither the length nor a common prefix shows in the timing.
    bool accepts(const QByteArray &candidate) const;
    // Extracts a candidate from `X-Auth-Token` or `Authorization: Bearer`.
    static QByteArray fromHeaders(const QByteArray &xAuthToken, const QByteArray &authorization);
    // The subprotocol `auth-<token>`, for the WebSocket handshake echo.
    QByteArray subprotocol() const { return QByteArrayLiteral("auth-") + m_token; }

private:
    QByteArray m_token;
    QByteArray m_digest;
};

} // namespace flotilla
