#include "security/AgentTokens.h"

#include "base/PrivateFile.h"
#include "protocol/McpNames.h"
#include "security/ConstantTime.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

#include <sys/stat.h>

namespace flotilla {

namespace {
constexpr char kPrefix[] = "flotilla-agent.";
constexpr qsizetype kSecretBytes = 32; // 256 bits
constexpr char kHeaderSuffix[] = ".header";
constexpr char kMcpConfigSuffix[] = ".mcp.json";

// The standard MCP client config (Claude Code's --mcp-config, the mcpServers form of .mcp.json):
// the service's server over streamable HTTP with this process's token as its header.
QByteArray mcpConfig(const QString &url, const QByteArray &token) {
    const QJsonObject server{
        {QStringLiteral("type"), QStringLiteral("http")},
        {QStringLiteral("url"), url},
        {QStringLiteral("headers"),
         QJsonObject{{QStringLiteral("X-Auth-Token"), QString::fromLatin1(token)}}}};
    const QJsonObject config{
        {QStringLiteral("mcpServers"), QJsonObject{{QString(wire::mcp::ServerName), server}}}};
    return QJsonDocument(config).toJson(QJsonDocument::Compact) + '\n';
}
} // namespace

AgentTokens::AgentTokens(QString fileDir)
    : m_fileDir(std::move(fileDir)) {
    if (m_fileDir.isEmpty())
        return;
    QDir().mkpath(m_fileDir);
    ::chmod(QFile::encodeName(m_fileDir).constData(), 0700);
    // Files of a service that was killed: their tokens died with it.
    const QStringList stale =
        QDir(m_fileDir).entryList({QLatin1String("*") + QLatin1String(kHeaderSuffix),
                                   QLatin1String("*") + QLatin1String(kMcpConfigSuffix)},
                                  QDir::Files | QDir::Hidden | QDir::System);
    for (const QString &name : stale)
        QFile::remove(m_fileDir + QLatin1Char('/') + name);
}

AgentTokens::~AgentTokens() {
    for (auto it = m_secrets.constBegin(); it != m_secrets.constEnd(); ++it)
        removeFiles(it.key());
}

QString AgentTokens::headerFileFor(const QString &agentId) const {
    return m_fileDir + QLatin1Char('/') + agentId + QLatin1String(kHeaderSuffix);
}

QString AgentTokens::mcpConfigFileFor(const QString &agentId) const {
    return m_fileDir + QLatin1Char('/') + agentId + QLatin1String(kMcpConfigSuffix);
}

void AgentTokens::removeFiles(const QString &agentId) const {
    if (m_fileDir.isEmpty())
        return;
    QFile::remove(headerFileFor(agentId));
    QFile::remove(mcpConfigFileFor(agentId)); // an earlier process's, when this one has none
}

QString AgentTokens::writeFile(const QString &path, const QByteArray &content) {
    QFile::remove(path); // a file left by a killed service: never written through
    return createPrivateFile(path, content, /*sync=*/false);
}

AgentTokens::Issued AgentTokens::issue(const QString &agentId, const QString &mcpUrl) {
    quint32 words[kSecretBytes / sizeof(quint32)];
    QRandomGenerator::system()->fillRange(words);
    const QByteArray secret =
        QByteArray(reinterpret_cast<const char *>(words), sizeof(words)).toHex();
    Issued out;
    out.token = QByteArray(kPrefix) + agentId.toUtf8() + '.' + secret;
    if (!m_fileDir.isEmpty()) {
        removeFiles(agentId); // the earlier process's: its token stops working now
        out.headerFile = headerFileFor(agentId);
        out.error = writeFile(out.headerFile, "X-Auth-Token: " + out.token + '\n');
        if (out.error.isEmpty() && !mcpUrl.isEmpty()) {
            out.mcpConfigFile = mcpConfigFileFor(agentId);
            out.error = writeFile(out.mcpConfigFile, mcpConfig(mcpUrl, out.token));
        }
        if (!out.error.isEmpty()) {
            removeFiles(agentId);
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
        removeFiles(id);
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
