#include "organization/ActivityLog.h"

#include "protocol/OrganizationNames.h"

#include <QUuid>

namespace flotilla {

namespace k = wire::key;

QJsonObject ActivityEntry::toJson() const {
    return QJsonObject{
        {k::Id, id},
        {k::Timestamp, timestamp},
        {k::AgentId, agentId.isEmpty() ? QJsonValue() : QJsonValue(agentId)},
        {k::AgentName, agentId.isEmpty() ? QJsonValue() : QJsonValue(agentName)},
        {wire::org::key::Kind, kind},
        {k::Message, message},
    };
}

ActivityLog::ActivityLog(Clock clock, int capacity, QObject *parent)
    : QObject(parent)
    , m_clock(std::move(clock))
    , m_capacity(qMax(1, capacity)) {
}

ActivityLog::~ActivityLog() = default;

void ActivityLog::record(QLatin1String kind, const QString &message, const QString &agentId,
                         const QString &agentName) {
    ActivityEntry e;
    e.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    e.timestamp = m_clock.nowMs();
    e.agentId = agentId;
    e.agentName = agentName;
    e.kind = kind;
    e.message = message;
    m_entries.append(e);
    while (m_entries.size() > m_capacity)
        m_entries.removeFirst();
    Q_EMIT recorded(e);
}

QList<ActivityEntry> ActivityLog::latest(int limit, const QString &agentId) const {
    QList<ActivityEntry> out;
    for (auto it = m_entries.crbegin(); it != m_entries.crend() && out.size() < limit; ++it) {
        if (agentId.isEmpty() || it->agentId == agentId)
            out.append(*it);
    }
    return out;
}

} // namespace flotilla
