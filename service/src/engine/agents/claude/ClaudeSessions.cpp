#include "agents/claude/ClaudeSessions.h"

#include "history/JsonSkimmer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace flotilla::claude {

using history::BlockKind;
using history::LineRole;
using history::RawBlock;
using history::ScannedLine;
using history::SessionFile;
using history::Span;

namespace {

constexpr int kMaxDirNameUnits = 200;
const QLatin1String kJsonl(".jsonl");

// --- Lines -------------------------------------------------------------------------------------

using history::detail::Skimmer;
using Blocks = QVarLengthArray<RawBlock, 4>;

// One element of message.content: {"type": "...", ...}.
bool scanBlock(Skimmer &s, Blocks &blocks) {
    Span type;
    RawBlock blk;
    const bool ok = s.object([&](Span key) {
        const std::string_view k = key.view();
        if (k == "type")
            return s.stringOrValue(&type);
        if (k == "text")
            return s.stringOrValue(&blk.text);
        if (k == "id" || k == "tool_use_id")
            return s.stringOrValue(&blk.id);
        if (k == "name")
            return s.stringOrValue(&blk.name);
        if (k == "input" || k == "content")
            return s.value(&blk.value);
        if (k == "is_error")
            return s.boolean(&blk.isError);
        return s.value();
    });
    if (!ok)
        return false;
    const std::string_view t = type.view();
    if (t == "text")
        blk.kind = BlockKind::Text;
    else if (t == "image")
        blk.kind = BlockKind::Image;
    else if (t == "tool_use")
        blk.kind = BlockKind::ToolUse;
    else if (t == "tool_result")
        blk.kind = BlockKind::ToolResult;
    else
        return true; // thinking, redacted_thinking, server tools...: not entries
    blocks.append(blk);
    return true;
}

bool scanMessage(Skimmer &s, Blocks &blocks) {
    return s.object([&](Span key) {
        if (key.view() != "content")
            return s.value();
        if (s.peek('"')) {
            RawBlock blk;
            if (!s.string(&blk.text))
                return false;
            blocks.append(blk);
            return true;
        }
        if (s.peek('['))
            return s.array([&] { return s.peek('{') ? scanBlock(s, blocks) : s.value(); });
        return s.value();
    });
}

bool keep(const RawBlock &blk, LineRole role) {
    switch (blk.kind) {
    case BlockKind::Text:
        return history::isMeaningfulText(blk.text);
    case BlockKind::Image:
    case BlockKind::ToolResult:
        return role == LineRole::User;
    case BlockKind::ToolUse:
        return role == LineRole::Assistant;
    }
    return false;
}

// --- Files -------------------------------------------------------------------------------------

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

// Claude Code: <claudeHome>/projects/<encoded cwd>/<session-id>.jsonl, sub-agents beside it.
class ProjectSessions final : public history::SessionSource {
public:
    explicit ProjectSessions(QStringList projectDirs)
        : m_dirs(std::move(projectDirs)) {}
    history::LineFormat format() const override { return &scanSessionLine; }
    QList<SessionFile> listSessions() const override { return claude::listSessions(m_dirs); }
    std::optional<SessionFile> findSession(const QString &sessionId) const override {
        return claude::findSession(m_dirs, sessionId);
    }
    bool hasSubagents() const override { return true; }
    // Tools that start a sub-agent.
    bool startsSubagent(const QString &toolName) const override {
        return toolName == QLatin1String("Task") || toolName == QLatin1String("Agent");
    }
    QString subagentsDir(const QString &sessionFilePath) const override {
        return claude::subagentsDir(sessionFilePath);
    }
    QHash<QString, QString> subagentFiles(const QString &sessionFilePath) const override {
        return claude::subagentFiles(sessionFilePath);
    }
    QString subagentId(const QString &transcriptPath) const override {
        return agentIdFromFile(transcriptPath);
    }

private:
    const QStringList m_dirs;
};

} // namespace

void scanSessionLine(const char *b, const char *e, ScannedLine *out) {
    Skimmer s(b, e);
    if (!history::detail::beginLine(s, out))
        return;
    Span type;
    const bool ok = s.object([&](Span key) {
        const std::string_view k = key.view();
        if (k == "type")
            return s.stringOrValue(&type);
        if (k == "isSidechain")
            return s.boolean(&out->sidechain);
        if (k == "isMeta")
            return s.boolean(&out->meta);
        if (k == "uuid")
            return s.stringOrValue(&out->uuid);
        if (k == "timestamp")
            return s.stringOrValue(&out->timestamp);
        if (k == "message")
            return s.peek('{') ? scanMessage(s, out->blocks) : s.value();
        return s.value();
    });
    s.ws();
    if (!ok || !s.atEnd()) {
        out->blocks.clear();
        return;
    }
    out->valid = true;
    const std::string_view t = type.view();
    out->role = t == "user"        ? LineRole::User
                : t == "assistant" ? LineRole::Assistant
                                   : LineRole::Other;
    if (out->role == LineRole::Other || out->meta) {
        out->blocks.clear();
        return;
    }
    qsizetype kept = 0;
    for (qsizetype i = 0; i < out->blocks.size(); ++i) {
        if (keep(out->blocks[i], out->role))
            out->blocks[kept++] = out->blocks[i];
    }
    out->blocks.resize(kept);
}

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
            if (!history::isValidSessionId(fi.completeBaseName()) ||
                seen.contains(fi.completeBaseName()))
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
    if (!history::isValidSessionId(sessionId))
        return std::nullopt;
    for (const QString &dir : projectDirs) {
        const QFileInfo fi(dir + QLatin1Char('/') + sessionId + kJsonl);
        if (fi.isFile())
            return toSessionFile(fi);
    }
    return std::nullopt;
}

history::SessionSourcePtr sessions(const QString &claudeHome, const QString &cwd) {
    return sessionsIn(projectDirsFor(claudeHome, cwd));
}

history::SessionSourcePtr sessionsIn(const QStringList &projectDirs) {
    return std::make_shared<ProjectSessions>(projectDirs);
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

} // namespace flotilla::claude
