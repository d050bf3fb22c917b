#pragma once
// Where Claude Code keeps an agent's sessions, and which session a request means.
//   <claudeHome>/projects/<encoded cwd>/<session-id>.jsonl              the conversation
//   <claudeHome>/projects/<encoded cwd>/<session-id>/subagents/agent-<agentId>.jsonl
//                                         + agent-<agentId>.meta.json    one per sub-agent (Task)
// Plain functions over the file system: safe on any thread.

#include "domain/Error.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace flotilla::history {

// What Claude Code (2.1.x) names a project dir: every UTF-16 unit that is not an ASCII letter or
// digit becomes '-' ("/tmp/my_proj.v2" -> "-tmp-my-proj-v2"); a name over 200 units is cut to
// 200 and gets "-" + a base-36 hash of the path (checked against the real CLI).
QString encodeProjectDirName(const QString &cwd);

// Session ids are UUIDs; anything else (path characters above all) is refused before it gets
// near the file system.
bool isValidSessionId(const QString &id);

// The existing project dirs of a working directory: for the path as given and as resolved by
// symlinks (the CLI sees the resolved one as its cwd), without duplicates.
QStringList projectDirsFor(const QString &claudeHome, const QString &cwd);

struct SessionFile {
    QString sessionId;
    QString path;
    qint64 sizeBytes = 0;
    qint64 lastModifiedMs = 0;
};

// Every <session-id>.jsonl in the dirs, newest first.
QList<SessionFile> listSessions(const QStringList &projectDirs);
std::optional<SessionFile> findSession(const QStringList &projectDirs, const QString &sessionId);

// The session a request reads. `path` empty: no file (yet); `sessionId` empty: no session.
struct ResolvedSession {
    QString sessionId;
    QString path;
};
// requested (query parameter) > the agent's own session > the newest file; see HistoryService.h.
Result<ResolvedSession> resolveSession(const QStringList &projectDirs,
                                       const QString &agentSessionId,
                                       const QString &requestedSessionId);

// A session's sub-agent transcripts by the tool_use id that started them (from the
// *.meta.json files the CLI writes beside them). Cost: one small dir listing.
QHash<QString, QString> subagentFiles(const QString &sessionFilePath);
QString subagentsDir(const QString &sessionFilePath);
// "agent-ab54f2a2.jsonl" -> "ab54f2a2"
QString agentIdFromFile(const QString &path);

} // namespace flotilla::history
