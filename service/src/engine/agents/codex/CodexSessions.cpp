#include "agents/codex/CodexSessions.h"

#include "history/JsonSkimmer.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>

#include <algorithm>
#include <array>

namespace flotilla::codex {

using history::BlockKind;
using history::LineRole;
using history::RawBlock;
using history::ScannedLine;
using history::SessionFile;
using history::Span;

namespace {

using history::detail::Skimmer;
using Blocks = QVarLengthArray<RawBlock, 4>;

// The first line (session_meta) carries the base instructions, ~20 KiB today; more than this is
// not a rollout we can place, and reading it whole would let one file cost unbounded memory.
constexpr qint64 kMaxMetaLineBytes = 4 * 1024 * 1024;
// cwd cache entries before it is dropped and refilled (each is a path and a cwd).
constexpr int kMaxCachedMetas = 20'000;
const QLatin1String kRolloutPrefix("rollout-");
// "YYYY-MM-DDTHH-MM-SS-" after the prefix.
constexpr int kRolloutTimeChars = 20;

// User messages Codex writes itself at the start of a thread or turn (context for the model,
// not something the user typed). Matched on the escaped text's start.
bool isInjectedContext(Span escaped) {
    static constexpr std::array<std::string_view, 4> kPrefixes{
        "<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
        "<turn_aborted>"};
    std::string_view s = escaped.view();
    while (!s.empty() && (s[0] == ' ' || s[0] == '\t'))
        s.remove_prefix(1);
    while (s.size() >= 2 && s[0] == '\\' && (s[1] == 'n' || s[1] == 'r' || s[1] == 't'))
        s.remove_prefix(2);
    return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                       [&](std::string_view p) { return s.substr(0, p.size()) == p; });
}

// One part of message.content: {"type": "input_text" | "output_text" | "input_image", ...}.
bool scanPart(Skimmer &s, Blocks &blocks) {
    Span type;
    RawBlock blk;
    const bool ok = s.object([&](Span key) {
        const std::string_view k = key.view();
        if (k == "type")
            return s.stringOrValue(&type);
        if (k == "text")
            return s.stringOrValue(&blk.text);
        return s.value();
    });
    if (!ok)
        return false;
    const std::string_view t = type.view();
    if (t == "input_text" || t == "output_text" || t == "text")
        blk.kind = BlockKind::Text;
    else if (t == "input_image")
        blk.kind = BlockKind::Image;
    else
        return true; // refusals and future kinds: not entries
    blocks.append(blk);
    return true;
}

// The payload fields any response item kind needs; which ones count depends on `type`.
struct Item {
    Span type, role, name, callId, arguments, input, output, action;
};

bool scanPayload(Skimmer &s, Item &item, ScannedLine *out) {
    return s.object([&](Span key) {
        const std::string_view k = key.view();
        if (k == "type")
            return s.stringOrValue(&item.type);
        if (k == "role")
            return s.stringOrValue(&item.role);
        if (k == "id")
            return s.stringOrValue(&out->uuid);
        if (k == "name")
            return s.stringOrValue(&item.name);
        if (k == "call_id")
            return s.stringOrValue(&item.callId);
        if (k == "arguments")
            return s.value(&item.arguments);
        if (k == "input")
            return s.value(&item.input);
        if (k == "output")
            return s.value(&item.output);
        if (k == "action")
            return s.value(&item.action);
        if (k == "content" && s.peek('['))
            return s.array([&] { return s.peek('{') ? scanPart(s, out->blocks) : s.value(); });
        return s.value();
    });
}

// Turns the scanned item into the line's role and entry blocks (already holds message parts).
void classify(const Item &item, ScannedLine *out) {
    const std::string_view t = item.type.view();
    if (t == "message") {
        const std::string_view role = item.role.view();
        out->role = role == "user"        ? LineRole::User
                    : role == "assistant" ? LineRole::Assistant
                                          : LineRole::Other; // developer, system: prompts
        if (out->role == LineRole::Other) {
            out->blocks.clear();
            return;
        }
        qsizetype kept = 0;
        for (qsizetype i = 0; i < out->blocks.size(); ++i) {
            const RawBlock &b = out->blocks[i];
            const bool keep = b.kind == BlockKind::Text
                                  ? history::isMeaningfulText(b.text) &&
                                        !(out->role == LineRole::User && isInjectedContext(b.text))
                                  : out->role == LineRole::User;
            if (keep)
                out->blocks[kept++] = b;
        }
        out->blocks.resize(kept);
        return;
    }
    out->blocks.clear();
    RawBlock blk;
    blk.id = item.callId;
    if (t == "function_call" || t == "custom_tool_call" || t == "local_shell_call") {
        out->role = LineRole::Assistant;
        blk.kind = BlockKind::ToolUse;
        blk.name = item.name;
        if (t == "function_call") {
            blk.value = item.arguments;
            blk.encodedInput = true; // a string holding the arguments' JSON
        } else if (t == "custom_tool_call") {
            blk.value = item.input;
            blk.encodedInput = true; // freeform text (apply_patch): stays a string
        } else {
            blk.value = item.action;
        }
        out->blocks.append(blk);
    } else if (t == "function_call_output" || t == "custom_tool_call_output") {
        out->role = LineRole::User;
        blk.kind = BlockKind::ToolResult;
        blk.value = item.output;
        out->blocks.append(blk);
    }
    // reasoning, web_search_call, compaction markers...: not entries
}

bool matchesCwd(const QString &recorded, const QStringList &cwds) {
    if (recorded.isEmpty())
        return false;
    if (cwds.contains(recorded) || cwds.contains(QDir::cleanPath(recorded)))
        return true;
    const QString canonical = QFileInfo(recorded).canonicalFilePath();
    return !canonical.isEmpty() && cwds.contains(canonical);
}

// session_meta's cwd of a rollout. The first line never changes once written, so answers are
// kept for the process' life (listing reads every rollout's head otherwise, on every request).
QString rolloutCwd(const QString &path) {
    static QMutex mutex;
    static QHash<QString, QString> cache;
    {
        QMutexLocker lock(&mutex);
        const auto it = cache.constFind(path);
        if (it != cache.constEnd())
            return *it;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QString();
    const QByteArray line = f.readLine(kMaxMetaLineBytes);
    if (!line.endsWith('\n'))
        return QString(); // still being written (or too long): not cached
    const QJsonObject meta = QJsonDocument::fromJson(line).object();
    QString cwd =
        meta.value(QLatin1String("type")).toString() == QLatin1String("session_meta")
            ? meta.value(QLatin1String("payload")).toObject().value(QLatin1String("cwd")).toString()
            : QString();
    QMutexLocker lock(&mutex);
    if (cache.size() >= kMaxCachedMetas)
        cache.clear();
    cache.insert(path, cwd);
    return cwd;
}

// Thread id -> its rollout path, as found by a walk of sessions/ (bounded like the cwd cache).
struct RolloutPaths {
    QMutex mutex;
    QHash<QString, QString> byThread;
};

RolloutPaths &rolloutPaths() {
    static RolloutPaths paths;
    return paths;
}

QString knownRollout(const QString &threadId) {
    RolloutPaths &p = rolloutPaths();
    QMutexLocker lock(&p.mutex);
    return p.byThread.value(threadId);
}

void rememberRollout(const QString &threadId, const QString &path) {
    RolloutPaths &p = rolloutPaths();
    QMutexLocker lock(&p.mutex);
    if (p.byThread.size() >= kMaxCachedMetas)
        p.byThread.clear();
    p.byThread.insert(threadId, path);
}

class RolloutSessions final : public history::SessionSource {
public:
    RolloutSessions(const QString &codexHome, const QString &cwd)
        : m_root(codexHome + QStringLiteral("/sessions")) {
        m_cwds = QStringList{cwd, QDir::cleanPath(cwd)};
        const QString canonical = QFileInfo(cwd).canonicalFilePath();
        if (!canonical.isEmpty())
            m_cwds.append(canonical);
    }

    history::LineFormat format() const override { return &scanRolloutLine; }

    QList<SessionFile> listSessions() const override {
        QList<SessionFile> out = matching(QStringLiteral("rollout-*.jsonl"));
        std::sort(out.begin(), out.end(), [](const SessionFile &a, const SessionFile &b) {
            if (a.lastModifiedMs != b.lastModifiedMs)
                return a.lastModifiedMs > b.lastModifiedMs;
            return a.sessionId < b.sessionId;
        });
        return out;
    }

    std::optional<SessionFile> findSession(const QString &sessionId) const override {
        if (!history::isValidSessionId(sessionId))
            return std::nullopt;
        // A thread's rollout never moves while Flotilla serves it: remember where it was found
        // (a history page is then O(page), not a walk of every day's folder).
        if (const QString known = knownRollout(sessionId); !known.isEmpty()) {
            const QFileInfo fi(known);
            if (fi.isFile() && matchesCwd(rolloutCwd(known), m_cwds))
                return SessionFile{sessionId, known, fi.size(),
                                   fi.lastModified().toMSecsSinceEpoch()};
        }
        const QList<SessionFile> found =
            matching(QStringLiteral("rollout-*-") + sessionId + QStringLiteral(".jsonl"));
        for (const SessionFile &f : found) {
            if (f.sessionId == sessionId) {
                rememberRollout(sessionId, f.path);
                return f;
            }
        }
        return std::nullopt;
    }

private:
    // Rollouts named like `pattern` anywhere under sessions/ that belong to this cwd.
    QList<SessionFile> matching(const QString &pattern) const {
        QList<SessionFile> out;
        QDirIterator it(m_root, {pattern}, QDir::Files | QDir::Readable,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QFileInfo fi(it.next());
            const QString id = threadIdFromRolloutName(fi.fileName());
            if (id.isEmpty() || !matchesCwd(rolloutCwd(fi.absoluteFilePath()), m_cwds))
                continue;
            out.append(
                {id, fi.absoluteFilePath(), fi.size(), fi.lastModified().toMSecsSinceEpoch()});
        }
        return out;
    }

    const QString m_root;
    QStringList m_cwds;
};

} // namespace

void scanRolloutLine(const char *b, const char *e, ScannedLine *out) {
    Skimmer s(b, e);
    if (!history::detail::beginLine(s, out))
        return;
    Span type;
    Item item;
    bool sawPayload = false;
    const bool ok = s.object([&](Span key) {
        const std::string_view k = key.view();
        if (k == "type")
            return s.stringOrValue(&type);
        if (k == "timestamp")
            return s.stringOrValue(&out->timestamp);
        // Only the first payload counts (a duplicate key would otherwise add its parts twice).
        if (k == "payload" && s.peek('{') && !sawPayload) {
            sawPayload = true;
            return scanPayload(s, item, out);
        }
        return s.value();
    });
    s.ws();
    if (!ok || !s.atEnd()) {
        out->uuid = {};
        out->blocks.clear();
        return;
    }
    out->valid = true;
    if (type.view() != "response_item") {
        out->uuid = {};
        out->blocks.clear();
        return;
    }
    classify(item, out);
    if (out->blocks.isEmpty())
        out->uuid = {};
}

history::SessionSourcePtr sessions(const QString &codexHome, const QString &cwd) {
    return std::make_shared<RolloutSessions>(codexHome, cwd);
}

QString threadIdFromRolloutName(const QString &fileName) {
    if (!fileName.startsWith(kRolloutPrefix) || !fileName.endsWith(QLatin1String(".jsonl")))
        return QString();
    const qsizetype from = kRolloutPrefix.size() + kRolloutTimeChars;
    const qsizetype length = fileName.size() - from - qsizetype(6);
    if (length <= 0 || fileName.at(from - 1) != QLatin1Char('-'))
        return QString();
    const QString id = fileName.mid(from, length);
    return history::isValidSessionId(id) ? id : QString();
}

} // namespace flotilla::codex
