// The web page on the service's port, over real sockets against the in-process
// service with a token: the page and its client-side routes, asset types, ETag/304, gzip, caching,
// the Content-Security-Policy and the other security headers, 404 for unknown assets, the asset
// budget, and what must not change: WebSocket upgrades at / and the Host/Origin refusals.

#include "support/WsTestKit.h"
#include "web/Gzip.h"
#include "web/StaticSite.h"

#include <QProcess>
#include <QRegularExpression>

using namespace flotilla;
using namespace flotilla::test;

namespace {

const QByteArray kToken = QByteArrayLiteral("web-static-token");

QByteArray gunzip(const QByteArray &data) {
    QProcess p;
    p.start(QStringLiteral("gzip"), {QStringLiteral("-dc")});
    if (!p.waitForStarted(5000))
        return {};
    p.write(data);
    p.closeWriteChannel();
    p.waitForFinished(5000);
    return p.exitCode() == 0 ? p.readAllStandardOutput() : QByteArray();
}

} // namespace

class TestWebStatic : public QObject {
    Q_OBJECT

    std::unique_ptr<TestService> m_svc;
    HttpClient m_anonymous; // the browser before sign-in: no token
    QString m_base;         // /assets/<version>

    HttpResponse get(const QString &path, const QHash<QByteArray, QByteArray> &headers = {}) {
        return m_anonymous.send("GET", m_svc->url(path), {}, headers);
    }

private Q_SLOTS:
    void initTestCase() {
        m_svc = std::make_unique<TestService>([](ServerConfig &c) { c.authToken = kToken; });
        QVERIFY2(m_svc->start(), qPrintable(m_svc->lastError()));
        const HttpResponse page = get(QStringLiteral("/"));
        QCOMPARE(page.status, 200);
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("src=\"(/assets/[0-9a-f]{12})/app\\.js\""))
                .match(QString::fromUtf8(page.body));
        QVERIFY2(m.hasMatch(), page.body.constData());
        m_base = m.captured(1);
    }

    void pageAndClientRoutes_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("/") << QStringLiteral("/");
        QTest::newRow("agent") << QStringLiteral("/agents/0b6c-anything");
        QTest::newRow("inbox") << QStringLiteral("/inbox");
        QTest::newRow("notifications") << QStringLiteral("/notifications");
        QTest::newRow("tasks") << QStringLiteral("/tasks");
        QTest::newRow("signin") << QStringLiteral("/signin");
        QTest::newRow("library") << QStringLiteral("/library");
        QTest::newRow("library section") << QStringLiteral("/library/skills");
        QTest::newRow("hosts") << QStringLiteral("/hosts");
    }

    void pageAndClientRoutes() {
        QFETCH(QString, path);
        const HttpResponse r = get(path);
        QCOMPARE(r.status, 200); // open: the sign-in happens on the page
        QCOMPARE(r.header("content-type"), QByteArray("text/html; charset=utf-8"));
        QCOMPARE(r.header("cache-control"), QByteArray("no-cache"));
        QVERIFY(!r.header("etag").isEmpty());
        QCOMPARE(r.header("x-content-type-options"), QByteArray("nosniff"));
        QCOMPARE(r.header("referrer-policy"), QByteArray("no-referrer"));
        QCOMPARE(r.header("x-frame-options"), QByteArray("DENY"));
        const QByteArray csp = r.header("content-security-policy");
        for (const char *directive :
             {"default-src 'none'", "script-src 'self';", "style-src 'self';",
              "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"})
            QVERIFY2(csp.contains(directive), csp.constData());
        // The WebSocket may reach this very host and nothing else.
        const QByteArray host = "127.0.0.1:" + QByteArray::number(m_svc->port());
        QVERIFY2(
            csp.contains(QByteArray("connect-src 'self' ws://" + host + " wss://" + host + ";")),
            csp.constData());
        QVERIFY(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"));
        // No inline script or style in the page itself.
        QVERIFY(!r.body.contains("<script>") && !r.body.contains("style=") &&
                !r.body.contains("<style"));
        QVERIFY(!r.body.contains("__ASSETS__"));
    }

    void assetTypes_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("type");
        QTest::newRow("js") << QStringLiteral("app.js")
                            << QByteArray("text/javascript; charset=utf-8");
        QTest::newRow("module") << QStringLiteral("markdown.js")
                                << QByteArray("text/javascript; charset=utf-8");
        QTest::newRow("css") << QStringLiteral("app.css") << QByteArray("text/css; charset=utf-8");
        QTest::newRow("svg") << QStringLiteral("icon.svg") << QByteArray("image/svg+xml");
    }

    void assetTypes() {
        QFETCH(QString, name);
        QFETCH(QByteArray, type);
        const HttpResponse r = get(m_base + QLatin1Char('/') + name);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.header("content-type"), type);
        QCOMPARE(r.header("cache-control"), QByteArray("public, max-age=31536000, immutable"));
        QCOMPARE(r.header("x-content-type-options"), QByteArray("nosniff"));
        QVERIFY(!r.header("etag").isEmpty());
        QVERIFY(!r.body.isEmpty());
    }

    void etagRevalidation_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("page") << QStringLiteral("/");
        QTest::newRow("asset") << QStringLiteral("$base/app.js");
    }

    void etagRevalidation() {
        QFETCH(QString, path);
        path.replace(QStringLiteral("$base"), m_base);
        const HttpResponse first = get(path);
        const QByteArray etag = first.header("etag");
        QVERIFY(etag.startsWith('"') && etag.endsWith('"'));
        const HttpResponse again = get(path, {{"If-None-Match", etag}});
        QCOMPARE(again.status, 304);
        QVERIFY(again.body.isEmpty());
        QCOMPARE(again.header("etag"), etag);
        QCOMPARE(again.header("cache-control"), first.header("cache-control"));
        QCOMPARE(get(path, {{"If-None-Match", "W/" + etag}}).status, 304);
        QCOMPARE(get(path, {{"If-None-Match", "\"other\", " + etag}}).status, 304);
        const HttpResponse changed = get(path, {{"If-None-Match", "\"something-else\""}});
        QCOMPARE(changed.status, 200);
        QCOMPARE(changed.body, first.body);
    }

    void gzipWhenAccepted_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("page") << QStringLiteral("/");
        QTest::newRow("js") << QStringLiteral("$base/views.js");
        QTest::newRow("css") << QStringLiteral("$base/app.css");
    }

    void gzipWhenAccepted() {
        QFETCH(QString, path);
        path.replace(QStringLiteral("$base"), m_base);
        const HttpResponse plain = get(path, {{"Accept-Encoding", "identity"}});
        QCOMPARE(plain.status, 200);
        QVERIFY(plain.header("content-encoding").isEmpty());
        QCOMPARE(plain.header("vary"), QByteArray("Accept-Encoding"));

        const HttpResponse packed = get(path, {{"Accept-Encoding", "gzip, deflate, br"}});
        QCOMPARE(packed.status, 200);
        QCOMPARE(packed.header("content-encoding"), QByteArray("gzip"));
        QCOMPARE(packed.header("vary"), QByteArray("Accept-Encoding"));
        QCOMPARE(packed.header("content-length").toLongLong(), packed.body.size());
        QVERIFY(packed.body.size() < plain.body.size());
        QCOMPARE(gunzip(packed.body), plain.body); // an independent decoder agrees
        QVERIFY(packed.header("etag") != plain.header("etag"));
        // Its own ETag revalidates too.
        QCOMPARE(get(path, {{"Accept-Encoding", "gzip"}, {"If-None-Match", packed.header("etag")}})
                     .status,
                 304);

        QVERIFY(get(path, {{"Accept-Encoding", "gzip;q=0, deflate"}})
                    .header("content-encoding")
                    .isEmpty());
        QCOMPARE(get(path, {{"Accept-Encoding", "*"}}).header("content-encoding"),
                 QByteArray("gzip"));
    }

    void gzipFraming() {
        QCOMPARE(web::crc32(QByteArrayLiteral("123456789")), 0xCBF43926U);
        QCOMPARE(web::crc32({}), 0U);
        for (const QByteArray &input :
             {QByteArray(), QByteArray("a"), QByteArray(100000, 'x'), QByteArray("héllo\n")}) {
            const QByteArray packed = web::gzip(input);
            QVERIFY(packed.startsWith("\x1f\x8b\x08"));
            QCOMPARE(gunzip(packed), input);
        }
    }

    void encodingNegotiation_data() {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<bool>("gzip");
        QTest::newRow("absent") << QByteArray() << false;
        QTest::newRow("gzip") << QByteArray("gzip") << true;
        QTest::newRow("list") << QByteArray("deflate, gzip;q=0.8") << true;
        QTest::newRow("refused") << QByteArray("gzip;q=0") << false;
        QTest::newRow("refused 0.000") << QByteArray("gzip; q=0.000, *") << false;
        QTest::newRow("star") << QByteArray("*") << true;
        QTest::newRow("star refused") << QByteArray("br, *;q=0") << false;
        QTest::newRow("x-gzip") << QByteArray("x-gzip") << true;
        QTest::newRow("other") << QByteArray("br, deflate") << false;
        QTest::newRow("case") << QByteArray("GZIP") << true;
    }

    void encodingNegotiation() {
        QFETCH(QByteArray, header);
        QFETCH(bool, gzip);
        QCOMPARE(web::StaticSite::acceptsGzip(header), gzip);
    }

    void headMirrorsGet() {
        const QHash<QByteArray, QByteArray> identity{{"Accept-Encoding", "identity"}};
        const HttpResponse g = get(QStringLiteral("/"), identity);
        const HttpResponse head =
            m_anonymous.send("HEAD", m_svc->url(QStringLiteral("/")), {}, identity);
        QCOMPARE(head.status, 200);
        QVERIFY(head.body.isEmpty());
        QCOMPARE(head.header("content-length").toLongLong(), g.body.size());
        QCOMPARE(head.header("etag"), g.header("etag"));
    }

    void unknownAssetsAre404Json_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("unknown file") << QStringLiteral("$base/nope.js");
        QTest::newRow("old version") << QStringLiteral("/assets/000000000000/app.js");
        QTest::newRow("index by name") << QStringLiteral("$base/index.html");
    }

    void unknownAssetsAre404Json() {
        QFETCH(QString, path);
        path.replace(QStringLiteral("$base"), m_base);
        const HttpResponse r = get(path);
        QCOMPARE(r.status, 404);
        QCOMPARE(r.header("content-type"), QByteArray("application/json"));
        QCOMPARE(r.object().value(QStringLiteral("code")).toString(), QStringLiteral("not_found"));
        QCOMPARE(r.header("cache-control"), QByteArray("no-store"));
    }

    void otherPathsStayClosed() {
        // Only the page's own routes are open: anything else still needs the token first.
        QCOMPARE(get(QStringLiteral("/elsewhere")).status, 401);
        QCOMPARE(get(QStringLiteral("/api/agents")).status, 401);
        QCOMPARE(m_anonymous.send("POST", m_svc->url(QStringLiteral("/"))).status, 401);
        HttpClient withToken(kToken);
        QCOMPARE(withToken.get(m_svc->url(QStringLiteral("/elsewhere"))).status, 404);
        QCOMPARE(withToken.send("POST", m_svc->url(QStringLiteral("/"))).status, 405);
        // The API keeps its no-store.
        QCOMPARE(withToken.get(m_svc->url(QStringLiteral("/api/agents"))).header("cache-control"),
                 QByteArray("no-store"));
    }

    void everyReferenceResolvesAndFitsTheBudget() {
        const web::StaticSite site;
        QVERIFY(site.isValid());
        // Each asset named in the page and each module import resolves.
        QStringList referenced;
        const QString page = QString::fromUtf8(get(QStringLiteral("/")).body);
        const QRegularExpression inPage(QStringLiteral("\"/assets/[0-9a-f]{12}/([^\"]+)\""));
        for (auto it = inPage.globalMatch(page); it.hasNext();)
            referenced << it.next().captured(1);
        const QRegularExpression imports(QStringLiteral("from '\\./([^']+)'"));
        for (const QString &name : site.assetNames()) {
            if (!name.endsWith(QLatin1String(".js")))
                continue;
            const QString text = QString::fromUtf8(site.asset(name)->body);
            for (auto it = imports.globalMatch(text); it.hasNext();)
                referenced << it.next().captured(1);
            // Agent text must never reach the DOM as markup.
            QVERIFY2(!text.contains(QLatin1String("innerHTML")) &&
                         !text.contains(QLatin1String("outerHTML")) &&
                         !text.contains(QLatin1String("insertAdjacentHTML")) &&
                         !text.contains(QLatin1String("eval(")),
                     qPrintable(name));
        }
        QVERIFY(referenced.size() > 8);
        for (const QString &name : std::as_const(referenced)) {
            QVERIFY2(site.asset(name), qPrintable(name));
            QCOMPARE(get(m_base + QLatin1Char('/') + name).status, 200);
        }
        // The page's weight limit: under 150 KB of assets in all.
        qInfo("page weight: %lld bytes, %lld gzipped, %lld files", site.totalBytes(),
              site.totalGzipBytes(), qint64(site.assetNames().size() + 1));
        QVERIFY(site.totalBytes() < 150 * 1024);
    }

    void webSocketAtRootStillWorks() {
        // The browser's way: the token as subprotocol, an Origin of our own.
        QNetworkRequest request(m_svc->wsUrl(QStringLiteral("/")));
        request.setRawHeader("Origin", "http://127.0.0.1:" + QByteArray::number(m_svc->port()));
        request.setRawHeader("Sec-WebSocket-Protocol", "auth-" + kToken);
        WsClient ws;
        QVERIFY(ws.open(request));
        QVERIFY(ws.waitFor(m::AgentsUpdate));
        // Without the token the upgrade at / is refused, not answered with the page.
        const QByteArray refused = rawExchange(m_svc->port(), handshake("/"));
        QCOMPARE(rawStatus(refused), 401);
        QVERIFY(!refused.contains("<!doctype html>"));
    }

    void foreignHostAndOriginAreRefused_data() {
        QTest::addColumn<QByteArray>("headers");
        QTest::addColumn<QByteArray>("code");
        QTest::newRow("rebound host")
            << QByteArray("Host: evil.example:PORT\r\n") << QByteArray("forbidden_host");
        QTest::newRow("foreign origin")
            << QByteArray("Host: 127.0.0.1:PORT\r\nOrigin: http://evil.example\r\n")
            << QByteArray("forbidden_origin");
        QTest::newRow("other local port")
            << QByteArray("Host: 127.0.0.1:PORT\r\nOrigin: http://localhost:3000\r\n")
            << QByteArray("forbidden_origin");
        QTest::newRow("cross-site fetch")
            << QByteArray("Host: 127.0.0.1:PORT\r\nSec-Fetch-Site: cross-site\r\n")
            << QByteArray("forbidden_origin");
    }

    void foreignHostAndOriginAreRefused() {
        QFETCH(QByteArray, headers);
        QFETCH(QByteArray, code);
        headers.replace("PORT", QByteArray::number(m_svc->port()));
        for (const QByteArray &target :
             {QByteArray("/"), QByteArray(m_base.toUtf8() + "/app.js")}) {
            const QByteArray r =
                rawExchange(m_svc->port(), "GET " + target + " HTTP/1.1\r\n" + headers + "\r\n");
            QCOMPARE(rawStatus(r), 403);
            QCOMPARE(QJsonDocument::fromJson(rawBody(r)).object().value(QStringLiteral("code")),
                     QJsonValue(QString::fromLatin1(code)));
            QVERIFY(!r.contains("<!doctype"));
        }
        // The page's own origin is fine.
        const QByteArray own =
            rawExchange(m_svc->port(),
                        "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(m_svc->port()) +
                            "\r\nOrigin: http://127.0.0.1:" + QByteArray::number(m_svc->port()) +
                            "\r\nConnection: close\r\n\r\n");
        QCOMPARE(rawStatus(own), 200);
        QVERIFY(own.contains("\r\nContent-Type: text/html; charset=utf-8\r\n"));
    }
};

QTEST_GUILESS_MAIN(TestWebStatic)
#include "tst_web_static.moc"
