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
    // Constant time in the content of both sides: a common prefix does not show in the timing;
    // the time grows with the longer of the two lengths.
    bool accepts(const QByteArray &candidate) const;
    // Extracts a candidate from `X-Auth-Token` or `Authorization: Bearer`.
    static QByteArray fromHeaders(const QByteArray &xAuthToken, const QByteArray &authorization);
    // The subprotocol `auth-<token>`, for the WebSocket handshake echo.
    QByteArray subprotocol() const { return QByteArrayLiteral("auth-") + m_token; }

private:
    QByteArray m_token;
};

} // namespace flotilla
