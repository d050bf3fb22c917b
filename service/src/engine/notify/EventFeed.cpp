#include "notify/EventFeed.h"

#include "agents/AgentRuntime.h"
#include "domain/AgentRegistry.h"
#include "domain/NotificationService.h"
#include "notify/NotificationChannels.h"
#include "protocol/NotifyNames.h"
#include "protocol/PermissionNames.h"
#include "ws/EventHub.h"

namespace flotilla {

namespace k = wire::key;
namespace ne = wire::notify::event;

namespace {
constexpr int kTextMax = 1000;

QJsonObject aboutAgent(const AgentRegistry &agents, const QString &agentId) {
    const Agent *agent = agents.find(agentId);
    return {{k::AgentId, agentId}, {k::AgentName, agent ? agent->name : QString()}};
}
} // namespace

void feedNotificationChannels(NotificationChannels &channels, NotificationService &notifications,
                              const AgentRegistry &agents, AgentRuntime &runtime, EventHub &hub) {
    NotificationChannels *out = &channels;
    QObject::connect(
        &notifications, &NotificationService::notificationPosted, out,
        [out](const Notification &n) { out->publish(ne::AgentNotification, n.toJson()); });
    QObject::connect(&hub, &EventHub::broadcasted, out,
                     [out](QLatin1String type, const QJsonValue &payload) {
                         if (type != wire::permission::msg::Request)
                             return;
                         QJsonObject request = payload.toObject();
                         request.remove(wire::permission::key::ToolInput);
                         out->publish(ne::PermissionRequest, request);
                     });
    QObject::connect(&runtime, &AgentRuntime::turnFinished, out,
                     [out, &agents](const QString &agentId, const QString &text, bool isError) {
                         if (isError)
                             return; // the status becomes error: agent_error below
                         QJsonObject payload = aboutAgent(agents, agentId);
                         payload.insert(wire::notify::key::Result, text.left(kTextMax));
                         out->publish(ne::AgentFinished, payload);
                     });
    QObject::connect(&agents, &AgentRegistry::agentUpdated, out,
                     [out, &agents](const QString &id, const QJsonObject &changes) {
                         if (changes.value(k::Status).toString() != wire::status::Error)
                             return;
                         const Agent *agent = agents.find(id);
                         QJsonObject payload = aboutAgent(agents, id);
                         payload.insert(k::Error,
                                        agent ? agent->lastError.left(kTextMax) : QString());
                         out->publish(ne::AgentError, payload);
                     });
}

} // namespace flotilla
