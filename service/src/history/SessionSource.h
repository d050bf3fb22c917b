#pragma once
// Where one agent's sessions are on disk and how their lines read: the seam between the history
// operations (HistoryService, HistorySearch), which are the same for every provider, and each
// CLI's own layout. Claude Code: SessionFiles.h; Codex: CodexRollout.h. The controller picks one
// by the agent's provider; everything past that point only sees this interface.
//
// Implementations are immutable after construction and used from worker threads.

#include "history/LineScanner.h"
#include "history/SessionFiles.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace flotilla::history {

class SessionSource {
public:
    virtual ~SessionSource() = default;

    virtual LineFormat format() const = 0;
    // Every session of this agent's working directory, newest first.
    virtual QList<SessionFile> listSessions() const = 0;
    // The session `sessionId` if it belongs to this working directory.
    virtual std::optional<SessionFile> findSession(const QString &sessionId) const = 0;
    // Whether sessions may have sub-agent transcripts beside them (only Claude Code's do).
    virtual bool hasSubagents() const = 0;
};

using SessionSourcePtr = std::shared_ptr<const SessionSource>;

// Claude Code's sessions of `cwd` under `claudeHome` (it touches the file system: call it on a
// worker), or those in already-known project dirs.
SessionSourcePtr claudeSessions(const QString &claudeHome, const QString &cwd);
SessionSourcePtr claudeSessionsIn(const QStringList &projectDirs);

// requested (query parameter) > the agent's own session > the newest file; see HistoryService.h.
Result<ResolvedSession> resolveSession(const SessionSource &source, const QString &agentSessionId,
                                       const QString &requestedSessionId);

} // namespace flotilla::history
