#pragma once
// GET/POST/DELETE /api/notification-channels, its :id/test and :id/deliveries (issue 13). Owns
// the channels service and feeds it the service's events (notify/EventFeed.h).

#include "controllers/OrchestrationDeps.h"
#include "notify/NotificationChannels.h"

#include <QObject>

namespace flotilla {

class NotificationService;

class NotificationChannelsController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NotificationChannelsController)
public:
    NotificationChannelsController(const OrchestrationDeps &deps,
                                   NotificationService &notifications, NotifyConfig config,
                                   QObject *parent = nullptr);

    NotificationChannels &channels() { return m_channels; }

private:
    NotificationChannels m_channels;
};

} // namespace flotilla
