#include "agents/codex/CodexProcess.h"

#include "agents/LineProcess.h"
#include "base/Logging.h"
#include "protocol/McpNames.h"

#include <QJsonArray>

namespace flotilla {

namespace {
constexpr qint64 kLoggedMalformedLines = 5;
// JSON-RPC "method not found": our answer to server requests Flotilla does not handle (MCP
// elicitations, dynamic tools...), so that the turn does not wait for an answer forever.
constexpr int kMethodNotFound = -32601;
} // namespace

CodexProcess::CodexProcess(QObject *parent)
    : AgentProcess(parent)
    , m_lines(new LineProcess(this)) {
    connect(m_lines, &LineProcess::lineReceived, this, &CodexProcess::onLine);
    connect(m_lines, &LineProcess::finished, this, &CodexProcess::finished);
    connect(m_lines, &LineProcess::failedToStart, this, &CodexProcess::failedToStart);
}

CodexProcess::~CodexProcess() = default; // m_lines, a child, kills the whole group

void CodexProcess::start(const AgentLaunch &launch) {
    m_launch = launch;
    qCInfo(lcAgents).noquote() << "starting" << launch.program << "app-server in" << launch.cwd
                               << (launch.resumeId.isEmpty()
                                       ? QStringLiteral("(new thread)")
                                       : QStringLiteral("resuming ") + launch.resumeId);
    m_lines->start(launch.plan);
    send(QStringLiteral("initialize"),
         {{QStringLiteral("clientInfo"),
           QJsonObject{{QStringLiteral("name"), QStringLiteral("flotilla")},
                       {QStringLiteral("version"), QStringLiteral(FLOTILLA_VERSION)}}}});
}

int CodexProcess::send(const QString &method, const QJsonObject &params) {
    const int id = m_nextId++;
    m_requests.insert(id, method);
    m_lines->write(codex::request(id, method, params));
    return id;
}

void CodexProcess::openThread(bool resume) {
    QJsonObject params{{QStringLiteral("cwd"), m_launch.cwd},
                       {QStringLiteral("approvalPolicy"), m_launch.approvalPolicy},
                       {QStringLiteral("sandbox"), m_launch.sandbox}};
    // Commands must reach the service on loopback (report-task, notify), as a Claude agent's do:
    // Codex's workspace-write sandbox has no network otherwise.
    QJsonObject config{{QStringLiteral("sandbox_workspace_write"),
                        QJsonObject{{QStringLiteral("network_access"), true}}}};
    if (!m_launch.mcpUrl.isEmpty())
        config.insert(QStringLiteral("mcp_servers"), mcpServers());
    params.insert(QStringLiteral("config"), config);
    if (!m_launch.model.isEmpty())
        params.insert(QStringLiteral("model"), m_launch.model);
    if (!m_launch.systemPrompt.isEmpty())
        params.insert(QStringLiteral("developerInstructions"), m_launch.systemPrompt);
    if (resume) {
        params.insert(QStringLiteral("threadId"), m_launch.resumeId);
        send(QStringLiteral("thread/resume"), params);
    } else {
        send(QStringLiteral("thread/start"), params);
    }
}

// Flotilla's MCP server for this thread only, as thread/start's (and thread/resume's) config
// override, merged with the user's own servers of config.toml (both start): nothing is written
// there, and the token is on the app-server's stdin only (verified with 0.169.0: not in argv, the
// environment, or any file under its home, the rollout included). Its tools carry no more rights
// than the token, so they run without an approval in any policy (default_tools_approval_mode,
// honoured per thread).
QJsonObject CodexProcess::mcpServers() const {
    const QJsonObject server{
        {QStringLiteral("url"), m_launch.mcpUrl},
        {QStringLiteral("http_headers"),
         QJsonObject{{QStringLiteral("X-Auth-Token"), QString::fromLatin1(m_launch.mcpToken)}}},
        {QStringLiteral("default_tools_approval_mode"), QStringLiteral("approve")}};
    return {{QString(wire::mcp::ServerName), server}};
}

void CodexProcess::sendUserMessage(const QString &text) {
    if (!m_fatal.isEmpty())
        return failTurn(m_fatal);
    if (m_threadId.isEmpty()) {
        m_waiting.append(text); // the handshake is still going on
        return;
    }
    startTurn(text);
}

void CodexProcess::startTurn(const QString &text) {
    m_turn.reset();
    m_turnId.clear();
    const QJsonArray input{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                       {QStringLiteral("text"), text}}};
    // The policy again on every turn: a resumed thread keeps the one it was started with, and
    // the agent's permission mode may have changed since (verified to ask with 0.169.0 when
    // given here).
    QJsonObject params{{QStringLiteral("threadId"), m_threadId},
                       {QStringLiteral("input"), input},
                       {QStringLiteral("approvalPolicy"), m_launch.approvalPolicy}};
    if (!m_launch.model.isEmpty()) // a model changed since the thread opened (reconfigure)
        params.insert(QStringLiteral("model"), m_launch.model);
    send(QStringLiteral("turn/start"), params);
}

