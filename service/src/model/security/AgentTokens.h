#pragma once
// Scoped credentials of agent processes (docs/security.md). An agent never receives the
// service's token: each process gets its own, random, revoked when the process ends. With it the
// agent may act only as itself (report-task, notify, its own PATCH, its permission hook, reading
// its own agent object): HttpServer's dispatcher enforces that.
//
// Token: "flotilla-agent.<agentId>.<64 hex digits>". The id part is public (it only says which
// secret to compare against, in constant time); the 256 random bits are the secret.
//
// The token reaches the agent as a file, never as text in its environment or on a command line:
// every user of the machine can read a process's argv (ps), so a hook or a `curl` that expanded
// the token into its arguments gave it away for as long as it ran. The file holds one header
// line, "X-Auth-Token: <token>", for `curl -H @"$FLOTILLA_AUTH_HEADER_FILE"`; it is 0600 in a
// 0700 directory, and removed when the token is revoked. Given the URL of the service's MCP
// server, a second file next to it holds the same token as a standard MCP client config
// ({"mcpServers":{"flotilla":{"type":"http","url":...,"headers":{"X-Auth-Token":...}}}}), for a
// CLI that reads one (Claude's --mcp-config); same mode, same life.

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace flotilla {

// The agent environment variable that names its header file.
inline constexpr char kAuthHeaderFileEnv[] = "FLOTILLA_AUTH_HEADER_FILE";

class AgentTokens final {
public:
    // `fileDir` empty: tokens live in memory only (no header files; unit tests).
    explicit AgentTokens(QString fileDir = QString());
    ~AgentTokens(); // removes every file still there
    Q_DISABLE_COPY_MOVE(AgentTokens)

    struct Issued {
        QByteArray token;
        QString headerFile;    // empty without a file directory
        QString mcpConfigFile; // empty without a file directory or an MCP URL
        QString error;         // a file could not be written (then token is empty)
    };
    // A new token for the agent's next process; any earlier one of that agent stops working.
    // With `mcpUrl` (the service's POST /mcp), its MCP config file too.
    Issued issue(const QString &agentId, const QString &mcpUrl = QString());
    // Revokes `token` if it is still the agent's current one (a late exit of an old process
    // must not revoke its successor's token), and removes its header file.
    void revoke(const QByteArray &token);
    // The agent a valid token belongs to.
    std::optional<QString> agentFor(const QByteArray &token) const;
    // Whether the text is shaped like an agent token (not whether it is valid).
    static bool looksLikeAgentToken(const QByteArray &token);
    qsizetype size() const { return m_secrets.size(); }
    // The secret part of every live token: what exec output and logs mask.
    QList<QByteArray> secrets() const { return m_secrets.values(); }

private:
    static bool split(const QByteArray &token, QString *agentId, QByteArray *secret);
    QString headerFileFor(const QString &agentId) const;
    QString mcpConfigFileFor(const QString &agentId) const;
    void removeFiles(const QString &agentId) const;
    static QString writeFile(const QString &path, const QByteArray &content);
    QHash<QString, QByteArray> m_secrets; // agent id -> secret
    QString m_fileDir;
};

} // namespace flotilla
