#pragma once
// In-app notifications sent by agents (POST /api/notify): validated, persisted, announced.

#include "base/Clock.h"
#include "base/Error.h"
#include "protocol/Notification.h"

#include <QJsonObject>
#include <QList>
#include <QObject>

namespace flotilla {

class AgentRegistry;
class Database;

class NotificationService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NotificationService)
public:
    static constexpr int kRetained = 1000; // newest kept; older ones are pruned on insert
    static constexpr int kTitleMax = 200;
    static constexpr int kMessageMax = 10000;
    static constexpr int kDefaultListLimit = 50;

    NotificationService(Database &db, const AgentRegistry &agents, Clock clock,
                        QObject *parent = nullptr);

    // Validates a POST /api/notify body and stores the notification.
    Result<Notification> post(const QJsonObject &body);
    // Newest first.
    Result<QList<Notification>> list(int limit) const;

Q_SIGNALS:
    void notificationPosted(const flotilla::Notification &notification);

private:
    Database &m_db;
    const AgentRegistry &m_agents;
    Clock m_clock;
};

} // namespace flotilla
