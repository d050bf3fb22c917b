// flotillad with --tls-cert/--tls-key (remote use): the page, REST and the WebSocket
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

#include <sys/stat.h>

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

    // An EC P-256 certificate (cert.pem, key.pem), or with `name` and `newkey` another one
    // (<name>-cert.pem, <name>-key.pem).
    bool makeCertificate(const QString &name = {},
                         const QStringList &newkey = {
                             QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                             QStringLiteral("ec_paramgen_curve:prime256v1")}) {
        const QString prefix = name.isEmpty() ? QString() : name + QLatin1Char('-');
        const QString cert = m_dir.filePath(prefix + QStringLiteral("cert.pem"));
        const QString key = m_dir.filePath(prefix + QStringLiteral("key.pem"));
        if (name.isEmpty()) {
            m_cert = cert;
            m_key = key;
        } else if (QFile::exists(cert)) {
            return true;
        }
        QProcess openssl;
        openssl.start(
            QStringLiteral("openssl"),
            QStringList{QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey")} +
                newkey +
                QStringList{QStringLiteral("-nodes"), QStringLiteral("-keyout"), key,
                            QStringLiteral("-out"), cert, QStringLiteral("-days"),
                            QStringLiteral("2"), QStringLiteral("-subj"),
                            QStringLiteral("/CN=localhost"), QStringLiteral("-addext"),
                            QStringLiteral("subjectAltName=DNS:localhost,IP:127.0.0.1")});
        return openssl.waitForFinished(30000) && openssl.exitCode() == 0;
    }

    // A copy of `from` named `name` in the test's directory, with `mode`.
    QString privateCopy(const QString &from, const char *name, int mode) {
        const QString to = m_dir.filePath(QLatin1String(name));
        QFile::remove(to);
        QFile::copy(from, to);
        ::chmod(QFile::encodeName(to).constData(), mode_t(mode));
        return to;
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

    // The agents' plain listener serves the routes an agent's token may call and nothing else:
    // not the page, not the WebSocket, not the rest of the API, whatever the token.
    void agentsCallBackOnAPlainLoopbackListener() {
        const QUrl agentUrl(m_svc->app().agentUrl());
        QCOMPARE(agentUrl.scheme(), QStringLiteral("http"));
        QCOMPARE(agentUrl.host(), QStringLiteral("127.0.0.1"));
        QVERIFY(agentUrl.port() > 0 && agentUrl.port() != m_svc->port());
        const QByteArray body =
            QJsonDocument(QJsonObject{{QStringLiteral("name"), QStringLiteral("caller")},
                                      {QStringLiteral("cwd"), m_svc->workDir()}})
                .toJson(QJsonDocument::Compact);
        const HttpResponse created = send("POST", QStringLiteral("/api/agents"), {}, body);
        QCOMPARE(created.status, 201);
        const QString id = created.object().value(QStringLiteral("id")).toString();
        auto at = [&](const QString &path) { return QUrl(agentUrl.toString() + path); };
        HttpClient plain(kToken);
        QCOMPARE(plain.get(at(QStringLiteral("/api/agents/") + id)).status, 200);
        QCOMPARE(HttpClient().get(at(QStringLiteral("/api/agents/") + id)).status, 401);
        for (const char *path : {"/api/agents", "/", "/api/health", "/api/secrets",
                                 "/api/permission-rules", "/assets/app.js"}) {
            const HttpResponse r = plain.get(at(QLatin1String(path)));
            QVERIFY2(r.status == 404 && r.body.contains("agents' own calls only"), path);
        }
        QCOMPARE(plain
                     .post(at(QStringLiteral("/api/exec")),
                           QJsonObject{{QStringLiteral("agentId"), id},
                                       {QStringLiteral("command"), QStringLiteral("true")}})
                     .status,
                 404);
        const QByteArray upgrade =
            rawExchange(quint16(agentUrl.port()),
                        "GET /ws?token=" + kToken +
                            " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
                            "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
                            "dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                        3000);
        QCOMPARE(rawStatus(upgrade), 404);
    }

    // TLS 1.2 offers only ECDHE with AEAD (Mozilla "intermediate"), TLS 1.3 as OpenSSL has it;
    // openssl s_client asking for a CBC or an RSA key-transport suite gets no handshake.
    void onlyForwardSecretAeadSuites_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("rsa");
        QTest::addColumn<bool>("accepted");
        const QString v12 = QStringLiteral("-tls1_2");
        QTest::newRow("ECDHE-ECDSA AES-GCM")
            << QStringList{v12, QStringLiteral("-cipher"),
                           QStringLiteral("ECDHE-ECDSA-AES128-GCM-SHA256")}
            << false << true;
        QTest::newRow("ECDHE-ECDSA ChaCha20")
            << QStringList{v12, QStringLiteral("-cipher"),
                           QStringLiteral("ECDHE-ECDSA-CHACHA20-POLY1305")}
            << false << true;
        QTest::newRow("TLS 1.3") << QStringList{QStringLiteral("-tls1_3")} << false << true;
        QTest::newRow("ECDHE-ECDSA AES-CBC")
            << QStringList{v12, QStringLiteral("-cipher"),
                           QStringLiteral("ECDHE-ECDSA-AES128-SHA256")}
            << false << false;
        QTest::newRow("ECDHE-ECDSA AES-CBC-SHA1")
            << QStringList{v12, QStringLiteral("-cipher"), QStringLiteral("ECDHE-ECDSA-AES256-SHA")}
            << false << false;
        QTest::newRow("RSA key transport GCM")
            << QStringList{v12, QStringLiteral("-cipher"), QStringLiteral("AES128-GCM-SHA256")}
            << true << false;
        QTest::newRow("RSA key transport CBC")
            << QStringList{v12, QStringLiteral("-cipher"), QStringLiteral("AES256-SHA256")} << true
            << false;
        QTest::newRow("DHE-RSA GCM") << QStringList{v12, QStringLiteral("-cipher"),
                                                    QStringLiteral("DHE-RSA-AES128-GCM-SHA256")}
                                     << true << false;
        QTest::newRow("ECDHE-RSA GCM") << QStringList{v12, QStringLiteral("-cipher"),
                                                      QStringLiteral("ECDHE-RSA-AES128-GCM-SHA256")}
                                       << true << true;
    }
    void onlyForwardSecretAeadSuites() {
        QFETCH(QStringList, args);
        QFETCH(bool, rsa);
        QFETCH(bool, accepted);
        quint16 port = m_svc->port();
        std::unique_ptr<TestService> rsaService;
        if (rsa) {
            QVERIFY2(makeCertificate(QStringLiteral("rsa"), {QStringLiteral("rsa:2048")}),
                     "openssl could not make an RSA certificate");
            rsaService = std::make_unique<TestService>([this](ServerConfig &c) {
                c.authToken = kToken;
                c.tlsCert = m_dir.filePath(QStringLiteral("rsa-cert.pem"));
                c.tlsKey = m_dir.filePath(QStringLiteral("rsa-key.pem"));
            });
            QVERIFY2(rsaService->start(), qPrintable(rsaService->lastError()));
            port = rsaService->port();
        }
        QProcess client;
        client.start(QStringLiteral("openssl"),
                     QStringList{QStringLiteral("s_client"), QStringLiteral("-connect"),
                                 QStringLiteral("127.0.0.1:%1").arg(port)} +
                         args);
        client.closeWriteChannel();
        // The service runs in this thread: spin the loop while the client handshakes.
        QVERIFY(QTest::qWaitFor([&] { return client.state() == QProcess::NotRunning; }, 20000));
        const QByteArray out = client.readAllStandardOutput() + client.readAllStandardError();
        QCOMPARE(client.exitCode() == 0 && !out.contains("Cipher is (NONE)"), accepted);
    }

    void badFilesRefuseToStart_data() {
        QTest::addColumn<QString>("cert");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing cert") << QStringLiteral("$dir/none.pem") << QStringLiteral("$key")
                                      << QStringLiteral("cannot read --tls-cert");
        QTest::newRow("not a certificate") << QStringLiteral("$key") << QStringLiteral("$key")
                                           << QStringLiteral("holds no PEM certificate");
        QTest::newRow("not a key") << QStringLiteral("$cert") << QStringLiteral("$certAsKey")
                                   << QStringLiteral("holds no unencrypted");
        QTest::newRow("key readable by others")
            << QStringLiteral("$cert") << QStringLiteral("$openKey")
            << QStringLiteral("can be read by other users (mode 644)");
    }

    void badFilesRefuseToStart() {
        QFETCH(QString, cert);
        QFETCH(QString, key);
        QFETCH(QString, reason);
        for (QString *s : {&cert, &key}) {
            s->replace(QStringLiteral("$dir"), m_dir.path());
            s->replace(QStringLiteral("$certAsKey"), privateCopy(m_cert, "cert-as-key.pem", 0600));
            s->replace(QStringLiteral("$openKey"), privateCopy(m_key, "open-key.pem", 0644));
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
