#pragma once
// GET /api/config/categories: the names of the configuration categories.

#include "http/ApiTypes.h"

namespace flotilla {

class HttpServer;

class ConfigController final {
    Q_DISABLE_COPY_MOVE(ConfigController)
public:
    ConfigController() = default;

    void registerRoutes(HttpServer &http);

private:
    static Reply categories(const ApiRequest &request);
};

} // namespace flotilla
