#pragma once
// One `codex app-server` per agent: a long-lived process that keeps the agent's thread. The
// handshake (initialize, initialized), then thread/start (or thread/resume with the stored
// thread id) with the working directory, model, global prompt (developerInstructions), approval
// policy, sandbox and Flotilla's MCP server; each user message is a turn/start. Notifications
// become AgentEvents (CodexEvents.h); approval requests of the server become permissionRequested()
// and are answered through answerPermission(). The process, its group and its pipes are
// LineProcess's.

#include "agents/AgentProcess.h"
#include "agents/codex/CodexEvents.h"

#include <QHash>
#include <QJsonValue>
#include <QStringList>

namespace flotilla {

class LineProcess;

class CodexProcess final : public AgentProcess {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CodexProcess)
public:
    explicit CodexProcess(QObject *parent = nullptr);
    ~CodexProcess() override;

    void start(const AgentLaunch &launch) override;
    void sendUserMessage(const QString &text) override;
    bool interruptTurn() override;
    bool reconfigure(const QString &model, const QString &systemPrompt) override;
    void stop(int graceMs = 2000) override;
    bool isRunning() const override;
    qint64 pid() const override;
    QString stderrTail() const override;
    void answerPermission(const QString &requestId, bool granted, const QString &reason) override;

private:
    void onLine(const QByteArray &line);
    void onResponse(const codex::Message &m);
    void onErrorResponse(const codex::Message &m);
    void onServerRequest(const codex::Message &m);
    int send(const QString &method, const QJsonObject &params);
    void openThread(bool resume);
    QJsonObject mcpServers() const;
    void onMcpStartup(const QJsonObject &params);
    void startTurn(const QString &text);
    // A turn that cannot start or run: the runtime waits for its end, so it gets one.
    void failTurn(const QString &why);

    LineProcess *m_lines;
    AgentLaunch m_launch;
    int m_nextId = 1;
    QHash<int, QString> m_requests; // our request id -> method, until answered
    QString m_threadId;
    QString m_turnId;
    QStringList m_waiting; // messages sent before the thread was open
    QString m_fatal;       // the thread could not be opened: every message fails with this
    codex::TurnState m_turn;
    QHash<QString, QJsonValue> m_approvals;    // our request id -> the server's JSON-RPC id
    QHash<QString, QJsonObject> m_fileChanges; // this turn's file change items' inputs, by id
    int m_nextApproval = 1;
    qint64 m_malformedLines = 0;
};

} // namespace flotilla
