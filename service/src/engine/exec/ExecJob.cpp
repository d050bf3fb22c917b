#include "exec/ExecJob.h"

#include "base/ChildProcess.h"

#include <QProcess>

#include <csignal>

namespace flotilla {

namespace {

// The command reaches bash through its environment, not its argv: /proc/<pid>/cmdline is readable
// by every local user, /proc/<pid>/environ only by ours, and the substituted secrets must not be
// visible to others. The variable is unset before the command runs, so its children do not
// inherit it; `eval` of the whole text behaves as `bash -c` with that text (exit, traps, heredocs).
constexpr char kCommandVariable[] = "FLOTILLA_EXEC_COMMAND";
constexpr char kWrapper[] =
    "__flotilla_command=$FLOTILLA_EXEC_COMMAND; unset FLOTILLA_EXEC_COMMAND; "
    "eval \"$__flotilla_command\"";

// Bytes at the end of `b` that begin a UTF-8 sequence still missing its continuation bytes: they
// wait for the next read, so no character is split into two U+FFFD between two events.
qsizetype incompleteUtf8Tail(const QByteArray &b) {
    const qsizetype n = b.size();
    for (qsizetype i = 1; i <= 3 && i <= n; ++i) {
        const auto c = uchar(b.at(n - i));
        if ((c & 0xC0) == 0x80)
            continue; // continuation byte: look further back for the lead byte
        const qsizetype need = (c & 0xE0) == 0xC0   ? 2
                               : (c & 0xF0) == 0xE0 ? 3
                               : (c & 0xF8) == 0xF0 ? 4
                                                    : 1;
        return need > i ? i : 0;
    }
    return 0;
}

} // namespace

ExecJob::ExecJob(ExecJobConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_stream(new ExecOutputStream(m_config.stream, this)) {
    connect(m_stream, &ExecOutputStream::chunk, this, &ExecJob::output);
    connect(m_stream, &ExecOutputStream::drained, this, [this] {
        m_outcome.skippedBytes = m_stream->skippedBytes();
        Q_EMIT finished(m_outcome);
    });
    m_timeout.setSingleShot(true);
    m_timeout.setTimerType(Qt::PreciseTimer); // a coarse timer may fire 5% early
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        m_timedOut = true;
        kill();
    });
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] { killGroup(SIGKILL); });
}

ExecJob::~ExecJob() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        killGroup(SIGKILL);
        m_process->waitForFinished(1000);
    }
}

void ExecJob::start(const ExecSpec &spec, const ProcessLauncher &launcher) {
    m_streams[0].masker = SecretMasker(spec.maskValues);
    m_streams[1].masker = SecretMasker(spec.maskValues);
    m_process = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // The output of every command is broadcast to every WebSocket client: `env` must not show
    // the service's token there.
    env.remove(QStringLiteral("AUTH_TOKEN"));
    env.remove(QStringLiteral("FLOTILLA_TOKEN"));
    env.insert(QString::fromLatin1(kCommandVariable), spec.command);
    ProcessSpec process{m_config.shell, {QStringLiteral("-c"), QString::fromLatin1(kWrapper)},
                        spec.cwd,       env,
                        spec.sandbox,   spec.remote};
    if (spec.remote.isRemote()) {
        // That host's bash; the command travels in the stdin preamble, never on a command line.
        process.program = QStringLiteral("bash");
        process.remote.sendEnvironment = {QString::fromLatin1(kCommandVariable)};
    }
    auto plan = launcher.plan(process);
    if (!plan) {
        m_planError = plan.error().message;
        m_clock.start();
        onFinished(std::nullopt, std::nullopt);
        return;
    }
    m_sandboxed = plan->sandboxed;
    m_remoteSignal = plan->remoteSignal;
    // Own group (a kill reaches the shell's children too), no orphan if flotillad dies, the
    // user's umask; perhaps inside the agent's sandbox.
    applyLaunchPlan(*m_process, *plan);
    // Nobody types into an exec task: a command reading stdin gets EOF instead of hanging. On
    // another host the stdin carries the wrapper's preamble first (base/RemoteLaunch.h), then ends.
    if (!plan->remote)
        m_process->setStandardInputFile(QProcess::nullDevice());
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { read(false); });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] { read(true); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            onFinished(std::nullopt, std::nullopt);
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        // A crash exit's code is the signal; bwrap reports its command's signal N as 128+N.
        const ChildExit exit = decodeExit(m_sandboxed, code, int(status));
        onFinished(exit.exitCode, exit.signal);
    });
    m_clock.start();
    m_process->start(plan->remote ? QIODevice::ReadWrite : QIODevice::ReadOnly);
    if (plan->remote) {
        m_process->write(plan->stdinPreamble);
        m_process->closeWriteChannel();
    }
    // On Unix start() returns once exec succeeded or failed, so the group exists by now.
    if (m_process->state() != QProcess::NotRunning)
        m_pgid = m_process->processId();
    if (spec.timeoutMs > 0 && !m_done)
        m_timeout.start(spec.timeoutMs);
}

