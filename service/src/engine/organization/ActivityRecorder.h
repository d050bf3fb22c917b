#pragma once
// Turns domain signals (agent created/updated/deleted, area created/deleted) into activity log
// entries. It keeps each agent's last name, status and area because agentDeleted carries only the
// id (the registry has already forgotten the agent) and agentUpdated only the changed fields,
// while "finished its work" needs the status it came from.

#include <QHash>
#include <QJsonObject>
#include <QObject>

namespace flotilla {

struct Agent;
struct Area;
class ActivityLog;
class AgentRegistry;
class AreaStore;

class ActivityRecorder final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ActivityRecorder)
public:
    ActivityRecorder(AgentRegistry &agents, AreaStore &areas, ActivityLog &log,
                     QObject *parent = nullptr);
    ~ActivityRecorder() override;

private:
    struct Known {
        QString name;
        QString status;
        QString areaId;
    };

    void onCreated(const Agent &agent);
    void onUpdated(const QString &id, const QJsonObject &changes);
    void onDeleted(const QString &id);
    QString areaName(const QString &areaId) const;

    AgentRegistry &m_agents;
    AreaStore &m_areas;
    ActivityLog &m_log;
    QHash<QString, Known> m_known;
};

} // namespace flotilla
