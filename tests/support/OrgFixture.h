#pragma once
// What the REST suites of organization and shaping (tst_organization, tst_config_transfer*, the
// shaping, saved-prompt and 3D-model suites) share: the real service,
// a REST client and a WebSocket client, plus short helpers for agents and areas. Header-only and
// without Q_OBJECT, so it needs no entry in the support library.

#include "protocol/OrganizationNames.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include "support/WsClient.h"

#include <QJsonArray>
#include <QTest>

#include <memory>

namespace flotilla::test {

inline QByteArray compactJson(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

class OrgFixture final {
public:
    std::unique_ptr<TestService> svc;
    std::unique_ptr<HttpClient> http;
    std::unique_ptr<WsClient> ws;

    bool start() {
        svc = std::make_unique<TestService>();
        http = std::make_unique<HttpClient>();
        return svc->start() && connectWs();
    }
    // Stops the service and starts it again on the same data dir (WebSocket reconnected).
    bool restart() {
        ws.reset();
        svc->stop();
        return svc->start() && connectWs();
    }
    void reset() {
        ws.reset();
        http.reset();
        svc.reset();
    }

    QUrl url(const QString &path) const { return svc->url(path); }
    HttpResponse get(const QString &path) { return http->get(url(path)); }
    HttpResponse del(const QString &path) { return http->del(url(path)); }
    HttpResponse post(const QString &path, const QJsonObject &body) {
        return http->post(url(path), body);
    }
    HttpResponse postRaw(const QString &path, const QByteArray &body) {
        return http->send("POST", url(path), body);
    }

    QString createAgent(const QString &name, const QString &cwd = {}) {
        const HttpResponse r =
            post(QStringLiteral("/api/agents"),
                 QJsonObject{{QStringLiteral("name"), name},
                             {QStringLiteral("cwd"), cwd.isEmpty() ? svc->workDir() : cwd}});
        if (r.status != 201)
            qWarning() << "create agent failed" << r.status << r.body;
        return r.object().value(QStringLiteral("id")).toString();
    }
    QJsonObject createArea(const QString &name, const QJsonValue &color = QJsonValue()) {
        QJsonObject body{{QStringLiteral("name"), name}};
        if (!color.isNull())
            body.insert(QStringLiteral("color"), color);
        const HttpResponse r = post(QStringLiteral("/api/areas"), body);
        if (r.status != 201)
            qWarning() << "create area failed" << r.status << r.body;
        return r.object();
    }
    QJsonObject agent(const QString &id) {
        return get(QStringLiteral("/api/agents/") + id).object();
    }
    QJsonArray agents() { return get(QStringLiteral("/api/agents")).array(); }
    QJsonArray areas() { return get(QStringLiteral("/api/areas")).array(); }
    QString prompt() {
        return get(QStringLiteral("/api/agents/system-settings/prompt"))
            .object()
            .value(QStringLiteral("prompt"))
            .toString();
    }

    // Every event the service broadcast before this call has reached `ws` when it returns true:
    // the hub answers a ping on the same socket, after what it already queued.
    bool barrier() {
        const int before = ws->countOf(QStringLiteral("pong"));
        ws->sendJson(QJsonObject{{QStringLiteral("type"), QStringLiteral("ping")}});
        return ws->waitFor(QStringLiteral("pong"), before + 1);
    }
    // Payloads of the events of `type` received so far.
    QList<QJsonObject> payloads(QLatin1String type) const {
        QList<QJsonObject> out;
        const QList<QJsonObject> all = ws->ofType(type);
        for (const QJsonObject &m : all)
            out.append(m.value(QStringLiteral("payload")).toObject());
        return out;
    }

private:
    bool connectWs() {
        ws = std::make_unique<WsClient>();
        return ws->open(svc->wsUrl()) && ws->waitFor(QStringLiteral("work_plans_update"));
    }
};

// Checks an error answer: status, JSON body with the machine code and a message.
inline void expectError(const HttpResponse &r, int status, const QString &code) {
    QVERIFY2(r.status == status, qPrintable(QStringLiteral("status %1, expected %2: %3")
                                                .arg(r.status)
                                                .arg(status)
                                                .arg(QString::fromUtf8(r.body))));
    QCOMPARE(r.header("content-type"), QByteArray("application/json"));
    QCOMPARE(r.object().value(QStringLiteral("code")).toString(), code);
    QVERIFY(!r.object().value(QStringLiteral("error")).toString().isEmpty());
}

} // namespace flotilla::test
