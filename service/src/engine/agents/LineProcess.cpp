#include "agents/LineProcess.h"

#include "base/ChildProcess.h"
#include "base/Logging.h"
#include "base/Sandbox.h"

#include <QProcess>
#include <QTimer>

#include <csignal>

namespace flotilla {

LineProcess::LineProcess(QObject *parent)
    : QObject(parent) {
}

LineProcess::~LineProcess() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        killGroup(SIGKILL);
        m_process->waitForFinished(1000);
    }
}

void LineProcess::start(const LaunchPlan &plan) {
    m_process = new QProcess(this);
    m_sandboxed = plan.sandboxed;
    m_remoteSignal = plan.remoteSignal;
    // Own group (a stop reaches the tool commands too), no orphan if flotillad dies, the
    // user's umask for the files the agent writes.
    applyLaunchPlan(*m_process, plan);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &LineProcess::onStdout);
    connect(m_process, &QProcess::readyReadStandardError, this, &LineProcess::onStderr);
    connect(m_process, &QProcess::started, this, [this] { m_pgid = m_process->processId(); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            Q_EMIT failedToStart(m_process->errorString());
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        onStdout();
        if (!m_buffer.isEmpty()) { // a last line without newline
            const QByteArray last = std::exchange(m_buffer, QByteArray());
            Q_EMIT lineReceived(last);
        }
        // The group may outlive its leader (a tool command still running): end it. (On another
        // host the wrapper waits for its command: it ended with it.)
        if (m_pgid > 0)
            signalLaunched(m_pgid, m_sandboxed, SIGKILL);
        // A crash exit's code is the signal (waitid's si_status); bwrap reports its command's
        // signal N as the code 128+N.
        const ChildExit exit = decodeExit(m_sandboxed, code, int(status));
        Q_EMIT finished(exit.exitCode.value_or(-1), exit.signal.value_or(0), m_stopRequested);
    });
    m_process->start(QIODevice::ReadWrite);
    // On another host: the environment and files the wrapper reads before the CLI starts
    // (base/RemoteLaunch.h); the CLI's own lines follow.
    if (!plan.stdinPreamble.isEmpty())
        m_process->write(plan.stdinPreamble);
}

bool LineProcess::isRunning() const {
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 LineProcess::pid() const {
    return m_process ? m_process->processId() : 0;
}

void LineProcess::write(const QByteArray &line) {
    if (m_process)
        m_process->write(line);
}

void LineProcess::stop(int graceMs) {
    if (!isRunning())
        return;
    m_stopRequested = true;
    killGroup(SIGTERM);
    QTimer::singleShot(graceMs, this, [this] {
        if (isRunning())
            killGroup(SIGKILL);
    });
}

void LineProcess::killGroup(int signal) {
    // On another host the command's own group is signalled there (over the link): a SIGTERM to
    // the local ssh would only close its stdin. SIGKILL ends the local ssh too.
    if (m_remoteSignal.isSet())
        signalRemote(m_remoteSignal, signal);
    if (m_pgid > 0 && (!m_remoteSignal.isSet() || signal == SIGKILL))
        signalLaunched(m_pgid, m_sandboxed, signal);
}

void LineProcess::onStdout() {
    // Always drain the pipe: QProcess buffers unread output without limit.
    m_buffer += m_process->readAllStandardOutput();
    qsizetype start = 0;
    while (true) {
        const qsizetype nl = m_buffer.indexOf('\n', start);
        if (nl < 0)
            break;
        if (m_skippingLongLine)
            m_skippingLongLine = false;
        else
            Q_EMIT lineReceived(QByteArray::fromRawData(m_buffer.constData() + start, nl - start));
        start = nl + 1;
    }
    m_buffer.remove(0, start);
    if (m_buffer.size() > kMaxLineBytes) {
        qCWarning(lcAgents) << "dropping a CLI output line longer than" << kMaxLineBytes << "bytes";
        m_buffer.clear();
        m_skippingLongLine = true;
    }
}

void LineProcess::onStderr() {
    m_stderr += m_process->readAllStandardError();
    if (m_stderr.size() > kStderrTail)
        m_stderr = m_stderr.right(kStderrTail);
}

} // namespace flotilla
