#include "protocol/Notification.h"

#include "protocol/WireNames.h"

namespace flotilla {

namespace k = wire::key;

QJsonObject Notification::toJson() const {
    QJsonObject o{{k::Id, id},
                  {k::AgentId, agentId},
                  {k::AgentName, agentName},
                  {k::AgentClass, agentClass},
                  {k::Title, title},
                  {k::Message, message},
                  {k::Timestamp, timestamp}};
    if (!iconUrl.isEmpty())
        o.insert(k::IconUrl, iconUrl);
    if (!imageUrl.isEmpty())
        o.insert(k::ImageUrl, imageUrl);
    return o;
}

bool Notification::fromJson(const QJsonObject &json, Notification *out) {
    Notification n;
    n.id = json.value(k::Id).toString();
    if (n.id.isEmpty())
        return false;
    n.agentId = json.value(k::AgentId).toString();
    n.agentName = json.value(k::AgentName).toString();
    n.agentClass = json.value(k::AgentClass).toString();
    n.title = json.value(k::Title).toString();
    n.message = json.value(k::Message).toString();
    n.timestamp = json.value(k::Timestamp).toInteger();
    n.iconUrl = json.value(k::IconUrl).toString();
    n.imageUrl = json.value(k::ImageUrl).toString();
    *out = std::move(n);
    return true;
}

} // namespace flotilla
