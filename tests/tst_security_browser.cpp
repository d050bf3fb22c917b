// What a web page in the user's browser can make flotillad do (docs/security.md): each
// attack as a browser sends it, on a raw socket, against the default configuration (no token,
// loopback). Every refused request must leave no trace: the command it carries would create a
// marker file, and a legitimate command run afterwards proves the refused one would have run by
// then. The allowed paths (curl-like clients, --allow-host, --allow-origin with CORS) still work.

#include "protocol/WireNames.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include "support/WsTestKit.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {

namespace c = wire::code;

// One request as a browser would write it. "PORT" and "MARKER" are filled in by the test.
QByteArray request(const QByteArray &method, const QByteArray &path, const QByteArray &headers,
                   const QByteArray &body = {}) {
    QByteArray r = method + ' ' + path + " HTTP/1.1\r\n" + headers;
    if (!body.isEmpty())
        r += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    return r + "\r\n" + body;
}

QByteArray headerOf(const QByteArray &response, const QByteArray &name) {
    const QByteArray head = response.left(response.indexOf("\r\n\r\n"));
    for (const QByteArray &line : head.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == name.toLower())
            return line.mid(colon + 1).trimmed();
    }
    return {};
}

bool hasCorsGrant(const QByteArray &response) {
    return response.toLower().contains("\r\naccess-control-allow-");
}

} // namespace

class TestSecurityBrowser : public QObject {
    Q_OBJECT

    std::unique_ptr<TestService> m_svc;
    QString m_agentId;
    int m_probe = 0;

    // The service as installed by a user who never read the docs: no token, loopback only.
    bool startService(const std::function<void(ServerConfig &)> &tweak = {}) {
        m_svc = std::make_unique<TestService>(tweak);
        if (!m_svc->start())
            return false;
        HttpClient http(m_svc->config().authToken);
        const HttpResponse r = http.post(
            m_svc->url(QStringLiteral("/api/agents")),
            {{QStringLiteral("name"), QStringLiteral("victim")}, {k::Cwd, m_svc->workDir()}});
        m_agentId = r.object().value(k::Id).toString();
        return r.status == 201;
    }

    QString marker(const QString &name) const {
        return m_svc->workDir() + QStringLiteral("/") + name;
    }
    QByteArray fill(QByteArray bytes, const QString &markerPath) const {
        bytes.replace("PORT", QByteArray::number(m_svc->port()));
        bytes.replace("MARKER", QFile::encodeName(markerPath));
        bytes.replace("AGENT", m_agentId.toUtf8());
        // The placeholders changed the body's size: its Content-Length follows.
        const qsizetype end = bytes.indexOf("\r\n\r\n");
        const qsizetype at = bytes.indexOf("Content-Length: ");
        if (end > 0 && at > 0 && at < end) {
            const qsizetype eol = bytes.indexOf("\r\n", at);
            bytes.replace(
                at, eol - at,
                QByteArray("Content-Length: " + QByteArray::number(bytes.size() - end - 4)));
        }
        return bytes;
    }
    // A legitimate command, run after a refused one: once it has finished, the refused one would
    // have finished too (one event loop, requests handled in order).
    void runLegitimateCommand() {
        const QString probe = marker(QStringLiteral("probe-%1").arg(++m_probe));
        HttpClient http(m_svc->config().authToken);
        const HttpResponse r =
            http.post(m_svc->url(QStringLiteral("/api/exec")),
                      {{k::AgentId, m_agentId},
                       {QStringLiteral("command"), QStringLiteral("touch '%1'").arg(probe)}});
        QCOMPARE(r.status, 200);
        QVERIFY(QFile::exists(probe));
    }
    int agentCount() {
        HttpClient http(m_svc->config().authToken);
        return int(http.get(m_svc->url(QStringLiteral("/api/agents"))).array().size());
    }

private Q_SLOTS:
    void cleanup() { m_svc.reset(); }