void CodexProcess::failTurn(const QString &why) {
    AgentEvent e;
    e.kind = AgentEvent::Kind::TurnEnded;
    e.isError = true;
    e.text = why;
    Q_EMIT agentEvent(e);
}

bool CodexProcess::interruptTurn() {
    m_waiting.clear(); // a message still waiting for the handshake is part of the stopped turn
    if (m_threadId.isEmpty() || m_turnId.isEmpty()) {
        stop(); // nothing to interrupt yet: end the process, the next message resumes
        return false;
    }
    send(QStringLiteral("turn/interrupt"),
         {{QStringLiteral("threadId"), m_threadId}, {QStringLiteral("turnId"), m_turnId}});
    return true;
}

bool CodexProcess::reconfigure(const QString &model, const QString &systemPrompt) {
    if (m_threadId.isEmpty() || !m_fatal.isEmpty())
        return false; // no thread to change yet: a new process opens one with both
    // turn/start overrides the model "for this turn and subsequent turns".
    m_launch.model = model;
    if (systemPrompt != m_launch.systemPrompt) {
        // A thread keeps the developer instructions it was started with (thread/resume does not
        // replace them, verified with 0.169.0): the new prompt goes into the thread as a
        // developer message, which the model reads after the earlier one.
        const QString text =
            systemPrompt.isEmpty()
                ? QStringLiteral("The operator removed the earlier system prompt of this agent; "
                                 "it no longer applies.")
                : QStringLiteral("The operator's system prompt for this agent, replacing any "
                                 "earlier one:\n\n") +
                      systemPrompt;
        const QJsonObject message{
            {QStringLiteral("type"), QStringLiteral("message")},
            {QStringLiteral("role"), QStringLiteral("developer")},
            {QStringLiteral("content"),
             QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("input_text")},
                                    {QStringLiteral("text"), text}}}}};
        send(QStringLiteral("thread/inject_items"),
             {{QStringLiteral("threadId"), m_threadId},
              {QStringLiteral("items"), QJsonArray{message}}});
        m_launch.systemPrompt = systemPrompt;
    }
    return true;
}

void CodexProcess::stop(int graceMs) {
    m_lines->stop(graceMs);
}

bool CodexProcess::isRunning() const {
    return m_lines->isRunning();
}

qint64 CodexProcess::pid() const {
    return m_lines->pid();
}

QString CodexProcess::stderrTail() const {
    return m_lines->stderrTail();
}

void CodexProcess::answerPermission(const QString &requestId, bool granted, const QString &reason) {
    const auto it = m_approvals.constFind(requestId);
    if (it == m_approvals.constEnd())
        return; // answered already, or from a process that has ended
    // "decline": the command does not run, the model is told and the turn goes on (verified
    // with 0.169.0; "cancel" would end the turn instead).
    m_lines->write(
        codex::response(*it, {{QStringLiteral("decision"),
                               granted ? QStringLiteral("accept") : QStringLiteral("decline")}}));
    if (!granted)
        qCInfo(lcAgents).noquote() << "Codex approval" << requestId << "declined:" << reason;
    m_approvals.erase(it);
}

void CodexProcess::onLine(const QByteArray &line) {
    const codex::Message m = codex::parseLine(line);
    switch (m.type) {
    case codex::Message::Type::Response:
        return onResponse(m);
    case codex::Message::Type::ErrorResponse:
        return onErrorResponse(m);
    case codex::Message::Type::ServerRequest:
        return onServerRequest(m);
    case codex::Message::Type::Notification: {
        if (m.method == QLatin1String("turn/started"))
            m_turnId = m.params.value(QLatin1String("turn"))
                           .toObject()
                           .value(QLatin1String("id"))
                           .toString();
        else if (m.method == QLatin1String("turn/completed"))
            m_turnId.clear(); // nothing left to interrupt
        else if (m.method == QLatin1String("mcpServer/startupStatus/updated"))
            return onMcpStartup(m.params);
        // A usage report of another turn than the running one (a resumed thread restates its
        // last turn's) still shows the context in use, but is not this turn's usage.
        codex::TurnState other;
        const bool otherTurn = m.method == QLatin1String("thread/tokenUsage/updated") &&
                               m.params.value(QLatin1String("turnId")).toString() != m_turnId;
        for (const AgentEvent &e :
             codex::eventsOf(m.method, m.params, otherTurn ? &other : &m_turn)) {
            // An approval request names only the item: keep what it changes to show with it.
            if (e.kind == AgentEvent::Kind::ToolUse &&
                e.toolName == QLatin1String(codex::kFileChangeTool))
                m_fileChanges.insert(e.toolUseId, e.toolInput);
            Q_EMIT agentEvent(e);
        }
        if (m.method == QLatin1String("turn/completed"))
            m_fileChanges.clear();
        return;
    }
    case codex::Message::Type::Malformed:
        if (++m_malformedLines <= kLoggedMalformedLines)
            qCWarning(lcAgents) << "ignoring a malformed line from codex app-server," << line.size()
                                << "bytes";
        return;
    }
}

