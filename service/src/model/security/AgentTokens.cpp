#include "security/AgentTokens.h"

#include "base/PrivateFile.h"
#include "security/ConstantTime.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>

#include <sys/stat.h>

namespace flotilla {

namespace {
constexpr char kPrefix[] = "flotilla-agent.";
constexpr qsizetype kSecretBytes = 32; // 256 bits
constexpr char kHeaderSuffix[] = ".header";
} // namespace

AgentTokens::AgentTokens(QString fileDir)
    : m_fileDir(std::move(fileDir)) {
    if (m_fileDir.isEmpty())
        return;
    QDir().mkpath(m_fileDir);
    ::chmod(QFile::encodeName(m_fileDir).constData(), 0700);
    // Files of a service that was killed: their tokens died with it.
    const QStringList stale =
        QDir(m_fileDir).entryList({QLatin1String("*") + QLatin1String(kHeaderSuffix)},
                                  QDir::Files | QDir::Hidden | QDir::System);
    for (const QString &name : stale)
        QFile::remove(m_fileDir + QLatin1Char('/') + name);
}

AgentTokens::~AgentTokens() {
    for (auto it = m_secrets.constBegin(); it != m_secrets.constEnd(); ++it) {
        if (!m_fileDir.isEmpty())
            QFile::remove(headerFileFor(it.key()));
    }
}

QString AgentTokens::headerFileFor(const QString &agentId) const {
    return m_fileDir + QLatin1Char('/') + agentId + QLatin1String(kHeaderSuffix);
}

QString AgentTokens::writeHeaderFile(const QString &path, const QByteArray &token) const {
    QFile::remove(path); // a file left by a killed service: never written through
    return createPrivateFile(path, "X-Auth-Token: " + token + '\n', /*sync=*/false);
}

AgentTokens::Issued AgentTokens::issue(const QString &agentId) {
    quint32 words[kSecretBytes / sizeof(quint32)];
    QRandomGenerator::system()->fillRange(words);
    const QByteArray secret =
        QByteArray(reinterpret_cast<const char *>(words), sizeof(words)).toHex();
    Issued out;
    out.token = QByteArray(kPrefix) + agentId.toUtf8() + '.' + secret;
    if (!m_fileDir.isEmpty()) {
        out.headerFile = headerFileFor(agentId);
        out.error = writeHeaderFile(out.headerFile, out.token);
        if (!out.error.isEmpty()) {
            m_secrets.remove(agentId);
            out.token.clear();
            return out;
        }
    }
    m_secrets.insert(agentId, secret);
    return out;
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
    if (it != m_secrets.constEnd() && constantTimeEquals(*it, secret)) {
        m_secrets.erase(it);
        if (!m_fileDir.isEmpty())
            QFile::remove(headerFileFor(id));
    }
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
