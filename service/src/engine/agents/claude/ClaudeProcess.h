#pragma once
// One running Claude Code CLI in stream-json mode: user messages as JSON lines on stdin, its
// stdout lines parsed into AgentEvents (ClaudeEvents.h). The process itself, its group and its
// pipes are LineProcess's; this class is only the protocol.

#include "agents/AgentProcess.h"

namespace flotilla {

class LineProcess;

class ClaudeProcess final : public AgentProcess {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ClaudeProcess)
public:
    explicit ClaudeProcess(QObject *parent = nullptr);
    ~ClaudeProcess() override;

    void start(const AgentLaunch &launch) override;
    void sendUserMessage(const QString &text) override;
    bool interruptTurn() override;
    void stop(int graceMs = 2000) override;
    bool isRunning() const override;
    qint64 pid() const override;
    QString stderrTail() const override;
    void answerPermission(const QString &requestId, bool granted, const QString &reason) override;

private:
    void onLine(const QByteArray &line);
    void onFinished(int exitCode, int signal, bool requested);

    LineProcess *m_lines;
    static constexpr qint64 kLoggedMalformedLines = 5;
    qint64 m_malformedLines = 0;
    // The running total_cost_usd so far: the last result's, or what a resumed session restored.
    double m_costSoFar = 0;
};

} // namespace flotilla
