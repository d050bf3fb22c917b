#pragma once
// One running Claude Code CLI, as a job object (STYLE.md #5): QProcess stays private, the job
// exposes typed events. The CLI runs in its own process group so that stopping it also stops
// whatever it started (tool commands), and it dies with flotillad (PR_SET_PDEATHSIG).

#include "agents/ClaudeEvents.h"

#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>

class QProcess;

namespace flotilla {

struct ClaudeLaunch {
    QString program;
    QString cwd;
    QString resumeSessionId; // empty: a new session
    QString model;
    QString appendSystemPrompt;
    QProcessEnvironment environment;
    // Adds PreToolUse and PermissionRequest hooks that ask the service (FLOTILLA_URL) about
    // every tool use; see permissions/PermissionController.h.
    bool permissionHooks = false;

    QStringList arguments() const;
};

class ClaudeProcess final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ClaudeProcess)
public:
    static constexpr qsizetype kMaxLineBytes = 64 * 1024 * 1024; // longer lines are dropped, logged
    static constexpr qsizetype kStderrTail = 8 * 1024;

    explicit ClaudeProcess(QObject *parent = nullptr);
    ~ClaudeProcess() override; // kills the whole group

    void start(const ClaudeLaunch &launch);
    bool isRunning() const;
    qint64 pid() const;
    void send(const QByteArray &line);
    // SIGTERM to the group, SIGKILL after `graceMs`. finished() follows.
    void stop(int graceMs = 2000);
    QString stderrTail() const { return QString::fromUtf8(m_stderr); }

Q_SIGNALS:
    void claudeEvent(const flotilla::ClaudeEvent &event);
    // A normal exit has `signal` 0 and its exit code; a process killed by a signal has that
    // signal's number (and exitCode -1). `requested` when stop() was called.
    void finished(int exitCode, int signal, bool requested);
    void failedToStart(const QString &why);

private:
    void onStdout();
    void onStderr();
    void killGroup(int signal);

    QProcess *m_process = nullptr;
    QByteArray m_buffer;
    QByteArray m_stderr;
    bool m_skippingLongLine = false;
    static constexpr qint64 kLoggedMalformedLines = 5;
    qint64 m_malformedLines = 0;
    bool m_stopRequested = false;
    qint64 m_pgid = 0;
};

} // namespace flotilla
