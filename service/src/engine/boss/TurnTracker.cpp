#include "boss/TurnTracker.h"

#include "agents/AgentRuntime.h"
#include "boss/BossInstructions.h"
#include "boss/BossLogging.h"
#include "domain/AgentRegistry.h"
#include "protocol/WireNames.h"

#include <QTimer>

namespace flotilla::boss {

namespace k = wire::key;
namespace st = wire::status;

TurnTracker::TurnTracker(AgentRegistry &agents, AgentRuntime &runtime, QObject *parent)
    : QObject(parent) {
    connect(&agents, &AgentRegistry::agentUpdated, this, &TurnTracker::onAgentUpdated);
    connect(&agents, &AgentRegistry::agentDeleted, this, &TurnTracker::onDeleted);
    connect(&runtime, &AgentRuntime::output, this, &TurnTracker::onOutput);
    connect(&runtime, &AgentRuntime::turnFinished, this, &TurnTracker::onTurnFinished);
}

TurnTracker::~TurnTracker() = default;

void TurnTracker::expect(const QString &agentId, const QString &ref) {
    m_expected[agentId].insert(ref);
}

void TurnTracker::forget(const QString &ref) {
    for (auto &refs : m_expected)
        refs.remove(ref);
}

void TurnTracker::onAgentUpdated(const QString &agentId, const QJsonObject &changes) {
    if (changes.contains(k::Status) && changes.value(k::Status).toString() == st::Stopped)
        dropExpected(agentId, QStringLiteral("the agent was stopped before the task started"));
    const QString text = changes.value(k::CurrentTask).toString();
    if (text.isEmpty())
        return; // cleared at the end of a turn, or not a turn start
    m_turnText.insert(agentId, text);
    const QString ref = markerIdOf(text);
    auto expected = m_expected.find(agentId);
    if (ref.isEmpty() || expected == m_expected.end() || !expected->remove(ref)) {
        m_running.remove(agentId);
        return;
    }
    m_running.insert(agentId, ref);
    qCDebug(lcBoss).noquote() << "agent" << agentId << "started" << ref;
    Q_EMIT started(agentId, ref);
}

void TurnTracker::onOutput(const OutputChunk &chunk) {
    const QString ref = m_running.value(chunk.agentId);
    if (!ref.isEmpty())
        Q_EMIT output(ref, chunk);
    if (chunk.isStreaming)
        return;
    // The turn is over. turnFinished, if it comes, comes right after this in the same call
    // chain; otherwise (stopped, crashed) the check below ends the turn as an error.
    Ending e{m_running.take(chunk.agentId), chunk.text, ++m_serial};
    m_ending.insert(chunk.agentId, e);
    const QString agentId = chunk.agentId;
    QTimer::singleShot(0, this, [this, agentId, serial = e.serial] {
        const auto it = m_ending.constFind(agentId);
        if (it == m_ending.constEnd() || it->serial != serial)
            return;
        const Ending ending = m_ending.take(agentId);
        Q_EMIT ended(agentId, ending.ref, ending.chunkText, true);
    });
}

void TurnTracker::onTurnFinished(const QString &agentId, const QString &text, bool isError) {
    const Ending e = m_ending.take(agentId);
    Q_EMIT ended(agentId, e.ref, text, isError);
}

void TurnTracker::dropExpected(const QString &agentId, const QString &why) {
    const QSet<QString> refs = m_expected.take(agentId);
    if (!refs.isEmpty())
        Q_EMIT lost(agentId, QStringList(refs.cbegin(), refs.cend()), why);
}

void TurnTracker::onDeleted(const QString &agentId) {
    QSet<QString> refs = m_expected.take(agentId);
    const QString running = m_running.take(agentId);
    if (!running.isEmpty())
        refs.insert(running);
    const QString ending = m_ending.take(agentId).ref;
    if (!ending.isEmpty())
        refs.insert(ending);
    m_turnText.remove(agentId);
    if (!refs.isEmpty())
        Q_EMIT lost(agentId, QStringList(refs.cbegin(), refs.cend()),
                    QStringLiteral("the agent was deleted"));
}

} // namespace flotilla::boss
