#include "buildings/BuildingRun.h"

#include "base/ChildProcess.h"

#include <QProcess>

#include <csignal>
#include <unistd.h>

namespace flotilla {

namespace {

// UTF-8 bytes of UTF-16 text, without converting it (a surrogate pair is 4 bytes, 2 per unit).
qsizetype utf8Size(QStringView text) {
    qsizetype n = 0;
    for (QChar ch : text) {
        const char16_t u = ch.unicode();
        n += u < 0x80 ? 1 : u < 0x800 || ch.isSurrogate() ? 2 : 3;
    }
    return n;
}

} // namespace

BuildingRun::BuildingRun(QObject *parent)
    : QObject(parent) {
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] { killGroup(SIGKILL); });
}

BuildingRun::~BuildingRun() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        killGroup(SIGKILL);
        m_process->waitForFinished(1000);
    }
}

bool BuildingRun::start(const BuildingLaunch &launch) {
    for (Stream &s : m_streams)
        s.masker = SecretMasker(launch.maskValues);
    m_stream = new ExecOutputStream(launch.stream, this);
    connect(m_stream, &ExecOutputStream::chunk, this, &BuildingRun::chunk);
    connect(m_stream, &ExecOutputStream::drained, this, [this] { Q_EMIT finished(m_outcome); });

    m_process = new QProcess(this);
    // Own group (a stop reaches its children too), no orphan if flotillad dies, the user's umask;
    // perhaps inside its agent's sandbox.
    m_sandboxed = launch.plan.sandboxed;
    applyLaunchPlan(*m_process, launch.plan);
    // Nobody types into a building: a program reading stdin gets EOF instead of waiting.
    m_process->setStandardInputFile(QProcess::nullDevice());
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { read(false); });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] { read(true); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        // A failure inside start() is reported once start() returned (below), so that the
        // caller is never re-entered.
        if (e == QProcess::FailedToStart && !m_starting)
            onFinished(std::nullopt, std::nullopt);
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        // A crash exit's code is the signal; bwrap reports its command's signal N as 128+N.
        const ChildExit exit = decodeExit(m_sandboxed, code, int(status));
        onFinished(exit.exitCode, exit.signal);
    });
    m_starting = true;
    m_process->start(QIODevice::ReadOnly);
    m_starting = false;
    // On Unix start() returns once exec succeeded or failed, so the group exists by now.
    if (m_process->state() != QProcess::NotRunning) {
        m_pid = m_process->processId();
        return true;
    }
    // Queued: let the caller finish what it does with a run that did not start.
    QMetaObject::invokeMethod(
        this, [this] { onFinished(std::nullopt, std::nullopt); }, Qt::QueuedConnection);
    return false;
}

void BuildingRun::stop(int graceMs) {
    if (!isRunning() || m_killTimer.isActive())
        return;
    killGroup(SIGTERM);
    m_killTimer.start(graceMs);
}

void BuildingRun::beginShutdown() {
    if (!isRunning())
        return;
    m_process->disconnect(this);
    m_stream->disconnect(this);
    m_killTimer.stop();
    killGroup(SIGTERM);
}

void BuildingRun::finishShutdown(int waitMs) {
    if (!isRunning())
        return;
    m_done = true;
    if (!m_process->waitForFinished(waitMs)) {
        killGroup(SIGKILL);
        m_process->waitForFinished(1000);
    }
    killGroup(SIGKILL); // what the program left in its group
}

void BuildingRun::killGroup(int signal) {
    if (m_pid > 0)
        signalLaunched(m_pid, m_sandboxed, signal);
}

void BuildingRun::read(bool isError) {
    // Always drain: QProcess would otherwise buffer unread output without limit.
    const QByteArray data =
        isError ? m_process->readAllStandardError() : m_process->readAllStandardOutput();
    if (!data.isEmpty())
        deliver(isError, m_streams[isError].masker.feed(data));
}

void BuildingRun::deliver(bool isError, const QByteArray &masked) {
    if (masked.isEmpty())
        return;
    // Stateful: the bytes of a character split between two reads wait in the decoder.
    const QString text = m_streams[isError].decoder.decode(masked);
    if (text.isEmpty())
        return;
    Q_EMIT this->text(text, isError);
    m_stream->append(isError, text.toUtf8());
}

void BuildingRun::onFinished(std::optional<int> exitCode, std::optional<int> signal) {
    if (m_done)
        return;
    m_done = true;
    m_killTimer.stop();
    // What the program's last writes left in the pipes, then whatever it left running.
    read(false);
    read(true);
    killGroup(SIGKILL);
    for (bool isError : {false, true})
        deliver(isError, m_streams[isError].masker.finish());
    m_outcome.exitCode = exitCode;
    m_outcome.signal = signal;
    if (m_process->error() == QProcess::FailedToStart)
        m_outcome.startError = m_process->errorString();
    m_stream->finish(); // finished(m_outcome) once the last chunk left
}

BuildingLog::BuildingLog(qsizetype maxBytes, qsizetype maxLines, qsizetype maxLineChars)
    : m_maxBytes(maxBytes)
    , m_maxLines(maxLines)
    , m_maxLineChars(maxLineChars) {
}

void BuildingLog::append(const QString &text, bool isError) {
    QString &partial = m_partial[isError];
    qsizetype from = 0;
    while (from < text.size()) {
        const qsizetype newline = text.indexOf(QLatin1Char('\n'), from);
        const qsizetype end = newline < 0 ? text.size() : newline;
        const QStringView piece = QStringView(text).mid(from, end - from);
        partial += piece;
        m_bytes += utf8Size(piece);
        while (partial.size() > m_maxLineChars) {
            qsizetype cut = m_maxLineChars;
            if (partial.at(cut - 1).isHighSurrogate())
                --cut; // never half a character
            const QString head = partial.left(cut);
            partial.remove(0, cut);
            m_bytes -= utf8Size(head);
            push(head, isError);
        }
        if (newline < 0)
            break;
        QString line = std::exchange(partial, QString());
        m_bytes -= utf8Size(line);
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        push(line, isError);
        from = newline + 1;
    }
}

void BuildingLog::endRun() {
    for (bool isError : {false, true}) {
        QString line = std::exchange(m_partial[isError], QString());
        if (line.isEmpty())
            continue;
        m_bytes -= utf8Size(line);
        push(line, isError);
    }
}

void BuildingLog::push(const QString &text, bool isError) {
    m_bytes += utf8Size(text) + 1;
    m_lines.push_back(Line{text, isError});
    while (!m_lines.empty() && (m_bytes > m_maxBytes || qsizetype(m_lines.size()) > m_maxLines)) {
        m_bytes -= utf8Size(m_lines.front().text) + 1;
        m_lines.pop_front();
        m_dropped = true;
    }
}

QList<BuildingLog::Line> BuildingLog::tail(int count, bool *truncated) const {
    QList<Line> partials;
    for (bool isError : {false, true}) {
        if (!m_partial[isError].isEmpty())
            partials.append(Line{m_partial[isError], isError});
    }
    const qsizetype total = qsizetype(m_lines.size()) + partials.size();
    const qsizetype first = qMax<qsizetype>(0, total - count);
    *truncated = m_dropped || first > 0;
    QList<Line> out;
    out.reserve(total - first);
    for (qsizetype i = first; i < qsizetype(m_lines.size()); ++i)
        out.append(m_lines[size_t(i)]);
    for (qsizetype i = qMax<qsizetype>(0, first - qsizetype(m_lines.size())); i < partials.size();
         ++i)
        out.append(partials[i]);
    return out;
}

} // namespace flotilla
