#include "http/Authenticator.h"

#include <QCryptographicHash>

namespace flotilla {

namespace {
QByteArray digest(const QByteArray &b) {
    return QCryptographicHash::hash(b, QCryptographicHash::Sha256);
}
} // namespace

Authenticator::Authenticator(QByteArray token)
    : m_token(std::move(token))
    , m_digest(digest(m_token)) {
}

bool Authenticator::accepts(const QByteArray &candidate) const {
    if (!required())
        return true;
    if (candidate.isEmpty())
        return false;
    const QByteArray d = digest(candidate);
    unsigned char diff = 0;
    for (int i = 0; i < m_digest.size(); ++i)
        diff |= static_cast<unsigned char>(d[i] ^ m_digest[i]);
    return diff == 0;
}

QByteArray Authenticator::fromHeaders(const QByteArray &xAuthToken,
                                      const QByteArray &authorization) {
    if (!xAuthToken.isEmpty())
        return xAuthToken.trimmed();
    const QByteArray auth = authorization.trimmed();
    if (auth.size() > 7 && auth.left(7).compare("Bearer ", Qt::CaseInsensitive) == 0)
        return auth.mid(7).trimmed();
    return {};
}

} // namespace flotilla
