#include "history/SessionFiles.h"

#include "history/SessionSource.h"

#include "protocol/WireNames.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace flotilla::history {

namespace {

constexpr int kMaxDirNameUnits = 200;
constexpr int kMaxSessionIdLength = 128;
const QLatin1String kJsonl(".jsonl");

bool isAsciiAlnum(char16_t c) {
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
}

// The CLI's JS string hash: h = h * 31 + unit over UTF-16 units, int32 wrap, |h| in base 36.
QString cliPathHash(const QString &path) {
    quint32 h = 0;
    for (const QChar c : path)
        h = (h << 5) - h + c.unicode();
    const auto signedHash = qint64(qint32(h));
    return QString::number(signedHash < 0 ? -signedHash : signedHash, 36);
}

SessionFile toSessionFile(const QFileInfo &fi) {
    return {fi.completeBaseName(), fi.absoluteFilePath(), fi.size(),
            fi.lastModified().toMSecsSinceEpoch()};
}

} // namespace

QString encodeProjectDirName(const QString &cwd) {
    QString out = cwd;
    for (QChar &c : out) {
        if (!isAsciiAlnum(c.unicode()))
            c = QLatin1Char('-');
    }
    if (out.size() <= kMaxDirNameUnits)
        return out;
    return out.left(kMaxDirNameUnits) + QLatin1Char('-') + cliPathHash(cwd);
}

bool isValidSessionId(const QString &id) {
    if (id.isEmpty() || id.size() > kMaxSessionIdLength)
        return false;
    return std::all_of(id.begin(), id.end(),
                       [](QChar c) { return isAsciiAlnum(c.unicode()) || c == QLatin1Char('-'); });
}

QStringList projectDirsFor(const QString &claudeHome, const QString &cwd) {
    const QString projects = claudeHome + QStringLiteral("/projects/");
    QStringList candidates{cwd, QDir::cleanPath(cwd)};
    const QString canonical = QFileInfo(cwd).canonicalFilePath();
    if (!canonical.isEmpty())
        candidates.append(canonical);
    QStringList dirs;
    for (const QString &c : std::as_const(candidates)) {
        const QString name = encodeProjectDirName(c);
        QString dir = projects + name;
        if (!QFileInfo(dir).isDir() && name.size() > kMaxDirNameUnits) {
            // Another CLI version may hash long paths differently: match on the kept prefix.
            const QStringList similar =
                QDir(projects).entryList({name.left(kMaxDirNameUnits + 1) + QLatin1Char('*')},
                                         QDir::Dirs | QDir::NoDotAndDotDot);
            if (similar.size() == 1)
                dir = projects + similar.first();
        }
        if (!dirs.contains(dir) && QFileInfo(dir).isDir())
            dirs.append(dir);
    }
    return dirs;
}

QList<SessionFile> listSessions(const QStringList &projectDirs) {
    QList<SessionFile> out;
    QStringList seen;
    for (const QString &dir : projectDirs) {
        const QFileInfoList files =
            QDir(dir).entryInfoList({QStringLiteral("*.jsonl")}, QDir::Files | QDir::Readable);
        for (const QFileInfo &fi : files) {
            if (!isValidSessionId(fi.completeBaseName()) || seen.contains(fi.completeBaseName()))
                continue;
            seen.append(fi.completeBaseName());
            out.append(toSessionFile(fi));
        }
    }
    std::sort(out.begin(), out.end(), [](const SessionFile &a, const SessionFile &b) {
        if (a.lastModifiedMs != b.lastModifiedMs)
            return a.lastModifiedMs > b.lastModifiedMs;
        return a.sessionId < b.sessionId; // stable answer for equal times
    });
    return out;
}

std::optional<SessionFile> findSession(const QStringList &projectDirs, const QString &sessionId) {
    if (!isValidSessionId(sessionId))
        return std::nullopt;
    for (const QString &dir : projectDirs) {
        const QFileInfo fi(dir + QLatin1Char('/') + sessionId + kJsonl);
        if (fi.isFile())
            return toSessionFile(fi);
    }
    return std::nullopt;
}

