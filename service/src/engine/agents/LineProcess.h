#pragma once
// An agent CLI's child process that talks in lines over stdio (Claude's stream-json, Codex's
// JSON-RPC): the part of every provider's AgentProcess that is not its protocol. The child runs
// in its own process group, so that stopping it also stops whatever it started (tool commands),
// and dies with flotillad (base/ChildProcess.h). Its pipes are always drained: QProcess would
// otherwise buffer without limit, so a line is capped and stderr is kept as a short tail.

#include "base/RemoteLaunch.h"

#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>

class QProcess;

namespace flotilla {

struct LaunchPlan;

class LineProcess final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LineProcess)
public:
    static constexpr qsizetype kMaxLineBytes = 64 * 1024 * 1024; // longer lines are dropped, logged
    static constexpr qsizetype kStderrTail = 8 * 1024;

    explicit LineProcess(QObject *parent = nullptr);
    ~LineProcess() override; // kills the whole group

    // The plan as the launcher made it (base/Sandbox.h): the CLI as is, or inside bwrap.
    void start(const LaunchPlan &plan);
    bool isRunning() const;
    qint64 pid() const;
    void write(const QByteArray &line);
    // SIGTERM to the group (in a sandbox: to the CLI's session inside it), SIGKILL after
    // `graceMs`. finished() follows.
    void stop(int graceMs);
    QString stderrTail() const { return QString::fromUtf8(m_stderr); }

Q_SIGNALS:
    // One line of stdout, without its newline (and a last one without newline at exit). The
    // bytes are not copied: they are valid during the signal only.
    void lineReceived(const QByteArray &line);
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
    bool m_stopRequested = false;
    qint64 m_pgid = 0;
    bool m_sandboxed = false;
    RemoteSignal m_remoteSignal; // set when the CLI runs on another host
};

} // namespace flotilla
