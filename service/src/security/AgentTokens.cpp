#include "security/AgentTokens.h"

#include "security/ConstantTime.h"

#include <QRandomGenerator>

namespace flotilla {

namespace {
constexpr char kPrefix[] = "flotilla-agent.";
constexpr qsizetype kSecretBytes = 32; // 256 bits
} // namespace

QByteArray AgentTokens::issue(const QString &agentId) {
    quint32 words[kSecretBytes / sizeof(quint32)];
    QRandomGenerator::system()->fillRange(words);
    const QByteArray secret =
        QByteArray(reinterpret_cast<const char *>(words), sizeof(words)).toHex();
    m_secrets.insert(agentId, secret);
    return QByteArray(kPrefix) + agentId.toUtf8() + '.' + secret;
}

bool AgentTokens::looksLikeAgentToken(const QByteArray &token) {
    return token.startsWith(kPrefix);
}

bool AgentTokens::split(const QByteArray &token, QString *agentId, QByteArray *secret) {
    if (!looksLikeAgentToken(token))
        return false;
    const qsizetype dot = token.lastIndexOf('.');
    const qsizetype idStart = qsizetype(sizeof(kPrefix)) - 1;
    if (dot <= idStart)
        return false;
    *agentId = QString::fromUtf8(token.mid(idStart, dot - idStart));
    *secret = token.mid(dot + 1);
    return true;
}

void AgentTokens::revoke(const QByteArray &token) {
    QString id;
    QByteArray secret;
    if (!split(token, &id, &secret))
        return;
    const auto it = m_secrets.constFind(id);
    if (it != m_secrets.constEnd() && constantTimeEquals(*it, secret))
        m_secrets.erase(it);
}

std::optional<QString> AgentTokens::agentFor(const QByteArray &token) const {
    QString id;
    QByteArray secret;
    if (!split(token, &id, &secret))
        return std::nullopt;
    const auto it = m_secrets.constFind(id);
    if (it == m_secrets.constEnd() || !constantTimeEquals(*it, secret))
        return std::nullopt;
    return id;
}

} // namespace flotilla
