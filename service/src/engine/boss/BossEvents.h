#pragma once
// How the boss classes announce events: one function the controller binds to the event hub, so
// the domain code never holds the hub (and the event shapes stay next to the code that knows
// them). `always` marks events a lagging client must still get (see EventHub::Delivery).

#include <QJsonValue>
#include <QLatin1String>

#include <functional>

namespace flotilla::boss {

using Publish = std::function<void(QLatin1String type, const QJsonValue &payload, bool always)>;

} // namespace flotilla::boss
