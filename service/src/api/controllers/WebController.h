#pragma once
// The web page on the service's own port: GET / and the page's client-side routes answer the
// page, /assets/<version>/<name> its files (web/StaticSite: loading, ETags, gzip, caching and
// security headers). Open routes: the page holds nothing secret, the user signs in on it with
// the token, and every API call it makes needs that token. WebSocket upgrades at / never get
// here (ConnectionGuard hands them over before routing).

#include "http/ApiTypes.h"
#include "web/StaticSite.h"

namespace flotilla {

class HttpServer;

class WebController final {
    Q_DISABLE_COPY_MOVE(WebController)
public:
    WebController() = default;
    const web::StaticSite &site() const { return m_site; }

    // Registers nothing when the page's files are missing from the build.
    void registerRoutes(HttpServer &http);

private:
    Reply page(const ApiRequest &request) const;
    Reply asset(const ApiRequest &request) const;

    web::StaticSite m_site;
};

} // namespace flotilla
