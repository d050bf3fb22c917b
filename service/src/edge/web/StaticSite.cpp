#include "web/StaticSite.h"

#include "http/RequestPolicy.h"
#include "web/Gzip.h"
#include "web/WebLogging.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>

#include <algorithm>

namespace flotilla::web {

namespace {

const QString kIndex = QStringLiteral("index.html");
constexpr QByteArrayView kAssetsPlaceholder("__ASSETS__");
// Compress only what gains at least this share (small or already compressed files do not).
constexpr double kWorthCompressing = 0.9;

bool isText(const QByteArray &type) {
    return type.startsWith("text/") || type.startsWith("application/json") ||
           type.startsWith("image/svg+xml") || type.startsWith("application/manifest+json");
}

QByteArray strongEtag(const QByteArray &body) {
    const QByteArray hash = QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex();
    return '"' + hash.left(20) + '"';
}

QByteArray gzipEtag(const QByteArray &etag) {
    QByteArray tag = etag;
    tag.insert(tag.size() - 1, "-gz");
    return tag;
}

StaticAsset makeAsset(const QString &name, QByteArray body, bool immutable) {
    StaticAsset a;
    a.contentType = StaticSite::contentTypeFor(name);
    a.etag = strongEtag(body);
    a.immutable = immutable;
    if (isText(a.contentType)) {
        QByteArray packed = web::gzip(body);
        if (!packed.isEmpty() && double(packed.size()) < kWorthCompressing * double(body.size()))
            a.gzipBody = std::move(packed);
    }
    a.body = std::move(body);
    return a;
}

// "a, b;q=0.5, c;q=0" -> (coding, q) pairs.
bool codingAccepted(const QByteArray &header, QByteArrayView coding, bool *mentioned) {
    bool starOk = false;
    bool starSeen = false;
    for (const QByteArray &part : header.split(',')) {
        const QList<QByteArray> fields = part.split(';');
        const QByteArray name = fields.value(0).trimmed().toLower();
        double q = 1.0;
        for (qsizetype i = 1; i < fields.size(); ++i) {
            const QByteArray param = fields[i].trimmed().toLower();
            if (param.startsWith("q=")) {
                bool ok = false;
                q = param.mid(2).toDouble(&ok);
                if (!ok)
                    q = 0.0;
            }
        }
        if (name == coding) {
            *mentioned = true;
            return q > 0.0;
        }
        if (name == "*") {
            starSeen = true;
            starOk = q > 0.0;
        }
    }
    *mentioned = starSeen;
    return starSeen && starOk;
}

} // namespace

StaticSite::StaticSite(const QString &root) {
    const QDir dir(root);
    QStringList names = dir.entryList(QDir::Files, QDir::Name);
    QCryptographicHash all(QCryptographicHash::Sha256);
    QByteArray indexTemplate;
    for (const QString &name : std::as_const(names)) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::ReadOnly)) {
            qCWarning(lcWeb).noquote() << "cannot read" << f.fileName() << f.errorString();
            continue;
        }
        QByteArray body = f.readAll();
        if (name == kIndex) {
            indexTemplate = std::move(body);
            continue;
        }
        all.addData(name.toUtf8());
        all.addData(QByteArrayView("\0", 1));
        all.addData(body);
        m_assets.insert(name, makeAsset(name, std::move(body), /*immutable=*/true));
    }
    m_version = QString::fromLatin1(all.result().toHex().left(12));
    if (indexTemplate.isEmpty()) {
        qCWarning(lcWeb).noquote() << "no index.html in" << root << ": the web page is not served";
        return;
    }
    indexTemplate.replace(kAssetsPlaceholder, assetBase().toUtf8());
    m_index = makeAsset(kIndex, std::move(indexTemplate), /*immutable=*/false);
    qCDebug(lcWeb).noquote() << "web page" << m_version << ":" << m_assets.size() + 1 << "files,"
                             << totalBytes() << "bytes," << totalGzipBytes() << "gzipped";
}

const StaticAsset *StaticSite::asset(const QString &name) const {
    const auto it = m_assets.constFind(name);
    return it == m_assets.constEnd() ? nullptr : &*it;
}

QStringList StaticSite::assetNames() const {
    QStringList names = m_assets.keys();
    std::sort(names.begin(), names.end());
    return names;
}

qint64 StaticSite::totalBytes() const {
    qint64 n = m_index.body.size();
    for (const StaticAsset &a : m_assets)
        n += a.body.size();
    return n;
}

qint64 StaticSite::totalGzipBytes() const {
    auto sent = [](const StaticAsset &a) {
        return a.gzipBody.isEmpty() ? a.body.size() : a.gzipBody.size();
    };
    qint64 n = sent(m_index);
    for (const StaticAsset &a : m_assets)
        n += sent(a);
    return n;
}

