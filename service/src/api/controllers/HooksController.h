#pragma once
// GET/POST /api/hooks, GET/PATCH/DELETE /api/hooks/:id and GET /api/hooks/:id/runs (docs/api.md
// "Hooks"). Serves the hook store and turns its changes and the runner's finished runs into
// hook_created / hook_updated / hook_deleted / hook_run events.
//
// Every route is the service token's: an agent's token gets 403 on all of them, reads included
// (the dispatcher refuses it before any handler runs; the mutating handlers check again). A hook
// runs any command as the user, so an agent that could define one would escape its permission
// mode; and its runs' output is not the agent's to read.

#include "http/ApiTypes.h"

namespace flotilla {

class EventHub;
class HookRunner;
class HookStore;
class HttpServer;

class HooksController final {
    Q_DISABLE_COPY_MOVE(HooksController)
public:
    // The events' connections have the hub as context: they end with the store, the runner or
    // the hub, whichever goes first.
    HooksController(HookStore &hooks, HookRunner &runner, EventHub &hub);

    void registerRoutes(HttpServer &http);

private:
    Reply list(const ApiRequest &request) const;
    Reply create(const ApiRequest &request);
    Reply get(const ApiRequest &request) const;
    Reply update(const ApiRequest &request);
    Reply remove(const ApiRequest &request);
    Reply runs(const ApiRequest &request) const;

    HookStore &m_hooks;
};

} // namespace flotilla
