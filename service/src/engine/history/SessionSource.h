#pragma once
// Where one agent's sessions are on disk and how their lines read: the seam between the history
// operations (HistoryService, HistorySearch), which are the same for every provider, and each
// CLI's own layout, which its provider knows (Provider::sessionFinder(): Claude Code's in
// agents/claude/ClaudeSessions.h, Codex's in agents/codex/CodexSessions.h). Everything in this
// folder only sees this interface.
//
// Implementations are immutable after construction and used from worker threads.

#include "base/Error.h"
#include "history/LineScanner.h"

#include <QHash>
#include <QList>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace flotilla::history {

struct SessionFile {
    QString sessionId;
    QString path;
    qint64 sizeBytes = 0;
    qint64 lastModifiedMs = 0;
};

// The session a request reads. `path` empty: no file (yet); `sessionId` empty: no session.
struct ResolvedSession {
    QString sessionId;
    QString path;
};

// Session ids are UUIDs (Codex's thread ids too); anything else (path characters above all) is
// refused before it gets near the file system.
bool isValidSessionId(const QString &id);

class SessionSource {
public:
    virtual ~SessionSource() = default;

    // How the CLI's session lines read.
    virtual LineFormat format() const = 0;
    // Every session of this agent's working directory, newest first.
    virtual QList<SessionFile> listSessions() const = 0;
    // The session `sessionId` if it belongs to this working directory.
    virtual std::optional<SessionFile> findSession(const QString &sessionId) const = 0;

    // Sub-agent transcripts kept beside a session (Claude Code's Task tool writes them). A CLI
    // without them keeps these defaults: none, and the functions below are never called.
    virtual bool hasSubagents() const { return false; }
    // Whether a tool use of this name starts a sub-agent. Only decides whether a miss in the
    // cached sub-agent map is worth listing the transcripts again.
    virtual bool startsSubagent(const QString &toolName) const;
    // The dir holding a session's transcripts: a cached map is stale once its mtime changes.
    virtual QString subagentsDir(const QString &sessionFilePath) const;
    // A session's transcripts by the tool_use id that started them.
    virtual QHash<QString, QString> subagentFiles(const QString &sessionFilePath) const;
    // The sub-agent id of a transcript (its entries' agentId).
    virtual QString subagentId(const QString &transcriptPath) const;
};

using SessionSourcePtr = std::shared_ptr<const SessionSource>;

// Finds the sessions of an agent working in `cwd`; it touches the file system, so it is called
// on a worker. A provider hands one out (Provider::sessionFinder()) holding what it needs by
// value, so it may outlive the provider.
using SessionFinder = std::function<SessionSourcePtr(const QString &cwd)>;

// A source without sessions: the history of an agent whose CLI keeps none this service can read.
SessionSourcePtr noSessions();

// requested (query parameter) > the agent's own session > the newest file; see HistoryService.h.
Result<ResolvedSession> resolveSession(const SessionSource &source, const QString &agentSessionId,
                                       const QString &requestedSessionId);

} // namespace flotilla::history
