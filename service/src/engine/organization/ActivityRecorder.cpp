#include "organization/ActivityRecorder.h"

#include "domain/AgentRegistry.h"
#include "organization/ActivityLog.h"
#include "organization/AreaStore.h"
#include "protocol/OrganizationNames.h"

namespace flotilla {

namespace k = wire::key;
namespace st = wire::status;
namespace act = wire::org::activity;

ActivityRecorder::ActivityRecorder(AgentRegistry &agents, AreaStore &areas, ActivityLog &log,
                                   QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_areas(areas)
    , m_log(log) {
    const QList<Agent> existing = agents.agents();
    for (const Agent &a : existing)
        m_known.insert(a.id, Known{a.name, a.status, a.areaId});
    connect(&agents, &AgentRegistry::agentCreated, this, &ActivityRecorder::onCreated);
    connect(&agents, &AgentRegistry::agentUpdated, this, &ActivityRecorder::onUpdated);
    connect(&agents, &AgentRegistry::agentDeleted, this, &ActivityRecorder::onDeleted);
    connect(&areas, &AreaStore::areaCreated, this, [this](const Area &a) {
        m_log.record(act::AreaCreated, QStringLiteral("Area '%1' created").arg(a.name));
    });
    connect(&areas, &AreaStore::areaDeleted, this, [this](const Area &a) {
        m_log.record(act::AreaDeleted, QStringLiteral("Area '%1' deleted").arg(a.name));
    });
}

ActivityRecorder::~ActivityRecorder() = default;

void ActivityRecorder::onCreated(const Agent &a) {
    m_known.insert(a.id, Known{a.name, a.status, a.areaId});
    m_log.record(act::AgentCreated,
                 QStringLiteral("Agent '%1' created (%2, %3/%4) in %5")
                     .arg(a.name, a.agentClass, a.provider, a.model, a.cwd),
                 a.id, a.name);
}

void ActivityRecorder::onUpdated(const QString &id, const QJsonObject &changes) {
    Known &known = m_known[id];
    if (changes.contains(k::Name_))
        known.name = changes.value(k::Name_).toString();
    const QString name = known.name;

    if (changes.contains(k::Status)) {
        const QString before = known.status;
        const QString now = changes.value(k::Status).toString();
        known.status = now;
        if (now == st::Error) {
            const Agent *a = m_agents.find(id);
            const QString why =
                a && !a->lastError.isEmpty() ? a->lastError : QStringLiteral("unknown error");
            m_log.record(act::AgentError, QStringLiteral("Agent '%1' failed: %2").arg(name, why),
                         id, name);
        } else if (now == st::Stopped) {
            m_log.record(act::AgentStopped, QStringLiteral("Agent '%1' was stopped").arg(name), id,
                         name);
        } else if (now == st::Idle && (before == st::Working || before == st::WaitingPermission)) {
            // Only the end of real work is news; idle after creation or after an error is not.
            m_log.record(act::AgentFinished,
                         QStringLiteral("Agent '%1' finished its work").arg(name), id, name);
        }
    }

    if (changes.contains(k::AreaId)) {
        const QString before = known.areaId;
        const QString now = changes.value(k::AreaId).toString();
        known.areaId = now;
        if (!now.isEmpty())
            m_log.record(act::AgentMoved,
                         QStringLiteral("Agent '%1' moved to area '%2'").arg(name, areaName(now)),
                         id, name);
        else
            m_log.record(
                act::AgentMoved,
                QStringLiteral("Agent '%1' removed from area '%2'").arg(name, areaName(before)), id,
                name);
    }
}

void ActivityRecorder::onDeleted(const QString &id) {
    const Known known = m_known.take(id);
    m_log.record(act::AgentDeleted, QStringLiteral("Agent '%1' deleted").arg(known.name), id,
                 known.name);
}

QString ActivityRecorder::areaName(const QString &areaId) const {
    // Agents leave an area before it is deleted, so the name is still known here.
    const Area *a = m_areas.find(areaId);
    return a ? a->name : areaId;
}

} // namespace flotilla
