#include "agents/ClaudeProcess.h"

#include "app/ChildProcess.h"

#include "app/Logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTimer>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace flotilla {

namespace {
// Hook timeout (seconds): above the service's 5-minute answer deadline, so the service decides.
constexpr int kHookTimeoutS = 330;

// The hook pipes the CLI's JSON (stdin) to the service and prints the service's answer.
QString hookSettings() {
    const QString command =
        QStringLiteral("curl -s --max-time %1 -X POST "
                       "\"$FLOTILLA_URL/api/agents/$FLOTILLA_AGENT_ID/permission-check\" "
                       "-H \"X-Auth-Token: $FLOTILLA_TOKEN\" "
                       "-H 'Content-Type: application/json' --data-binary @-")
            .arg(kHookTimeoutS);
    const QJsonArray hooks{QJsonObject{{QStringLiteral("type"), QStringLiteral("command")},
                                       {QStringLiteral("command"), command},
                                       {QStringLiteral("timeout"), kHookTimeoutS}}};
    const QJsonArray entry{QJsonObject{{QStringLiteral("matcher"), QStringLiteral("*")},
                                       {QStringLiteral("hooks"), hooks}}};
    const QJsonObject settings{
        {QStringLiteral("hooks"), QJsonObject{{QStringLiteral("PreToolUse"), entry},
                                              {QStringLiteral("PermissionRequest"), entry}}}};
    return QString::fromUtf8(QJsonDocument(settings).toJson(QJsonDocument::Compact));
}
} // namespace

QStringList ClaudeLaunch::arguments() const {
    QStringList args{QStringLiteral("-p"),
                     QStringLiteral("--output-format"),
                     QStringLiteral("stream-json"),
                     QStringLiteral("--input-format"),
                     QStringLiteral("stream-json"),
                     QStringLiteral("--verbose"),
                     QStringLiteral("--include-partial-messages")};
    // The CLI records the system prompt on a conversation's first request and, by default,
    // re-sends that record on every resume, ignoring a changed --append-system-prompt
    // (verified with 2.1.329). Rendering it fresh is what lets a new global prompt reach a
    // resumed agent.
    args << QStringLiteral("--system-prompt-snapshot") << QStringLiteral("off");
    if (!resumeSessionId.isEmpty())
        args << QStringLiteral("--resume") << resumeSessionId;
    if (!model.isEmpty())
        args << QStringLiteral("--model") << model;
    if (!appendSystemPrompt.isEmpty())
        args << QStringLiteral("--append-system-prompt") << appendSystemPrompt;
    if (permissionHooks)
        args << QStringLiteral("--settings") << hookSettings();
    return args;
}

ClaudeProcess::ClaudeProcess(QObject *parent)
    : QObject(parent) {
}

ClaudeProcess::~ClaudeProcess() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        killGroup(SIGKILL);
        m_process->waitForFinished(1000);
    }
}

void ClaudeProcess::start(const ClaudeLaunch &launch) {
    m_process = new QProcess(this);
    m_process->setProgram(launch.program);
    m_process->setArguments(launch.arguments());
    m_process->setWorkingDirectory(launch.cwd);
    m_process->setProcessEnvironment(launch.environment);
    // Own group (a stop reaches the tool commands too), no orphan if flotillad dies, the
    // user's umask for the files the agent writes.
    m_process->setChildProcessModifier(&prepareChildProcess);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &ClaudeProcess::onStdout);
    connect(m_process, &QProcess::readyReadStandardError, this, &ClaudeProcess::onStderr);
    connect(m_process, &QProcess::started, this, [this] { m_pgid = m_process->processId(); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            Q_EMIT failedToStart(m_process->errorString());
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        onStdout();
        if (!m_buffer.isEmpty()) { // a last line without newline
            bool malformed = false;
            const auto events = parseClaudeLine(m_buffer, &malformed);
            m_buffer.clear();
            for (const ClaudeEvent &e : events)
                Q_EMIT claudeEvent(e);
        }
        if (m_malformedLines > kLoggedMalformedLines)
            qCWarning(lcAgents) << "the CLI printed" << m_malformedLines << "malformed lines";
        // The group may outlive its leader (a tool command still running): end it.
        killGroup(SIGKILL);
        // On a crash exit Qt reports the terminating signal as the code (waitid's si_status).
        const bool normal = status == QProcess::NormalExit;
        Q_EMIT finished(normal ? code : -1, normal ? 0 : code, m_stopRequested);
    });
    qCInfo(lcAgents).noquote() << "starting" << launch.program << "in" << launch.cwd
                               << (launch.resumeSessionId.isEmpty()
                                       ? QStringLiteral("(new session)")
                                       : QStringLiteral("resuming ") + launch.resumeSessionId);
    m_process->start(QIODevice::ReadWrite);
}

bool ClaudeProcess::isRunning() const {
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 ClaudeProcess::pid() const {
    return m_process ? m_process->processId() : 0;
}

void ClaudeProcess::send(const QByteArray &line) {
    if (m_process)
        m_process->write(line);
}

void ClaudeProcess::stop(int graceMs) {
    if (!isRunning())
        return;
    m_stopRequested = true;
    killGroup(SIGTERM);
    QTimer::singleShot(graceMs, this, [this] {
        if (isRunning())
            killGroup(SIGKILL);
    });
}

void ClaudeProcess::killGroup(int signal) {
    if (m_pgid > 0)
        ::kill(pid_t(-m_pgid), signal);
}

void ClaudeProcess::onStdout() {
    // Always drain the pipe: QProcess buffers unread output without limit.
    m_buffer += m_process->readAllStandardOutput();
    qsizetype start = 0;
    while (true) {
        const qsizetype nl = m_buffer.indexOf('\n', start);
        if (nl < 0)
            break;
        if (m_skippingLongLine) {
            m_skippingLongLine = false;
        } else {
            bool malformed = false;
            const auto events = parseClaudeLine(
                QByteArray::fromRawData(m_buffer.constData() + start, nl - start), &malformed);
            // A CLI printing garbage must not flood the journal: the first few are logged,
            // the rest counted and summed up when the process ends.
            if (malformed && ++m_malformedLines <= kLoggedMalformedLines)
                qCWarning(lcAgents).nospace()
                    << "ignoring a malformed line from the CLI, " << (nl - start) << " bytes"
                    << (m_malformedLines == kLoggedMalformedLines
                            ? ", further ones from this process are only counted"
                            : "");
            for (const ClaudeEvent &e : events)
                Q_EMIT claudeEvent(e);
        }
        start = nl + 1;
    }
    m_buffer.remove(0, start);
    if (m_buffer.size() > kMaxLineBytes) {
        qCWarning(lcAgents) << "dropping a CLI output line longer than" << kMaxLineBytes << "bytes";
        m_buffer.clear();
        m_skippingLongLine = true;
    }
}

void ClaudeProcess::onStderr() {
    m_stderr += m_process->readAllStandardError();
    if (m_stderr.size() > kStderrTail)
        m_stderr = m_stderr.right(kStderrTail);
}

} // namespace flotilla
