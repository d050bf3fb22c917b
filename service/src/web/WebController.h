#pragma once
// The web page on the service's own port (issue 15): GET / and the page's client-side routes
// answer the page, /assets/<version>/<name> its files. Open routes: the page holds nothing
// secret, the user signs in on it with the token, and every API call it makes needs that token.
// WebSocket upgrades at / never get here (ConnectionGuard hands them over before routing).

#include "web/StaticSite.h"

#include <QObject>

namespace flotilla {

class HttpServer;

class WebController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WebController)
public:
    explicit WebController(HttpServer &http, QObject *parent = nullptr);
    const web::StaticSite &site() const { return m_site; }

    // Paths the page routes itself (history API), answered with the page.
    static QStringList pageRoutes();

private:
    web::StaticSite m_site;
};

} // namespace flotilla
