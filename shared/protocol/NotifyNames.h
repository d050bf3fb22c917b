#pragma once
// Wire names of outgoing notification channels: /api/notification-channels, the events a channel
// subscribes to, its formats, the delivery headers a receiver reads, and the keys of channels and
// deliveries. Keys shared with other areas (id, name, createdAt, lastError,
// failed...) stay in WireNames.h.

#include "protocol/WireNames.h"

namespace flotilla::wire::notify {

using ::flotilla::wire::Name;

// What a channel can subscribe to (its `events`), and the event of a test delivery.
namespace event {
inline constexpr Name AgentNotification{"agent_notification"}; // POST /api/notify
inline constexpr Name PermissionRequest{"permission_request"}; // a tool use waits for the user
inline constexpr Name AgentFinished{"agent_finished"};         // a turn ended without error
inline constexpr Name AgentError{"agent_error"};               // an agent's status became error
inline constexpr Name Test{"test"}; // POST /api/notification-channels/:id/test only
} // namespace event

namespace format {
inline constexpr Name Json{"json"};   // {id, event, timestamp, payload}
inline constexpr Name Ntfy{"ntfy"};   // ntfy's publish API: text body, Title/Priority/Tags
inline constexpr Name Slack{"slack"}; // Slack incoming webhook: {"text": ...}
} // namespace format

// A delivery's state. Delivered items leave the outbox; only these two are listed.
namespace state {
inline constexpr Name Pending{"pending"};
inline constexpr Name Failed{"failed"};
} // namespace state

namespace key {
// A channel
inline constexpr Name Url{"url"};
inline constexpr Name Format{"format"};
inline constexpr Name Events{"events"};
inline constexpr Name Secret{"secret"}; // accepted on POST, never returned
inline constexpr Name HasSecret{"hasSecret"};
inline constexpr Name LastDeliveredAt{"lastDeliveredAt"};
inline constexpr Name Pending{"pending"};
// A delivery (the json format's body, and GET .../deliveries)
inline constexpr Name Event{"event"};
inline constexpr Name DeliveryId{"deliveryId"};
inline constexpr Name State{"state"};
inline constexpr Name Attempts{"attempts"};
inline constexpr Name NextAttemptAt{"nextAttemptAt"};
// Payloads of agent_finished / agent_error
inline constexpr Name Result{"result"};
} // namespace key

// Headers of every delivery request.
namespace header {
inline constexpr Name Delivery{"X-Flotilla-Delivery"};   // the stable delivery id
inline constexpr Name Event{"X-Flotilla-Event"};         // the event name
inline constexpr Name Timestamp{"X-Flotilla-Timestamp"}; // this attempt, epoch milliseconds
// sha256=<hex HMAC-SHA256 over "<timestamp>.<body>" with the channel's secret>; with a secret only
inline constexpr Name Signature{"X-Flotilla-Signature"};
inline constexpr Name SignaturePrefix{"sha256="};
} // namespace header

namespace code {
inline constexpr Name TooManyChannels{"too_many_channels"}; // 409
} // namespace code

} // namespace flotilla::wire::notify
