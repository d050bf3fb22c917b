#pragma once
// Where Claude Code keeps an agent's sessions, and how their lines read:
//   <claudeHome>/projects/<encoded cwd>/<session-id>.jsonl              the conversation
//   <claudeHome>/projects/<encoded cwd>/<session-id>/subagents/agent-<agentId>.jsonl
//                                         + agent-<agentId>.meta.json    one per sub-agent (Task)
// Read through the provider-neutral history (history/SessionSource.h). Plain functions over the
// file system: safe on any thread.

#include "history/LineScanner.h"
#include "history/SessionSource.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace flotilla::claude {

// One line of a session file -> its entries (history/LineScanner.h): the text, image, tool_use
// and tool_result blocks of "user" and "assistant" lines' message.content; never an "isMeta"
// line's. [b, e) is one line without its '\n'; never reads outside it.
void scanSessionLine(const char *b, const char *e, history::ScannedLine *out);

// What Claude Code (2.1.x) names a project dir: every UTF-16 unit that is not an ASCII letter or
// digit becomes '-' ("/tmp/my_proj.v2" -> "-tmp-my-proj-v2"); a name over 200 units is cut to
// 200 and gets "-" + a base-36 hash of the path (checked against the real CLI).
QString encodeProjectDirName(const QString &cwd);

// The existing project dirs of a working directory: for the path as given and as resolved by
// symlinks (the CLI sees the resolved one as its cwd), without duplicates.
QStringList projectDirsFor(const QString &claudeHome, const QString &cwd);

// Every <session-id>.jsonl in the dirs, newest first.
QList<history::SessionFile> listSessions(const QStringList &projectDirs);
std::optional<history::SessionFile> findSession(const QStringList &projectDirs,
                                                const QString &sessionId);

// Claude Code's sessions of `cwd` under `claudeHome` (it touches the file system: call it on a
// worker), or those in already-known project dirs.
history::SessionSourcePtr sessions(const QString &claudeHome, const QString &cwd);
history::SessionSourcePtr sessionsIn(const QStringList &projectDirs);

// A session's sub-agent transcripts by the tool_use id that started them (from the
// *.meta.json files the CLI writes beside them). Cost: one small dir listing.
QHash<QString, QString> subagentFiles(const QString &sessionFilePath);
QString subagentsDir(const QString &sessionFilePath);
// "agent-ab54f2a2.jsonl" -> "ab54f2a2"
QString agentIdFromFile(const QString &path);

} // namespace flotilla::claude
