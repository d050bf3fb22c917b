#pragma once
// Which of our messages an agent is working on, from the outside of the runtime.
//
// The runtime queues messages per agent and runs them one turn at a time, mixed with messages
// from anyone else (REST, other bosses). Every message the boss service sends starts with a
// marker "[<Kind> <id>]" (BossInstructions), and the runtime sets the agent's currentTask to the
// first 200 characters of a message when its turn starts, so the agent_updated diff tells exactly
// when each of our messages starts, whatever is queued around it. That turn ends at the agent's
// next final output chunk (isStreaming false), which every turn end produces; turnFinished
// follows it at once for a normal end and carries the final text. A turn that ends without it
// (stopped, the CLI crashed) ends as an error with the chunk's text.
//
// Messages that never start are reported `lost`: stopping an agent (status `stopped`) drops its
// queue, deleting it drops everything.

#include "protocol/OutputChunk.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>

namespace flotilla {
class AgentRegistry;
class AgentRuntime;
} // namespace flotilla

namespace flotilla::boss {

class TurnTracker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TurnTracker)
public:
    TurnTracker(AgentRegistry &agents, AgentRuntime &runtime, QObject *parent = nullptr);
    ~TurnTracker() override;

    // Call before runtime.sendMessage (which may start the turn at once); forget() if it fails.
    void expect(const QString &agentId, const QString &ref);
    void forget(const QString &ref);
    // Our message whose turn is running on the agent, or empty.
    QString running(const QString &agentId) const { return m_running.value(agentId); }
    // The first 200 characters of the message of the agent's current (or last) turn.
    QString turnText(const QString &agentId) const { return m_turnText.value(agentId); }

Q_SIGNALS:
    void started(const QString &agentId, const QString &ref);
    // Output of one of our turns (every chunk, the final one included).
    void output(const QString &ref, const flotilla::OutputChunk &chunk);
    // Any turn of any agent ended; `ref` is empty when the message was not ours.
    void ended(const QString &agentId, const QString &ref, const QString &text, bool isError);
    // Our messages that will never run.
    void lost(const QString &agentId, const QStringList &refs, const QString &why);

private:
    struct Ending {
        QString ref;
        QString chunkText;
        quint64 serial = 0;
    };

    void onAgentUpdated(const QString &agentId, const QJsonObject &changes);
    void onOutput(const OutputChunk &chunk);
    void onTurnFinished(const QString &agentId, const QString &text, bool isError);
    void onDeleted(const QString &agentId);
    void dropExpected(const QString &agentId, const QString &why);

    QHash<QString, QSet<QString>> m_expected; // agent -> our refs not started yet
    QHash<QString, QString> m_running;        // agent -> our ref whose turn runs
    QHash<QString, QString> m_turnText;       // agent -> start of the current turn's message
    QHash<QString, Ending> m_ending;          // agent -> turn that produced its final chunk
    quint64 m_serial = 0;
};

} // namespace flotilla::boss
