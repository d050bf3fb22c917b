#include "agents/RuntimeUpdate.h"

#include "protocol/Agent.h"
#include "protocol/WireNames.h"

namespace flotilla {

namespace st = wire::status;
using Kind = AgentEvent::Kind;

bool RuntimeUpdate::isEmpty() const {
    return !status && !lastError && !currentTask && !currentTool && !sessionId && !contextUsed &&
           !contextLimit && !lastActivity && !processRunning && addTokens == 0 && addTasks == 0 &&
           addUsage == UsageTotals();
}

void RuntimeUpdate::applyTo(Agent &agent) const {
    if (status)
        agent.status = *status;
    if (lastError)
        agent.lastError = *lastError;
    if (currentTask)
        agent.currentTask = *currentTask;
    if (currentTool)
        agent.currentTool = *currentTool;
    if (sessionId)
        agent.sessionId = *sessionId;
    if (contextUsed)
        agent.contextUsed = *contextUsed;
    if (contextLimit)
        agent.contextLimit = *contextLimit;
    if (lastActivity)
        agent.lastActivity = *lastActivity;
    if (processRunning)
        agent.isProcessRunning = *processRunning;
    agent.tokensUsed += addTokens;
    agent.taskCount += addTasks;
    agent.usage += addUsage;
}

RuntimeUpdate RuntimeUpdate::forEvent(const Agent &agent, const AgentEvent &event,
                                      qint64 defaultContextLimit, qint64 nowMs) {
    RuntimeUpdate u;
    switch (event.kind) {
    case Kind::SessionStarted:
        if (!event.sessionId.isEmpty() && agent.sessionId != event.sessionId)
            u.sessionId = event.sessionId;
        break;
    case Kind::ToolUse:
        // A sub-agent's tools are not what the agent itself is doing.
        if (event.isTopLevel())
            u.currentTool = event.toolName;
        break;
    case Kind::ToolResult:
        if (event.isTopLevel())
            u.currentTool = QString();
        break;
    case Kind::Usage:
        u.contextUsed = event.usage.contextTokens;
        if (event.usage.contextWindow > 0)
            u.contextLimit = event.usage.contextWindow;
        else if (agent.contextLimit <= 0)
            u.contextLimit = defaultContextLimit;
        break;
    case Kind::TurnEnded:
        u.status = event.isError ? QString(st::Error) : QString(st::Idle);
        u.lastError = event.isError ? event.text : QString();
        u.currentTask = QString();
        u.currentTool = QString();
        u.addTokens = event.usage.inputTokens + event.usage.outputTokens;
        u.addTasks = 1;
        u.addUsage = event.turnUsage;
        u.lastActivity = nowMs;
        if (event.usage.contextWindow > 0)
            u.contextLimit = event.usage.contextWindow;
        break;
    case Kind::TextDelta:
    case Kind::ApiRetry:
    case Kind::Compacting:
        break; // output and notices only: the agent's stored state does not change
    }
    return u;
}

RuntimeUpdate &RuntimeUpdate::processStarted() {
    processRunning = true;
    return *this;
}

RuntimeUpdate &RuntimeUpdate::processEnded() {
    processRunning = false;
    currentTool = QString();
    return *this;
}

RuntimeUpdate &RuntimeUpdate::turnStarted(const QString &message, qint64 nowMs) {
    status = QString(st::Working);
    currentTask = message.left(200);
    currentTool = QString();
    lastError = QString();
    lastActivity = nowMs;
    return *this;
}

RuntimeUpdate &RuntimeUpdate::turnFailed(const QString &why) {
    status = QString(st::Error);
    lastError = why;
    currentTask = QString();
    currentTool = QString();
    return *this;
}

RuntimeUpdate &RuntimeUpdate::stopped() {
    status = QString(st::Stopped);
    currentTask = QString();
    currentTool = QString();
    return *this;
}

RuntimeUpdate &RuntimeUpdate::refused(const QString &why) {
    status = QString(st::Error);
    lastError = why;
    return *this;
}

RuntimeUpdate &RuntimeUpdate::contextCleared(bool clearError) {
    sessionId = QString();
    contextUsed = 0;
    status = QString(st::Idle);
    if (clearError)
        lastError = QString();
    return *this;
}

} // namespace flotilla