// An MCP server that does not start (Flotilla's unreachable, a token refused, one of the user's
// own servers broken) leaves its tools out of the turns; the agent works on without them, as
// Codex does (verified with 0.169.0), so it is only logged.
void CodexProcess::onMcpStartup(const QJsonObject &params) {
    if (params.value(QLatin1String("status")).toString() != QLatin1String("failed"))
        return;
    qCWarning(lcAgents).noquote() << "codex MCP server"
                                  << params.value(QLatin1String("name")).toString()
                                  << "failed to start:"
                                  << params.value(QLatin1String("error")).toString().left(500);
}

void CodexProcess::onResponse(const codex::Message &m) {
    const QString method = m_requests.take(m.id.toInt());
    if (method == QLatin1String("initialize")) {
        m_lines->write(codex::notification(QStringLiteral("initialized")));
        if (m_launch.skillsDir.isEmpty()) {
            openThread(!m_launch.resumeId.isEmpty());
        } else {
            // The agent's skills, as one more skills root of this app-server (Codex lists
            // their names and descriptions in every request; verified with 0.169.0). Set before
            // the thread opens, so its first turn already has them.
            send(QStringLiteral("skills/extraRoots/set"),
                 {{QStringLiteral("extraRoots"),
                   QJsonArray{QString(m_launch.skillsDir + QStringLiteral("/skills"))}}});
        }
    } else if (method == QLatin1String("skills/extraRoots/set")) {
        openThread(!m_launch.resumeId.isEmpty());
    } else if (method == QLatin1String("thread/start") ||
               method == QLatin1String("thread/resume")) {
        const QJsonObject thread = m.result.value(QLatin1String("thread")).toObject();
        m_threadId = thread.value(QLatin1String("id")).toString();
        AgentEvent e;
        e.kind = AgentEvent::Kind::SessionStarted;
        e.sessionId = m_threadId;
        e.model = m.result.value(QLatin1String("model")).toString(m_launch.model);
        Q_EMIT agentEvent(e);
        const QStringList waiting = std::exchange(m_waiting, {});
        for (const QString &text : waiting)
            startTurn(text);
    } else if (method == QLatin1String("turn/start")) {
        m_turnId =
            m.result.value(QLatin1String("turn")).toObject().value(QLatin1String("id")).toString();
    }
}

void CodexProcess::onErrorResponse(const codex::Message &m) {
    const QString method = m_requests.take(m.id.toInt());
    qCWarning(lcAgents).noquote() << "codex app-server refused" << method << ":" << m.errorMessage;
    if (method == QLatin1String("skills/extraRoots/set")) {
        // An agent without its skills is still an agent: say so in the log and go on.
        openThread(!m_launch.resumeId.isEmpty());
    } else if (method == QLatin1String("thread/resume")) {
        // The thread is gone (its rollout file removed): start afresh rather than fail forever.
        m_launch.resumeId.clear();
        openThread(false);
    } else if (method == QLatin1String("thread/start") || method == QLatin1String("initialize")) {
        m_fatal =
            QStringLiteral("Codex could not open a thread (%1): %2").arg(method, m.errorMessage);
        const QStringList waiting = std::exchange(m_waiting, {});
        for (qsizetype i = 0; i < waiting.size(); ++i)
            failTurn(m_fatal);
    } else if (method == QLatin1String("turn/start")) {
        failTurn(QStringLiteral("Codex refused the message: %1").arg(m.errorMessage));
    }
}

void CodexProcess::onServerRequest(const codex::Message &m) {
    const bool command = m.method == QLatin1String("item/commandExecution/requestApproval");
    const bool fileChange = m.method == QLatin1String("item/fileChange/requestApproval");
    if (!command && !fileChange) {
        m_lines->write(codex::errorResponse(
            m.id, kMethodNotFound, QStringLiteral("Flotilla does not handle %1").arg(m.method)));
        return;
    }
    const QString requestId = QString::number(m_nextApproval++);
    m_approvals.insert(requestId, m.id);
    QJsonObject input;
    for (const char *key : {"command", "cwd", "reason", "itemId", "grantRoot"}) {
        const QJsonValue v = m.params.value(QLatin1String(key));
        if (!v.isUndefined() && !v.isNull())
            input.insert(QLatin1String(key), v);
    }
    if (fileChange) {
        const QJsonObject item =
            m_fileChanges.value(m.params.value(QLatin1String("itemId")).toString());
        input.insert(QStringLiteral("changes"), item.value(QLatin1String("changes")).toArray());
    }
    Q_EMIT permissionRequested(
        requestId, QLatin1String(command ? codex::kCommandTool : codex::kFileChangeTool), input);
}

} // namespace flotilla