Result<ResolvedSession> resolveSession(const QStringList &projectDirs,
                                       const QString &agentSessionId,
                                       const QString &requestedSessionId) {
    return resolveSession(*claudeSessionsIn(projectDirs), agentSessionId, requestedSessionId);
}

Result<ResolvedSession> resolveSession(const SessionSource &source, const QString &agentSessionId,
                                       const QString &requestedSessionId) {
    if (!requestedSessionId.isNull()) {
        if (!isValidSessionId(requestedSessionId))
            return Error::invalid(wire::code::InvalidValue,
                                  QStringLiteral("query parameter 'sessionId' must be a session "
                                                 "id (letters, digits and '-')"));
        const auto found = source.findSession(requestedSessionId);
        if (!found)
            return Error::notFound(
                wire::code::NotFound,
                QStringLiteral("no session '%1' for this agent's working directory")
                    .arg(requestedSessionId));
        return ResolvedSession{found->sessionId, found->path};
    }
    if (isValidSessionId(agentSessionId)) {
        // The agent's own session, even before the CLI has written its file: showing another
        // (older) conversation instead would mislead.
        const auto found = source.findSession(agentSessionId);
        return ResolvedSession{agentSessionId, found ? found->path : QString()};
    }
    const QList<SessionFile> all = source.listSessions();
    if (all.isEmpty())
        return ResolvedSession{};
    return ResolvedSession{all.first().sessionId, all.first().path};
}

namespace {

// Claude Code: <claudeHome>/projects/<encoded cwd>/<session-id>.jsonl.
class ClaudeSessions final : public SessionSource {
public:
    explicit ClaudeSessions(QStringList projectDirs)
        : m_dirs(std::move(projectDirs)) {}
    LineFormat format() const override { return LineFormat::Claude; }
    QList<SessionFile> listSessions() const override { return history::listSessions(m_dirs); }
    std::optional<SessionFile> findSession(const QString &sessionId) const override {
        return history::findSession(m_dirs, sessionId);
    }
    bool hasSubagents() const override { return true; }

private:
    const QStringList m_dirs;
};

} // namespace

SessionSourcePtr claudeSessions(const QString &claudeHome, const QString &cwd) {
    return claudeSessionsIn(projectDirsFor(claudeHome, cwd));
}

SessionSourcePtr claudeSessionsIn(const QStringList &projectDirs) {
    return std::make_shared<ClaudeSessions>(projectDirs);
}

QString subagentsDir(const QString &sessionFilePath) {
    QString base = sessionFilePath;
    base.chop(kJsonl.size());
    return base + QStringLiteral("/subagents");
}

QString agentIdFromFile(const QString &path) {
    QString name = QFileInfo(path).completeBaseName();
    if (name.startsWith(QLatin1String("agent-")))
        name.remove(0, 6);
    return name;
}

QHash<QString, QString> subagentFiles(const QString &sessionFilePath) {
    QHash<QString, QString> out;
    const QDir dir(subagentsDir(sessionFilePath));
    const QFileInfoList metas =
        dir.entryInfoList({QStringLiteral("agent-*.meta.json")}, QDir::Files | QDir::Readable);
    for (const QFileInfo &meta : metas) {
        QFile f(meta.absoluteFilePath());
        if (meta.size() > 64 * 1024 || !f.open(QIODevice::ReadOnly))
            continue;
        const QString toolUseId = QJsonDocument::fromJson(f.readAll())
                                      .object()
                                      .value(QLatin1String("toolUseId"))
                                      .toString();
        QString jsonl = meta.absoluteFilePath();
        jsonl.chop(QLatin1String(".meta.json").size());
        jsonl += kJsonl;
        if (!toolUseId.isEmpty() && QFileInfo(jsonl).isFile())
            out.insert(toolUseId, jsonl);
    }
    return out;
}

} // namespace flotilla::history
