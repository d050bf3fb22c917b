#pragma once
// GET/POST /api/buildings, GET/PATCH/DELETE /api/buildings/:id, POST /api/buildings/:id/start,
// stop and restart, GET /api/buildings/:id/logs. Serves the building store and supervisor (the
// composition root owns both: it starts the autostart buildings and stops all at shutdown) and
// turns their signals into building_* events.

#include "http/ApiTypes.h"

namespace flotilla {

class BuildingStore;
class BuildingSupervisor;
class EventHub;
class HttpServer;

class BuildingsController final {
    Q_DISABLE_COPY_MOVE(BuildingsController)
public:
    static constexpr int kTailDefault = 1000;
    static constexpr int kTailMax = 10'000;

    BuildingsController(BuildingStore &store, BuildingSupervisor &supervisor, EventHub &hub);

    void registerRoutes(HttpServer &http);

private:
    Reply list(const ApiRequest &request) const;
    Reply get(const ApiRequest &request) const;
    Reply create(const ApiRequest &request);
    Reply patch(const ApiRequest &request);
    void remove(const ApiRequest &request, const ReplyCallback &done);
    Reply start(const ApiRequest &request);
    void stop(const ApiRequest &request, const ReplyCallback &done);
    void restart(const ApiRequest &request, const ReplyCallback &done);
    Reply logs(const ApiRequest &request) const;
    void wireEvents(EventHub &hub);

    BuildingStore &m_store;
    BuildingSupervisor &m_supervisor;
};

} // namespace flotilla
