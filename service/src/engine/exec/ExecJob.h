#pragma once
// One `bash -c` command as a job object: QProcess stays private; the job exposes
// masked, batched output and one finished(outcome).
//
// The shell runs in its own process group, so kill() and the end of the task reach everything it
// started (`sleep 60 & wait` included); the shell dies with flotillad (PR_SET_PDEATHSIG).
// Output is read as soon as it arrives (a pipe is never left to fill up), passed through a
// SecretMasker per stream, then handed to an ExecOutputStream (batching, pacing, bounds). Only the
// last `outputTailBytes` are kept for the final result, so a task's memory is bounded whatever the
// command prints. finished() comes once the process ended and its last output chunk left.

#include "base/Sandbox.h"
#include "exec/ExecOutputStream.h"
#include "exec/SecretMasker.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <optional>

class QProcess;

namespace flotilla {

struct ExecJobConfig {
    QString shell = QStringLiteral("bash"); // resolved through PATH by QProcess
    StreamConfig stream;
    qsizetype outputTailBytes = 1024 * 1024;
    int killGraceMs = 2000; // SIGTERM to the group, then SIGKILL
};

struct ExecSpec {
    QString command; // secrets already substituted: what bash runs
    QString cwd;
    int timeoutMs = 0;            // 0: no time limit
    QList<QByteArray> maskValues; // masked as "***" in everything the job emits
    SandboxSpec sandbox;          // the agent's (sandbox/SandboxPolicy.h); off: none
    RemoteSpec remote;            // the agent's host when it is another machine; unset: here
};

struct ExecOutcome {
    std::optional<int> exitCode; // none when killed, timed out, ended by a signal or not started
    std::optional<int> signal;   // the signal that ended the shell, if one did
    bool killed = false;         // ended by kill() (DELETE, timeout, agent deleted)
    bool timedOut = false;       // killed because timeoutMs passed
    bool truncated = false;      // `output` lost its beginning
    QByteArray output;           // masked UTF-8, stdout and stderr as they arrived, last bytes
    qint64 totalBytes = 0;       // everything the command printed
    qint64 skippedBytes = 0;     // output never streamed: clients were not keeping up
    qint64 durationMs = 0;
    QString startError; // non-empty when bash could not be started

    bool success() const { return exitCode == 0 && !killed; }
};

class ExecJob final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecJob)
public:
    explicit ExecJob(ExecJobConfig config, QObject *parent = nullptr);
    ~ExecJob() override; // SIGKILLs the whole group if it still runs

    // `launcher` places the shell (as is, or in the spec's sandbox): base/Sandbox.h.
    void start(const ExecSpec &spec, const ProcessLauncher &launcher);
    // SIGTERM to the group, SIGKILL after killGraceMs; finished() follows with killed set.
    void kill();
    bool isRunning() const;
    qint64 processGroup() const { return m_pgid; }

Q_SIGNALS:
    void output(const QByteArray &utf8, bool isError, qint64 skippedBefore);
    void finished(const flotilla::ExecOutcome &outcome);

private:
    struct Stream {
        SecretMasker masker;
        QByteArray carry; // an incomplete UTF-8 sequence waiting for its last bytes
    };
    void read(bool isError);
    void deliver(bool isError, QByteArray bytes, bool final);
    void onFinished(std::optional<int> exitCode, std::optional<int> signal);
    void killGroup(int signal);

    ExecJobConfig m_config;
    QProcess *m_process = nullptr;
    qint64 m_pgid = 0;
    bool m_sandboxed = false;
    RemoteSignal m_remoteSignal; // set when the command runs on another host
    QString m_planError;         // the launcher refused: nothing ran
    Stream m_streams[2];         // [0] stdout, [1] stderr
    ExecOutputStream *m_stream = nullptr;
    ExecOutcome m_outcome; // complete once the process ended; sent when the stream drained
    QByteArray m_tail;
    bool m_truncated = false;
    qint64 m_totalBytes = 0;
    QTimer m_timeout;
    QTimer m_killTimer;
    QElapsedTimer m_clock;
    bool m_killed = false;
    bool m_timedOut = false;
    bool m_done = false;
};

} // namespace flotilla
