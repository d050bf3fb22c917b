#pragma once
// One run of a building's command as a job object: the argv runs without a shell in its own
// process group (base/ChildProcess.h: dies with flotillad), stdin /dev/null. QProcess stays
// private; the run exposes masked text as it arrives, batched text for events, and one
// finished(outcome).
//
// Output is read as soon as it arrives (a pipe is never left to fill up), passed through a
// SecretMasker per stream and decoded as UTF-8 with state kept between reads (a character split
// across two reads stays whole), then handed both to text() at once (the log ring) and to an
// ExecOutputStream (batching, pacing and bounds of the events, as exec's). When the command ends,
// whatever it left in its group is killed: no leftover holds the port of the next run.
//
// BuildingLog, beside it, is the ring of lines a building keeps across its runs.

#include "base/Sandbox.h"
#include "exec/ExecOutputStream.h"
#include "exec/SecretMasker.h"

#include <QObject>
#include <QProcessEnvironment>
#include <QStringConverter>
#include <QStringList>
#include <QTimer>

#include <deque>
#include <optional>

class QProcess;

namespace flotilla {

struct BuildingLaunch {
    QString program; // absolute path
    QStringList arguments;
    QString cwd;
    QProcessEnvironment environment; // secrets substituted
    QList<QByteArray> maskValues;    // shown as "***" in everything the run emits
    StreamConfig stream;
    // How it starts (base/Sandbox.h): the program as is, or in its agent's sandbox.
    LaunchPlan plan;
};

struct BuildingOutcome {
    std::optional<int> exitCode; // none when a signal ended it or it did not start
    std::optional<int> signal;
    QString startError; // non-empty when the program could not be started
};

class BuildingRun final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BuildingRun)
public:
    explicit BuildingRun(QObject *parent = nullptr);
    ~BuildingRun() override; // SIGKILLs the whole group if it still runs

    // False (with finished() queued) when the program could not be started.
    bool start(const BuildingLaunch &launch);
    // SIGTERM to the group, SIGKILL after `graceMs`; finished() follows.
    void stop(int graceMs);
    // The service's shutdown, synchronously and for every run at once: beginShutdown() sends
    // SIGTERM to the group and silences the run (no signal is emitted afterwards);
    // finishShutdown() waits up to `waitMs` for the program, then SIGKILLs what is left of the
    // group.
    void beginShutdown();
    void finishShutdown(int waitMs);
    bool isRunning() const { return m_pid > 0 && !m_done; }
    qint64 pid() const { return m_pid; }

Q_SIGNALS:
    // Masked text, as soon as it was read (whole characters).
    void text(const QString &text, bool isError);
    // The same text batched for events (ExecOutputStream::chunk).
    void chunk(const QByteArray &utf8, bool isError, qint64 skippedBefore);
    // Once the program ended and its last chunk left.
    void finished(const flotilla::BuildingOutcome &outcome);

private:
    struct Stream {
        SecretMasker masker;
        QStringDecoder decoder{QStringDecoder::Utf8};
    };
    void read(bool isError);
    void deliver(bool isError, const QByteArray &masked);
    void onFinished(std::optional<int> exitCode, std::optional<int> signal);
    void killGroup(int signal);

    QProcess *m_process = nullptr;
    ExecOutputStream *m_stream = nullptr;
    Stream m_streams[2]; // [0] stdout, [1] stderr
    QTimer m_killTimer;
    qint64 m_pid = 0;
    bool m_sandboxed = false;
    BuildingOutcome m_outcome;
    bool m_starting = false;
    bool m_done = false;
};

// The newest lines a building printed, across its runs: at most `maxBytes` of UTF-8 text
// (newlines counted) and `maxLines` lines, whole lines, the oldest leaving first. The line count
// bounds memory when a program prints empty lines. A line longer than `maxLineChars` (UTF-16
// units) is cut into several. What a stream printed after its last newline waits as that
// stream's partial line and is shown as the newest line until the newline comes or the run ends.
class BuildingLog final {
public:
    struct Line {
        QString text; // without its newline (nor a '\r' before it)
        bool isError = false;
    };

    explicit BuildingLog(qsizetype maxBytes = 1024 * 1024, qsizetype maxLines = 100'000,
                         qsizetype maxLineChars = 16 * 1024);

    void append(const QString &text, bool isError);
    // The run ended: partial lines become lines.
    void endRun();
    // The newest `count` lines; `*truncated` tells whether older ones exist (dropped from the
    // ring, or left out by `count`).
    QList<Line> tail(int count, bool *truncated) const;
    qsizetype bytes() const { return m_bytes; }

private:
    void push(const QString &text, bool isError);

    qsizetype m_maxBytes;
    qsizetype m_maxLines;
    qsizetype m_maxLineChars;
    std::deque<Line> m_lines;
    qsizetype m_bytes = 0; // UTF-8 bytes of m_lines and the partial lines
    QString m_partial[2];
    bool m_dropped = false;
};

} // namespace flotilla
