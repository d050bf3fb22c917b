#include "agents/claude/ClaudeProcess.h"

#include "agents/LineProcess.h"
#include "agents/claude/ClaudeEvents.h"
#include "base/Logging.h"

namespace flotilla {

ClaudeProcess::ClaudeProcess(QObject *parent)
    : AgentProcess(parent)
    , m_lines(new LineProcess(this)) {
    connect(m_lines, &LineProcess::lineReceived, this, &ClaudeProcess::onLine);
    connect(m_lines, &LineProcess::finished, this, &ClaudeProcess::onFinished);
    connect(m_lines, &LineProcess::failedToStart, this, &ClaudeProcess::failedToStart);
}

ClaudeProcess::~ClaudeProcess() = default; // m_lines, a child, kills the whole group

void ClaudeProcess::start(const AgentLaunch &launch) {
    qCInfo(lcAgents).noquote() << "starting" << launch.program << "in" << launch.cwd
                               << (launch.resumeId.isEmpty()
                                       ? QStringLiteral("(new session)")
                                       : QStringLiteral("resuming ") + launch.resumeId);
    m_costSoFar = launch.resumedCostUsd;
    m_lines->start(launch.plan);
}

void ClaudeProcess::sendUserMessage(const QString &text) {
    m_lines->write(claudeUserMessage(text));
}

bool ClaudeProcess::interruptTurn() {
    // stream-json input has no interrupt message that flotillad uses: the turn ends with the
    // process, and the next message resumes the session in a new one.
    stop();
    return false;
}

void ClaudeProcess::stop(int graceMs) {
    m_lines->stop(graceMs);
}

bool ClaudeProcess::isRunning() const {
    return m_lines->isRunning();
}

qint64 ClaudeProcess::pid() const {
    return m_lines->pid();
}

QString ClaudeProcess::stderrTail() const {
    return m_lines->stderrTail();
}

void ClaudeProcess::answerPermission(const QString &requestId, bool granted,
                                     const QString &reason) {
    // The CLI asks through its PreToolUse/PermissionRequest hooks, which the service answers over
    // HTTP (permissions/PermissionBroker); it never emits permissionRequested().
    Q_UNUSED(requestId)
    Q_UNUSED(granted)
    Q_UNUSED(reason)
}

void ClaudeProcess::onLine(const QByteArray &line) {
    bool malformed = false;
    const QList<AgentEvent> events = parseClaudeLine(line, &malformed);
    // A CLI printing garbage must not flood the journal: the first few are logged, the rest
    // counted and summed up when the process ends.
    if (malformed && ++m_malformedLines <= kLoggedMalformedLines)
        qCWarning(lcAgents).nospace()
            << "ignoring a malformed line from the CLI, " << line.size() << " bytes"
            << (m_malformedLines == kLoggedMalformedLines
                    ? ", further ones from this process are only counted"
                    : "");
    for (AgentEvent e : events) {
        if (e.kind == AgentEvent::Kind::TurnEnded) {
            const double total = e.turnUsage.costUsd;
            e.turnUsage.costUsd = qMax(0.0, total - m_costSoFar);
            m_costSoFar = qMax(m_costSoFar, total);
        }
        Q_EMIT agentEvent(e);
    }
}

void ClaudeProcess::onFinished(int exitCode, int signal, bool requested) {
    if (m_malformedLines > kLoggedMalformedLines)
        qCWarning(lcAgents) << "the CLI printed" << m_malformedLines << "malformed lines";
    Q_EMIT finished(exitCode, signal, requested);
}

} // namespace flotilla
