#pragma once
// What the building suites (tst_buildings: routes, refusals, output; tst_building_runs: crashes,
// restarts, process groups, shutdown) share: the real service in-process with the supervisor's
// delays shortened, a REST client, a WebSocket client, and helpers for one building's state,
// events and logs. A suite's class inherits it, so its tests call the helpers unqualified.
// Header-only and without Q_OBJECT, so it needs no entry in the support library.

#include "buildings/BuildingSupervisor.h"
#include "protocol/ShapingNames.h"
#include "support/ExecFixture.h"

#include <QJsonArray>
#include <QTest>

#include <functional>
#include <initializer_list>
#include <memory>

namespace flotilla::test {

class BuildingFixture {
protected:
    static QString str(const QJsonObject &o, QLatin1String key) { return o.value(key).toString(); }
    static QJsonArray argv(std::initializer_list<const char *> args) {
        QJsonArray a;
        for (const char *arg : args)
            a.append(QString::fromUtf8(arg));
        return a;
    }
    // The supervisor's delays, shortened so that a crash loop or a stop's grace takes a moment.
    static BuildingTiming fastTiming() {
        BuildingTiming t;
        t.stopGraceMs = 1500;
        t.restartBaseMs = 100;
        t.restartMaxMs = 400;
        t.settleMs = 100;
        t.shutdownGraceMs = 1000;
        return t;
    }

    std::unique_ptr<TestService> svc;
    std::unique_ptr<HttpClient> http;
    std::unique_ptr<WsClient> ws;

    bool boot(const std::function<void(ServerConfig &)> &tweak = {}) {
        svc = std::make_unique<TestService>(tweak);
        http = std::make_unique<HttpClient>();
        return svc->start() && connected();
    }
    bool connected() {
        svc->app().buildings().setTiming(fastTiming());
        ws = std::make_unique<WsClient>();
        return ws->open(svc->wsUrl()) && ws->waitFor(QStringLiteral("work_plans_update"));
    }
    QUrl url(const QString &path) const { return svc->url(path); }
    HttpResponse get(const QString &path) { return http->get(url(path)); }
    HttpResponse post(const QString &path, const QJsonObject &body = {}) {
        return http->post(url(path), body);
    }
    HttpResponse patch(const QString &path, const QJsonObject &body) {
        return http->patch(url(path), body);
    }
    HttpResponse del(const QString &path) { return http->del(url(path)); }
    static QString at(const QString &id, const char *action = nullptr) {
        return QStringLiteral("/api/buildings/") + id +
               (action ? QLatin1Char('/') + QLatin1String(action) : QString());
    }

    QJsonObject body(const QString &name, const QJsonArray &command,
                     const QJsonObject &extra = {}) const {
        QJsonObject b = extra;
        b.insert(wire::key::Name_, name);
        b.insert(wire::shaping::key::Command, command);
        if (!b.contains(wire::key::AgentId) && !b.contains(wire::key::Cwd))
            b.insert(wire::key::Cwd, svc->workDir());
        return b;
    }
    QString create(const QString &name, const QJsonArray &command, const QJsonObject &extra = {}) {
        const HttpResponse r = post(QStringLiteral("/api/buildings"), body(name, command, extra));
        return r.status == 201 ? str(r.object(), wire::key::Id) : QString();
    }
    QJsonObject building(const QString &id) { return get(at(id)).object(); }

    // Payloads of one building's events, in arrival order.
    QList<QJsonObject> events(const QString &type, const QString &id) const {
        QList<QJsonObject> out;
        for (const QJsonObject &m : ws->messages()) {
            const QJsonObject p = m.value(QLatin1String("payload")).toObject();
            if (m.value(QLatin1String("type")).toString() == type &&
                (str(p, wire::key::Id) == id || str(p, wire::shaping::key::BuildingId) == id))
                out.append(p);
        }
        return out;
    }
    QStringList states(const QString &id) const {
        QStringList out;
        for (const QJsonObject &p : events(wire::shaping::msg::BuildingUpdated, id))
            out.append(str(p, wire::shaping::key::State));
        return out;
    }
    QString streamed(const QString &id, QLatin1String stream) const {
        QString all;
        for (const QJsonObject &p : events(wire::shaping::msg::BuildingOutput, id)) {
            if (str(p, wire::shaping::key::Stream) == stream)
                all += str(p, wire::key::Text);
        }
        return all;
    }
    bool waitState(const QString &id, QLatin1String state, int timeoutMs = 5000) {
        return QTest::qWaitFor(
            [&] { return str(building(id), wire::shaping::key::State) == state; }, timeoutMs);
    }
    QStringList logLines(const QString &id, int tail = 1000, bool *truncated = nullptr) {
        const QJsonObject r = get(at(id, "logs") + QStringLiteral("?tail=%1").arg(tail)).object();
        if (truncated)
            *truncated = r.value(wire::shaping::key::Truncated).toBool();
        QStringList out;
        for (const QJsonValue &l : r.value(wire::shaping::key::Lines).toArray())
            out.append(str(l.toObject(), wire::key::Text));
        return out;
    }
};

} // namespace flotilla::test
