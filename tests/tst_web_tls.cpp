// flotillad with --tls-cert/--tls-key (issue 15, remote use): the page, REST and the WebSocket
// over TLS (QSslSocket per connection behind the same guard), https:// as the page's own origin,
// plain HTTP refused on that port, agents' callbacks on a plain loopback listener of their own,
// files refused at start with the reason, and the page signed in and live in Chromium over TLS.
// The certificate is made for the test by the openssl command (self-signed, EC P-256).

#include "support/BrowserBridge.h"
#include "support/ServiceProcess.h"
#include "support/WsTestKit.h"

#include <QNetworkReply>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTemporaryDir>

using namespace flotilla;
using namespace flotilla::test;

namespace {

const QByteArray kToken = QByteArrayLiteral("tls-suite-token");

} // namespace

class TestWebTls : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_cert;
    QString m_key;
    std::unique_ptr<TestService> m_svc;
    QNetworkAccessManager m_nam;
    QSslConfiguration m_trust; // trusts the test's certificate only

    QUrl httpsUrl(const QString &path) const {
        return QUrl(QStringLiteral("https://127.0.0.1:%1%2").arg(m_svc->port()).arg(path));
    }
    QByteArray ownOrigin() const {
        return "https://127.0.0.1:" + QByteArray::number(m_svc->port());
    }
    // A request over TLS; `origin` and `body` when given. Spins the event loop.
    HttpResponse send(const QByteArray &method, const QString &path, const QByteArray &origin = {},
                      const QByteArray &body = {}) {
        QNetworkRequest r(httpsUrl(path));
        r.setSslConfiguration(m_trust);
        r.setRawHeader("X-Auth-Token", kToken);
        if (!origin.isEmpty())
            r.setRawHeader("Origin", origin);
        if (!body.isEmpty())
            r.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = m_nam.sendCustomRequest(r, method, body);
        HttpResponse out;
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 10000))
            return out;
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        out.body = reply->readAll();
        for (const auto &h : reply->rawHeaderPairs())
            out.headers.insert(h.first.toLower(), h.second);
        out.networkError = reply->errorString();
        reply->deleteLater();
        return out;
    }

    bool makeCertificate() {
        m_cert = m_dir.filePath(QStringLiteral("cert.pem"));
        m_key = m_dir.filePath(QStringLiteral("key.pem"));
        QProcess openssl;
        openssl.start(QStringLiteral("openssl"),
                      {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
                       QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                       QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
                       QStringLiteral("-keyout"), m_key, QStringLiteral("-out"), m_cert,
                       QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
                       QStringLiteral("/CN=localhost"), QStringLiteral("-addext"),
                       QStringLiteral("subjectAltName=DNS:localhost,IP:127.0.0.1")});
        return openssl.waitForFinished(30000) && openssl.exitCode() == 0;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(makeCertificate(), "the openssl command could not make a certificate");
        m_trust = QSslConfiguration::defaultConfiguration();
        m_trust.setCaCertificates(QSslCertificate::fromPath(m_cert));
        m_svc = std::make_unique<TestService>([this](ServerConfig &c) {
            c.authToken = kToken;
            c.tlsCert = m_cert;
            c.tlsKey = m_key;
        });
        QVERIFY2(m_svc->start(), qPrintable(m_svc->lastError()));
    }

    void pageAndApiOverHttps() {
        const HttpResponse page = send("GET", QStringLiteral("/"));
        QVERIFY2(page.status == 200, qPrintable(page.networkError));
        QCOMPARE(page.header("content-type"), QByteArray("text/html; charset=utf-8"));
        QVERIFY(page.header("content-security-policy").contains("wss://127.0.0.1:"));
        QCOMPARE(send("GET", QStringLiteral("/api/agents")).status, 200);
    }

    void plainHttpOnTheTlsPortGetsNoAnswer() {
        const QByteArray r =
            rawExchange(m_svc->port(), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 3000);
        QCOMPARE(rawStatus(r), 0);
        QVERIFY(!r.contains("<!doctype"));
        QCOMPARE(send("GET", QStringLiteral("/api/health")).status, 200); // still serving
    }

    void httpsIsTheOwnOrigin_data() {
        QTest::addColumn<QByteArray>("origin");
        QTest::addColumn<int>("status");
        QTest::newRow("own https origin") << QByteArray("OWN") << 201;
        QTest::newRow("http origin on a TLS port") << QByteArray("HTTP") << 403;
        QTest::newRow("foreign https origin") << QByteArray("https://evil.example") << 403;
    }

    void httpsIsTheOwnOrigin() {
        QFETCH(QByteArray, origin);
        QFETCH(int, status);
        static int n = 0;
        if (origin == "OWN")
            origin = ownOrigin();
        else if (origin == "HTTP")
            origin = "http://127.0.0.1:" + QByteArray::number(m_svc->port());
        const QByteArray body =
            QJsonDocument(QJsonObject{{QStringLiteral("name"), QStringLiteral("tls-%1").arg(++n)},
                                      {QStringLiteral("cwd"), m_svc->workDir()}})
                .toJson(QJsonDocument::Compact);
        const HttpResponse r = send("POST", QStringLiteral("/api/agents"), origin, body);
        QCOMPARE(r.status, status);
    }

    void webSocketOverWss() {
        QNetworkRequest request(QUrl(QStringLiteral("wss://127.0.0.1:%1/").arg(m_svc->port())));
        request.setRawHeader("Origin", ownOrigin());
        request.setRawHeader("Sec-WebSocket-Protocol", "auth-" + kToken);
        WsClient ws;
        ws.socket().setSslConfiguration(m_trust);
        QVERIFY(ws.open(request));
        QVERIFY(ws.waitFor(m::AgentsUpdate));
    }

    void agentsCallBackOnAPlainLoopbackListener() {
        const QUrl agentUrl(m_svc->app().agentUrl());
        QCOMPARE(agentUrl.scheme(), QStringLiteral("http"));
        QCOMPARE(agentUrl.host(), QStringLiteral("127.0.0.1"));
        QVERIFY(agentUrl.port() > 0 && agentUrl.port() != m_svc->port());
        HttpClient plain(kToken);
        QCOMPARE(plain.get(QUrl(agentUrl.toString() + QStringLiteral("/api/agents"))).status, 200);
        QCOMPARE(HttpClient().get(QUrl(agentUrl.toString() + QStringLiteral("/api/agents"))).status,
                 401);
    }

    void badFilesRefuseToStart_data() {
        QTest::addColumn<QString>("cert");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing cert") << QStringLiteral("$dir/none.pem") << QStringLiteral("$key")
                                      << QStringLiteral("cannot read --tls-cert");
        QTest::newRow("not a certificate") << QStringLiteral("$key") << QStringLiteral("$key")
                                           << QStringLiteral("holds no PEM certificate");
        QTest::newRow("not a key") << QStringLiteral("$cert") << QStringLiteral("$cert")
                                   << QStringLiteral("holds no unencrypted");
    }

    void badFilesRefuseToStart() {
        QFETCH(QString, cert);
        QFETCH(QString, key);
        QFETCH(QString, reason);
        for (QString *s : {&cert, &key}) {
            s->replace(QStringLiteral("$dir"), m_dir.path());
            s->replace(QStringLiteral("$cert"), m_cert);
            s->replace(QStringLiteral("$key"), m_key);
        }
        TestService svc([&](ServerConfig &c) {
            c.authToken = kToken;
            c.tlsCert = cert;
            c.tlsKey = key;
        });
        QVERIFY(!svc.start());
        QVERIFY2(svc.lastError().contains(reason), qPrintable(svc.lastError()));
    }

    void commandLine() {
        const QString home = m_dir.filePath(QStringLiteral("home"));
        ServiceProcess half;
        QCOMPARE(half.runToExit({QStringLiteral("--tls-cert"), m_cert}, hermeticEnv(home)), 2);
        QVERIFY2(half.stdErr().contains("--tls-cert and --tls-key go together"),
                 half.stdErr().constData());
        ServiceProcess bad;
        QCOMPARE(bad.runToExit({QStringLiteral("--tls-cert"), m_key, QStringLiteral("--tls-key"),
                                m_key, QStringLiteral("--data-dir"), home + QStringLiteral("/d")},
                               hermeticEnv(home)),
                 2);
        QVERIFY2(bad.stdErr().contains("holds no PEM certificate"), bad.stdErr().constData());
        ServiceProcess good;
        QProcessEnvironment env = hermeticEnv(home);
        env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromLatin1(kToken));
        QVERIFY(good.start({QStringLiteral("--tls-cert"), m_cert, QStringLiteral("--tls-key"),
                            m_key, QStringLiteral("--data-dir"), home + QStringLiteral("/d")},
                           env));
        QVERIFY(good.terminate());
    }

    void thePageWorksInChromiumOverTls() {
        Browser browser;
        QString error;
        QVERIFY2(browser.start(httpsUrl(QStringLiteral("/")),
                               {QStringLiteral("--ignore-certificate-errors")}, &error),
                 qPrintable(error));
        QVERIFY2(browser.run(QStringLiteral("open"),
                             QJsonObject{{QStringLiteral("path"), QStringLiteral("/")},
                                         {QStringLiteral("clearStorage"), true}}),
                 qPrintable(browser.lastError()));
        QVERIFY2(
            browser.run(QStringLiteral("type"),
                        QJsonObject{{QStringLiteral("css"), QStringLiteral("#token")},
                                    {QStringLiteral("text"), QString::fromLatin1(kToken + "\n")}}),
            qPrintable(browser.lastError()));
        // Signed in over https and live over wss: the agents list comes from agents_update.
        QJsonValue shown;
        QVERIFY2(browser.run(
                     QStringLiteral("wait_js"),
                     QJsonObject{{QStringLiteral("js"),
                                  QStringLiteral("return document.body.dataset.phase === 'ready' &&"
                                                 " location.protocol === 'https:' &&"
                                                 " document.querySelectorAll('#agent-list"
                                                 " li.agent').length")},
                                 {QStringLiteral("timeout"), 20}},
                     &shown),
                 qPrintable(browser.lastError()));
        QVERIFY(shown.toInt() >= 1);
        browser.quit();
    }
};

QTEST_GUILESS_MAIN(TestWebTls)
#include "tst_web_tls.moc"
