#pragma once
// Hosts (docs/api.md "Hosts"): GET/POST /api/hosts, GET/PATCH/DELETE /api/hosts/:name,
// POST /api/hosts/:name/check. The directory is the service's (engine/hosts); this controller
// serves its routes and turns its signals into host_* events.

#include "http/ApiTypes.h"

namespace flotilla {

class EventHub;
class HostDirectory;
class HttpServer;

class HostsController final {
    Q_DISABLE_COPY_MOVE(HostsController)
public:
    HostsController(HostDirectory &hosts, EventHub &hub);

    void registerRoutes(HttpServer &http);

private:
    Reply list(const ApiRequest &request) const;
    Reply get(const ApiRequest &request) const;
    Reply create(const ApiRequest &request);
    Reply patch(const ApiRequest &request);
    Reply remove(const ApiRequest &request);
    void check(const ApiRequest &request, const ReplyCallback &done);

    HostDirectory &m_hosts;
};

} // namespace flotilla
