#pragma once
// The web page's files, loaded once from Qt resources (`:/web`, compiled into flotillad) and
// answered from memory: type, ETag, gzip when the client accepts it, caching and the security
// headers (Content-Security-Policy, nosniff, no referrer, no framing).
//
// Assets are served under /assets/<version>/<name>: the version is a hash of every asset, so
// they may be cached for a year (immutable); the page (index.html, where "__ASSETS__" becomes
// that base path) is revalidated on every load (no-cache + ETag -> 304).

#include "http/ApiTypes.h"

#include <QByteArray>
#include <QHash>
#include <QString>

namespace flotilla::web {

struct StaticAsset {
    QByteArray body;
    QByteArray gzipBody; // empty: not worth compressing (or not text)
    QByteArray contentType;
    QByteArray etag; // strong, of `body`; the gzip variant's is the same with "-gz"
    bool immutable = false;
};

class StaticSite final {
public:
    // Loads every file directly in `root` (not recursive). index.html is the page.
    explicit StaticSite(const QString &root = QStringLiteral(":/web"));

    bool isValid() const { return !m_index.body.isEmpty(); }
    QString version() const { return m_version; }
    QString assetBase() const { return QStringLiteral("/assets/") + m_version; }
    const StaticAsset &page() const { return m_index; }
    // nullptr when there is no such asset.
    const StaticAsset *asset(const QString &name) const;
    QStringList assetNames() const;
    // Page and assets: uncompressed and as sent to a client that accepts gzip.
    qint64 totalBytes() const;
    qint64 totalGzipBytes() const;

    // The answer to GET/HEAD of `asset`: 200 with its body (gzip when accepted), or 304 when
    // If-None-Match names its ETag. Headers: type, ETag, Cache-Control, Vary, security headers.
    Reply respond(const StaticAsset &asset, const ApiRequest &request) const;

    static QByteArray contentTypeFor(const QString &fileName);
    static bool acceptsGzip(const QByteArray &acceptEncoding);
    // Whether an If-None-Match value names `etag` (either variant; weak comparison, or "*").
    static bool matchesEtag(const QByteArray &ifNoneMatch, const QByteArray &etag);
    // The page's Content-Security-Policy; `host` (already checked by RequestPolicy) lets the
    // WebSocket connect to this very host whichever way CSP's 'self' treats ws: and wss:.
    static QByteArray contentSecurityPolicy(const QByteArray &host);

private:
    StaticAsset m_index;
    QHash<QString, StaticAsset> m_assets;
    QString m_version;
};

} // namespace flotilla::web