    void browserAttacksRunNothing_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QByteArray exec = R"({"agentId":"AGENT","command":"touch MARKER"})";
        const QByteArray agent = R"({"name":"MARKER","cwd":"/tmp"})";
        const QByteArray host = "Host: 127.0.0.1:PORT\r\n";
        const QByteArray evil = "Origin: http://evil.example\r\n";
        const QByteArray cross = "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\n";
        const QByteArray text = "Content-Type: text/plain;charset=UTF-8\r\n";
        const QByteArray form = "Content-Type: application/x-www-form-urlencoded\r\n";
        const QByteArray json = "Content-Type: application/json\r\n";
        const QString origin = c::ForbiddenOrigin, media = c::UnsupportedMediaType,
                      hostCode = c::ForbiddenHost;
        auto row = [](const char *name, const QByteArray &bytes, int status, const QString &code) {
            QTest::newRow(name) << bytes << status << code;
        };
        // fetch(..., {method: "POST", mode: "no-cors", body}) from another site.
        row("exec text/plain cross-origin",
            request("POST", "/api/exec", host + evil + cross + text, exec), 403, origin);
        row("exec form cross-origin",
            request("POST", "/api/exec", host + evil + cross + form, exec), 403, origin);
        // Only sent after a preflight grant, which never comes; sent anyway.
        row("exec json cross-origin",
            request("POST", "/api/exec", host + evil + cross + json, exec), 403, origin);
        row("exec cross-site, no Origin", request("POST", "/api/exec", host + cross + json, exec),
            403, origin);
        row("exec origin null (sandboxed frame)",
            request("POST", "/api/exec", host + "Origin: null\r\n" + text, exec), 403, origin);
        row("exec other local port",
            request("POST", "/api/exec", host + "Origin: http://localhost:3000\r\n" + json, exec),
            403, origin);
        // Without Origin (an old browser, a <form> in a frame): the body type alone refuses it.
        row("exec text/plain", request("POST", "/api/exec", host + text, exec), 415, media);
        row("exec form", request("POST", "/api/exec", host + form, exec), 415, media);
        row("exec multipart",
            request("POST", "/api/exec", host + "Content-Type: multipart/form-data; boundary=x\r\n",
                    exec),
            415, media);
        row("exec no content type", request("POST", "/api/exec", host, exec), 415, media);
        row("agents text/plain cross-origin",
            request("POST", "/api/agents", host + evil + cross + text, agent), 403, origin);
        row("agents form cross-origin",
            request("POST", "/api/agents", host + evil + cross + form, agent), 403, origin);
        row("agents json cross-origin",
            request("POST", "/api/agents", host + evil + cross + json, agent), 403, origin);
        row("agents text/plain", request("POST", "/api/agents", host + text, agent), 415, media);
        // DNS rebinding: the page's own name now points at 127.0.0.1; same-origin to the browser.
        const QByteArray rebound = "Host: evil.example:PORT\r\n";
        row("rebinding GET", request("GET", "/api/agents", rebound), 403, hostCode);
        row("rebinding POST exec",
            request("POST", "/api/exec", rebound + "Origin: http://evil.example:PORT\r\n" + json,
                    exec),
            403, hostCode);
        row("rebinding POST agents", request("POST", "/api/agents", rebound + json, agent), 403,
            hostCode);
        row("rebinding lookalike",
            request("GET", "/api/agents", "Host: localhost.evil.example\r\n"), 403, hostCode);
        row("rebinding IP-like name",
            request("GET", "/api/agents", "Host: 127.0.0.1.nip.io:PORT\r\n"), 403, hostCode);
        row("host with userinfo", request("GET", "/api/agents", "Host: evil@127.0.0.1\r\n"), 403,
            hostCode);
    }

    void browserAttacksRunNothing() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        QFETCH(QString, code);
        QVERIFY2(startService(), qPrintable(m_svc->lastError()));
        const QString target = marker(QStringLiteral("attack-ran"));
        const QByteArray response = rawExchange(m_svc->port(), fill(bytes, target));
        QVERIFY2(rawStatus(response) == status, response.constData());
        const QJsonObject error = QJsonDocument::fromJson(rawBody(response)).object();
        QCOMPARE(error.value(k::Code).toString(), code);
        QVERIFY(!error.value(QStringLiteral("error")).toString().isEmpty());
        QVERIFY2(!hasCorsGrant(response), response.constData());
        runLegitimateCommand();
        QVERIFY2(!QFile::exists(target), "the refused request ran its command");
        QCOMPARE(agentCount(), 1); // no agent was created either
    }

    // Host is checked before auth: a rebinding page learns nothing, not even that a token is
    // needed.
    void foreignHostIsRefusedBeforeAuth() {
        QVERIFY2(startService([](ServerConfig &cfg) { cfg.authToken = "s3cret"; }),
                 qPrintable(m_svc->lastError()));
        const QByteArray response =
            rawExchange(m_svc->port(), request("GET", "/api/agents", "Host: evil.example\r\n"));
        QVERIFY2(rawStatus(response) == 403, response.constData());
        const QByteArray health =
            rawExchange(m_svc->port(), request("GET", "/api/health", "Host: evil.example\r\n"));
        QVERIFY2(rawStatus(health) == 403, health.constData());
    }

    void preflightGetsNoGrant_data() {
        QTest::addColumn<QByteArray>("headers");
        QTest::addColumn<int>("status");
        const QByteArray ask = "Access-Control-Request-Method: POST\r\n"
                               "Access-Control-Request-Headers: content-type\r\n";
        QTest::newRow("foreign origin")
            << QByteArray("Host: 127.0.0.1:PORT\r\nOrigin: http://evil.example\r\n" + ask) << 403;
        QTest::newRow("rebound host")
            << QByteArray("Host: evil.example:PORT\r\nOrigin: http://evil.example:PORT\r\n" + ask)
            << 403;
        // Our own origin needs no CORS, so it is not granted any: the route answers (405).
        QTest::newRow("own origin")
            << QByteArray("Host: 127.0.0.1:PORT\r\nOrigin: http://127.0.0.1:PORT\r\n" + ask) << 405;
    }

    void preflightGetsNoGrant() {
        QFETCH(QByteArray, headers);
        QFETCH(int, status);
        QVERIFY2(startService(), qPrintable(m_svc->lastError()));
        const QByteArray response = rawExchange(
            m_svc->port(),
            fill(request("OPTIONS", "/api/exec", headers + "Connection: close\r\n"), {}));
        QVERIFY2(rawStatus(response) == status, response.constData());
        QVERIFY2(!hasCorsGrant(response), response.constData());
    }

    void webSocketWithForeignHostIsRefused() {
        QVERIFY2(startService(), qPrintable(m_svc->lastError()));
        QByteArray hs = handshake("/ws");
        hs.replace("Host: 127.0.0.1", "Host: evil.example");
        const QByteArray response = rawExchange(m_svc->port(), hs);
        QVERIFY2(rawStatus(response) == 403, response.constData());
        QVERIFY(!isSwitch(response));
        QVERIFY(response.contains(c::ForbiddenHost.data()));
    }

    // Non-browser clients send no Origin: they keep working, whatever the JSON media type's case
    // or parameters.
    void curlLikeClientsWork_data() {
        QTest::addColumn<QByteArray>("contentType");
        QTest::newRow("plain") << QByteArray("application/json");
        QTest::newRow("charset") << QByteArray("application/json; charset=utf-8");
        QTest::newRow("case") << QByteArray("Application/JSON");
    }

    void curlLikeClientsWork() {
        QFETCH(QByteArray, contentType);
        QVERIFY2(startService(), qPrintable(m_svc->lastError()));
        const QString target = marker(QStringLiteral("curl-ran"));
        const QByteArray body = fill(R"({"agentId":"AGENT","command":"touch MARKER"})", target);
        const QByteArray response = rawExchange(
            m_svc->port(), fill(request("POST", "/api/exec",
                                        "Host: localhost:PORT\r\nContent-Type: " + contentType +
                                            "\r\n"
                                            "Connection: close\r\n",
                                        body),
                                target));
        QVERIFY2(rawStatus(response) == 200, response.constData());
        QVERIFY(QFile::exists(target));
        // IPv6 loopback literal and a body-less POST (no Content-Type needed).
        QCOMPARE(rawStatus(rawExchange(m_svc->port(),
                                       fill(request("GET", "/api/health",
                                                    "Host: [::1]:PORT\r\nConnection: close\r\n"),
                                            {}))),
                 200);
    }

    void allowHostAcceptsTheName() {
        QVERIFY2(
            startService([](ServerConfig &cfg) {
                cfg.http.allowedHosts = {QStringLiteral("flotilla.lan"), QStringLiteral("fd00::7")};
            }),
            qPrintable(m_svc->lastError()));
        auto status = [this](const QByteArray &host) {
            return rawStatus(
                rawExchange(m_svc->port(), request("GET", "/api/agents",
                                                   "Host: " + host + "\r\nConnection: close\r\n")));
        };
        QCOMPARE(status("flotilla.lan:8443"), 200);
        QCOMPARE(status("FLOTILLA.LAN"), 200);
        QCOMPARE(status("[fd00::7]:5174"), 200);
        QCOMPARE(status("other.lan"), 403);
        QCOMPARE(status("flotilla.lan.evil.example"), 403);
        // Its own origin (the name it was reached by) may call, as the page it serves would.
        QCOMPARE(rawStatus(rawExchange(
                     m_svc->port(),
                     request("GET", "/api/agents",
                             "Host: flotilla.lan:8443\r\nOrigin: http://flotilla.lan:8443\r\n"
                             "Connection: close\r\n"))),
                 200);
        QByteArray hs = handshake("/ws");
        hs.replace("Host: 127.0.0.1", "Host: flotilla.lan:8443");
        QVERIFY(isSwitch(upgrade(m_svc->port(), hs)));
    }

    void allowOriginGetsCors() {
        QVERIFY2(startService([](ServerConfig &cfg) {
                     cfg.http.allowedOrigins = {QStringLiteral("https://app.example")};
                 }),
                 qPrintable(m_svc->lastError()));
        const QByteArray headers = "Host: 127.0.0.1:PORT\r\nOrigin: https://app.example\r\n";
        const QByteArray preflight = rawExchange(
            m_svc->port(), fill(request("OPTIONS", "/api/exec",
                                        headers + "Access-Control-Request-Method: POST\r\n"
                                                  "Access-Control-Request-Headers: content-type, "
                                                  "x-auth-token\r\nConnection: close\r\n"),
                                {}));
        QVERIFY2(rawStatus(preflight) == 204, preflight.constData());
        QCOMPARE(headerOf(preflight, "Access-Control-Allow-Origin"),
                 QByteArray("https://app.example"));
        QVERIFY(headerOf(preflight, "Access-Control-Allow-Methods").contains("POST"));
        QVERIFY(headerOf(preflight, "Access-Control-Allow-Headers").contains("X-Auth-Token"));

        const QString target = marker(QStringLiteral("allowed-ran"));
        const QByteArray response = rawExchange(
            m_svc->port(),
            fill(request("POST", "/api/exec",
                         headers + "Content-Type: application/json\r\nConnection: close\r\n",
                         R"({"agentId":"AGENT","command":"touch MARKER"})"),
                 target));
        QVERIFY2(rawStatus(response) == 200, response.constData());
        QCOMPARE(headerOf(response, "Access-Control-Allow-Origin"),
                 QByteArray("https://app.example"));
        QVERIFY(QFile::exists(target));

        // Another origin still gets nothing, and a WebSocket from the listed one is accepted.
        const QByteArray other = rawExchange(
            m_svc->port(), fill(request("GET", "/api/agents",
                                        "Host: 127.0.0.1:PORT\r\nOrigin: https://app2.example\r\n"),
                                {}));
        QVERIFY2(rawStatus(other) == 403 && !hasCorsGrant(other), other.constData());
        QVERIFY(
            isSwitch(upgrade(m_svc->port(), handshake("/ws", "Origin: https://app.example\r\n"))));
    }
};

QTEST_GUILESS_MAIN(TestSecurityBrowser)
#include "tst_security_browser.moc"
