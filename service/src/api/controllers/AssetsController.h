#pragma once
// Stored 3D model files, the `custom-3d-models` config category (docs/api.md "Custom 3D
// models"): GET/POST /api/custom-3d-models, GET/DELETE /api/custom-3d-models/:id and the file at
// /api/custom-3d-models/:id/file. Flotilla's clients do not use them: the service keeps them so
// a configuration moves between services without loss. The store is the service's (config
// transfer uses it too); this controller serves its routes and turns its signals into events.

#include "http/ApiTypes.h"

namespace flotilla {

class AssetStore;
class EventHub;
class HttpServer;

class AssetsController final {
    Q_DISABLE_COPY_MOVE(AssetsController)
public:
    AssetsController(AssetStore &models, EventHub &hub);

    // Also gives POST /api/custom-3d-models its larger body limit (AssetStore::kUploadBodyBytes).
    void registerRoutes(HttpServer &http);

private:
    Reply list(const ApiRequest &request) const;
    Reply get(const ApiRequest &request) const;
    Reply file(const ApiRequest &request) const;
    Reply create(const ApiRequest &request);
    Reply remove(const ApiRequest &request);

    AssetStore &m_models;
};

} // namespace flotilla