bool ExecJob::isRunning() const {
    return m_process && !m_done;
}

void ExecJob::kill() {
    if (!isRunning() || m_killed)
        return;
    m_killed = true;
    killGroup(SIGTERM);
    m_killTimer.start(m_config.killGraceMs);
}

void ExecJob::killGroup(int signal) {
    // On another host the command's own group is signalled there (over the link): a SIGTERM to
    // the local ssh would only close its stdin. SIGKILL ends the local ssh too.
    if (m_remoteSignal.isSet())
        signalRemote(m_remoteSignal, signal);
    if (m_pgid > 0 && (!m_remoteSignal.isSet() || signal == SIGKILL))
        signalLaunched(m_pgid, m_sandboxed, signal);
}

void ExecJob::read(bool isError) {
    // Always drain: QProcess would otherwise buffer unread output without limit.
    const QByteArray data =
        isError ? m_process->readAllStandardError() : m_process->readAllStandardOutput();
    if (data.isEmpty())
        return;
    m_totalBytes += data.size();
    deliver(isError, m_streams[isError].masker.feed(data), false);
}

void ExecJob::deliver(bool isError, QByteArray bytes, bool final) {
    Stream &s = m_streams[isError];
    if (!s.carry.isEmpty())
        bytes.prepend(s.carry);
    s.carry.clear();
    if (!final) {
        const qsizetype partial = incompleteUtf8Tail(bytes);
        s.carry = bytes.right(partial);
        bytes.chop(partial);
    }
    if (bytes.isEmpty())
        return;

    // The result keeps the tail; trimmed only a quarter past the cap, so long outputs are not
    // memmoved on every read.
    m_tail += bytes;
    if (m_tail.size() > m_config.outputTailBytes + m_config.outputTailBytes / 4) {
        m_tail.remove(0, m_tail.size() - m_config.outputTailBytes);
        m_truncated = true;
    }

    m_stream->append(isError, std::move(bytes));
}

void ExecJob::onFinished(std::optional<int> exitCode, std::optional<int> signal) {
    if (m_done)
        return;
    m_done = true;
    m_timeout.stop();
    m_killTimer.stop();
    // What the shell's last writes left in the pipes, then whatever it left running: no exec
    // outlives its task.
    read(false);
    read(true);
    if (m_pgid > 0) // (on another host the wrapper waited for its command: it ended with it)
        signalLaunched(m_pgid, m_sandboxed, SIGKILL);
    for (bool isError : {false, true})
        deliver(isError, m_streams[isError].masker.finish(), true);

    ExecOutcome &out = m_outcome;
    out.killed = m_killed;
    out.timedOut = m_timedOut;
    out.signal = signal;
    out.exitCode = m_killed ? std::nullopt : exitCode;
    out.durationMs = m_clock.elapsed();
    out.totalBytes = m_totalBytes;
    qsizetype cut = qMax<qsizetype>(0, m_tail.size() - m_config.outputTailBytes);
    m_truncated = m_truncated || cut > 0;
    while (m_truncated && cut < m_tail.size() && (uchar(m_tail.at(cut)) & 0xC0) == 0x80)
        ++cut; // start on a character boundary
    m_tail.remove(0, cut);
    out.truncated = m_truncated;
    out.output = std::exchange(m_tail, {});
    if (!m_planError.isEmpty()) {
        out.startError = m_planError;
        out.output = "flotillad: the command could not be started: " + m_planError.toUtf8();
    } else if (m_process->error() == QProcess::FailedToStart) {
        out.startError = m_process->errorString();
        out.output = "flotillad: the command could not be started: " + out.startError.toUtf8();
    }
    m_stream->finish(); // finished(m_outcome) once the last chunk left
}

} // namespace flotilla
