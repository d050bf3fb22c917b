#pragma once
// Which moments of the service become outgoing notifications, read from signals that already
// exist (nothing in the runtime or the domain knows about channels):
//  - agent_notification: NotificationService::notificationPosted (POST /api/notify), the
//    notification as the WebSocket event carries it
//  - permission_request: the hub's permission_request broadcast, without toolInput (a command
//    or a file's content can hold anything; the user reads it where they answer)
//  - agent_finished: AgentRuntime::turnFinished without error, {agentId, agentName, result}
//    (the final text, cut at 1000 characters)
//  - agent_error: an agent's status becoming `error` (a failed turn, a crash during one, a
//    refused message), {agentId, agentName, error}

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class EventHub;
class NotificationChannels;
class NotificationService;

// Connections live as long as `channels`.
void feedNotificationChannels(NotificationChannels &channels, NotificationService &notifications,
                              const AgentRegistry &agents, AgentRuntime &runtime, EventHub &hub);

} // namespace flotilla