QByteArray StaticSite::contentTypeFor(const QString &fileName) {
    static const QHash<QString, QByteArray> types{
        {QStringLiteral("html"), QByteArrayLiteral("text/html; charset=utf-8")},
        {QStringLiteral("css"), QByteArrayLiteral("text/css; charset=utf-8")},
        {QStringLiteral("js"), QByteArrayLiteral("text/javascript; charset=utf-8")},
        {QStringLiteral("mjs"), QByteArrayLiteral("text/javascript; charset=utf-8")},
        {QStringLiteral("json"), QByteArrayLiteral("application/json")},
        {QStringLiteral("webmanifest"), QByteArrayLiteral("application/manifest+json")},
        {QStringLiteral("svg"), QByteArrayLiteral("image/svg+xml")},
        {QStringLiteral("png"), QByteArrayLiteral("image/png")},
        {QStringLiteral("ico"), QByteArrayLiteral("image/x-icon")},
        {QStringLiteral("txt"), QByteArrayLiteral("text/plain; charset=utf-8")},
    };
    const qsizetype dot = fileName.lastIndexOf(QLatin1Char('.'));
    const QString ext = dot < 0 ? QString() : fileName.mid(dot + 1).toLower();
    return types.value(ext, QByteArrayLiteral("application/octet-stream"));
}

bool StaticSite::acceptsGzip(const QByteArray &acceptEncoding) {
    if (acceptEncoding.isEmpty())
        return false;
    bool mentioned = false;
    const bool gzip = codingAccepted(acceptEncoding, "gzip", &mentioned);
    if (mentioned)
        return gzip;
    return codingAccepted(acceptEncoding, "x-gzip", &mentioned) && mentioned;
}

bool StaticSite::matchesEtag(const QByteArray &ifNoneMatch, const QByteArray &etag) {
    const QByteArray gz = gzipEtag(etag);
    for (QByteArray candidate : ifNoneMatch.split(',')) {
        candidate = candidate.trimmed();
        if (candidate == "*")
            return true;
        if (candidate.startsWith("W/"))
            candidate = candidate.mid(2);
        if (candidate == etag || candidate == gz)
            return true;
    }
    return false;
}

QByteArray StaticSite::contentSecurityPolicy(const QByteArray &host) {
    QByteArray connect = QByteArrayLiteral("'self'");
    QByteArrayView name;
    int port = -1;
    // Echo the Host only in the shape RequestPolicy accepts (no spaces, quotes or semicolons).
    if (!host.isEmpty() && RequestPolicy::splitAuthority(host.trimmed(), &name, &port))
        connect += " ws://" + host.trimmed() + " wss://" + host.trimmed();
    // blob: images: class icons, which need the token, are fetched by the page and shown from a
    // blob URL it made; an SVG shown as an image runs no script.
    return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
           "font-src 'self'; manifest-src 'self'; connect-src " +
           connect +
           "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'";
}

Reply StaticSite::respond(const StaticAsset &asset, const ApiRequest &request) const {
    const bool gzip = !asset.gzipBody.isEmpty() && acceptsGzip(request.acceptEncoding);
    const QByteArray etag = gzip ? gzipEtag(asset.etag) : asset.etag;
    Reply r;
    r.contentType = asset.contentType;
    r.headers = {
        {QByteArrayLiteral("ETag"), etag},
        {QByteArrayLiteral("Cache-Control"),
         asset.immutable ? QByteArrayLiteral("public, max-age=31536000, immutable")
                         : QByteArrayLiteral("no-cache")},
        {QByteArrayLiteral("X-Content-Type-Options"), QByteArrayLiteral("nosniff")},
        {QByteArrayLiteral("Referrer-Policy"), QByteArrayLiteral("no-referrer")},
        {QByteArrayLiteral("Cross-Origin-Resource-Policy"), QByteArrayLiteral("same-origin")},
    };
    if (!asset.gzipBody.isEmpty())
        r.headers.append({QByteArrayLiteral("Vary"), QByteArrayLiteral("Accept-Encoding")});
    if (&asset == &m_index) {
        r.headers.append(
            {QByteArrayLiteral("Content-Security-Policy"), contentSecurityPolicy(request.host)});
        r.headers.append({QByteArrayLiteral("X-Frame-Options"), QByteArrayLiteral("DENY")});
        r.headers.append(
            {QByteArrayLiteral("Cross-Origin-Opener-Policy"), QByteArrayLiteral("same-origin")});
    }
    if (!request.ifNoneMatch.isEmpty() && matchesEtag(request.ifNoneMatch, asset.etag)) {
        r.status = 304;
        return r;
    }
    if (gzip) {
        r.headers.append({QByteArrayLiteral("Content-Encoding"), QByteArrayLiteral("gzip")});
        r.body = asset.gzipBody;
    } else {
        r.body = asset.body;
    }
    return r;
}

} // namespace flotilla::web
