// Areas, bulk delete and move-area, focus-agent and the activity log, against the real service on
// a free port: every route, every refusal, the events, and what survives a restart.

#include "domain/AgentRegistry.h"
#include "organization/ActivityLog.h"
#include "support/OrgFixture.h"

#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>

using namespace flotilla;
using namespace flotilla::test;

namespace om = wire::org::msg;
namespace m = wire::msg;

namespace {
const QString kName = QStringLiteral("name");
const QString kAreaId = QStringLiteral("areaId");
const QString kAgentIds = QStringLiteral("agentIds");

QJsonArray ids(std::initializer_list<QString> list) {
    QJsonArray a;
    for (const QString &s : list)
        a.append(s);
    return a;
}

// Reads an agent's stored row with a connection of our own: what is on disk, not in memory.
QJsonObject storedAgent(const QString &dbPath, const QString &id) {
    QJsonObject out;
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("probe"));
        db.setDatabaseName(dbPath);
        if (db.open()) {
            QSqlQuery q(db);
            q.prepare(QStringLiteral("SELECT data FROM agents WHERE id = ?"));
            q.addBindValue(id);
            if (q.exec() && q.next())
                out = QJsonDocument::fromJson(q.value(0).toByteArray()).object();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("probe"));
    return out;
}
} // namespace

class TestOrganization final : public QObject {
    Q_OBJECT

    OrgFixture f;

    QString dbPath() const { return f.svc->dataDir() + QStringLiteral("/data/flotilla.db"); }

private Q_SLOTS:
    void init() { QVERIFY2(f.start(), qPrintable(f.svc->lastError())); }
    void cleanup() { f.reset(); }

    void areasCrud() {
        const HttpResponse created =
            f.post(QStringLiteral("/api/areas"),
                   QJsonObject{{kName, QStringLiteral("  Backend ")},
                               {QStringLiteral("color"), QStringLiteral("#A0B1C2")}});
        QCOMPARE(created.status, 201);
        const QJsonObject area = created.object();
        const QString id = area.value(QStringLiteral("id")).toString();
        QVERIFY(!id.isEmpty());
        QCOMPARE(area.value(kName).toString(), QStringLiteral("Backend"));
        QCOMPARE(area.value(QStringLiteral("color")).toString(), QStringLiteral("#a0b1c2"));
        QVERIFY(area.value(QStringLiteral("createdAt")).toInteger() > 1'600'000'000'000);
        QCOMPARE(created.header("location"), QByteArray("/api/areas/") + id.toUtf8());

        const QJsonObject plain = f.createArea(QStringLiteral("Frontend"));
        QVERIFY(plain.value(QStringLiteral("color")).isNull());
        QCOMPARE(f.areas(), (QJsonArray{area, plain}));
        QCOMPARE(f.get(QStringLiteral("/api/areas/") + id).object(), area);
        QVERIFY(f.ws->waitFor(om::AreaCreated, 2));
        QCOMPARE(f.payloads(om::AreaCreated).first(), area);

        QCOMPARE(f.del(QStringLiteral("/api/areas/") + id).status, 204);
        QVERIFY(f.ws->waitFor(om::AreaDeleted));
        QCOMPARE(f.payloads(om::AreaDeleted).first(),
                 (QJsonObject{{QStringLiteral("id"), id}, {kName, QStringLiteral("Backend")}}));
        QCOMPARE(f.areas(), (QJsonArray{plain}));
        expectError(f.get(QStringLiteral("/api/areas/") + id), 404, QStringLiteral("not_found"));
        expectError(f.del(QStringLiteral("/api/areas/") + id), 404, QStringLiteral("not_found"));
    }

    void areaRefusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("malformed") << QByteArray("{\"name\":") << 400 << QStringLiteral("bad_json");
        QTest::newRow("empty body") << QByteArray() << 400 << QStringLiteral("bad_json");
        QTest::newRow("array") << QByteArray("[]") << 400 << QStringLiteral("bad_json");
        QTest::newRow("no name") << QByteArray("{}") << 400 << QStringLiteral("missing_field");
        QTest::newRow("name not string")
            << QByteArray("{\"name\":3}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("blank name")
            << QByteArray("{\"name\":\"  \"}") << 422 << QStringLiteral("invalid_value");
        QTest::newRow("long name") << (QByteArray("{\"name\":\"") + QByteArray(101, 'x') + "\"}")
                                   << 422 << QStringLiteral("invalid_value");
        QTest::newRow("color not string")
            << QByteArray("{\"name\":\"A\",\"color\":1}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("bad color") << QByteArray("{\"name\":\"A\",\"color\":\"red\"}") << 422
                                   << QStringLiteral("invalid_value");
        QTest::newRow("unknown field") << QByteArray("{\"name\":\"A\",\"icon\":\"x\"}") << 422
                                       << QStringLiteral("unknown_field");
        QTest::newRow("duplicate name")
            << QByteArray("{\"name\":\"existing\"}") << 409 << QStringLiteral("conflict");
    }
    void areaRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        const QJsonObject existing = f.createArea(QStringLiteral("Existing"));
        expectError(f.postRaw(QStringLiteral("/api/areas"), body), status, code);
        QCOMPARE(f.areas(), (QJsonArray{existing}));
    }

    void areasPersistAcrossRestart() {
        const QJsonObject a = f.createArea(QStringLiteral("Alpha"), QStringLiteral("#112233"));
        const QJsonObject b = f.createArea(QStringLiteral("Beta"));
        const QString agent = f.createAgent(QStringLiteral("worker"));
        QCOMPARE(
            f.post(QStringLiteral("/api/agents/bulk/move-area"),
                   QJsonObject{{kAgentIds, ids({agent})}, {kAreaId, a.value(QStringLiteral("id"))}})
                .status,
            200);
        QVERIFY(f.restart());
        QCOMPARE(f.areas(), (QJsonArray{a, b}));
        QCOMPARE(f.agent(agent).value(kAreaId), a.value(QStringLiteral("id")));
        // Names stay unique after a restart, too.
        expectError(
            f.post(QStringLiteral("/api/areas"), QJsonObject{{kName, QStringLiteral("ALPHA")}}),
            409, QStringLiteral("conflict"));
    }

    void deleteAreaUnassignsItsAgents() {
        const QString area =
            f.createArea(QStringLiteral("Doomed")).value(QStringLiteral("id")).toString();
        const QString other =
            f.createArea(QStringLiteral("Kept")).value(QStringLiteral("id")).toString();
        const QString a1 = f.createAgent(QStringLiteral("a1"));
        const QString a2 = f.createAgent(QStringLiteral("a2"));
        const QString a3 = f.createAgent(QStringLiteral("a3"));
        const QString move = QStringLiteral("/api/agents/bulk/move-area");
        QCOMPARE(f.post(move, QJsonObject{{kAgentIds, ids({a1, a2})}, {kAreaId, area}}).status,
                 200);
        QCOMPARE(f.post(move, QJsonObject{{kAgentIds, ids({a3})}, {kAreaId, other}}).status, 200);
        QVERIFY(f.barrier());
        f.ws->clear();

        QCOMPARE(f.del(QStringLiteral("/api/areas/") + area).status, 204);
        QVERIFY(f.barrier());
        const QList<QJsonObject> updates = f.payloads(m::AgentUpdated);
        QCOMPARE(updates.size(), 2);
        for (const QJsonObject &u : updates) {
            QVERIFY(u.value(QStringLiteral("id")) == a1 || u.value(QStringLiteral("id")) == a2);
            QVERIFY(u.contains(kAreaId) && u.value(kAreaId).isNull());
        }
        // The agents leave the area (agent_updated, areaId null) before area_deleted goes out.
        QStringList types;
        for (const QJsonObject &msg : f.ws->messages())
            types.append(msg.value(QStringLiteral("type")).toString());
        QVERIFY(types.lastIndexOf(QString(m::AgentUpdated)) <
                types.indexOf(QString(om::AreaDeleted)));
        QVERIFY(storedAgent(dbPath(), a1).value(kAreaId).isNull());
        QVERIFY(f.restart());
        QVERIFY(f.agent(a1).value(kAreaId).isNull());
        QVERIFY(f.agent(a2).value(kAreaId).isNull());
        QCOMPARE(f.agent(a3).value(kAreaId).toString(), other);
    }

    void danglingAreaIdClearedAtStart() {
        const QString area =
            f.createArea(QStringLiteral("Gone")).value(QStringLiteral("id")).toString();
        const QString agent = f.createAgent(QStringLiteral("orphan"));
        QCOMPARE(f.post(QStringLiteral("/api/agents/bulk/move-area"),
                        QJsonObject{{kAgentIds, ids({agent})}, {kAreaId, area}})
                     .status,
                 200);
        f.ws.reset();
        f.svc->stop();
        {
            // The service died between "agents left" and "area deleted" the other way round.
            QSqlDatabase db =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("surgery"));
            db.setDatabaseName(dbPath());
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("DELETE FROM areas")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("surgery"));
        QVERIFY(f.svc->start());
        QVERIFY(f.agent(agent).value(kAreaId).isNull());
        QVERIFY(storedAgent(dbPath(), agent).value(kAreaId).isNull());
    }

    void bulkDeleteMixedIds() {
        const QString a = f.createAgent(QStringLiteral("a"));
        const QString b = f.createAgent(QStringLiteral("b"));
        const QString c = f.createAgent(QStringLiteral("c"));
        const HttpResponse r =
            f.post(QStringLiteral("/api/agents/bulk/delete"),
                   QJsonObject{{kAgentIds, ids({a, QStringLiteral("nope"), a, b})}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("succeeded")).toArray(), ids({a, b}));
        const QJsonArray failed = r.object().value(QStringLiteral("failed")).toArray();
        QCOMPARE(failed.size(), 1);
        QCOMPARE(failed.at(0).toObject().value(QStringLiteral("id")).toString(),
                 QStringLiteral("nope"));
        QVERIFY(!failed.at(0).toObject().value(QStringLiteral("error")).toString().isEmpty());
        QVERIFY(f.barrier());
        QCOMPARE(f.payloads(m::AgentDeleted),
                 (QList<QJsonObject>{QJsonObject{{QStringLiteral("id"), a}},
                                     QJsonObject{{QStringLiteral("id"), b}}}));
        QCOMPARE(f.agents().size(), 1);
        QVERIFY(f.restart());
        QCOMPARE(f.agents().size(), 1);
        QCOMPARE(f.agents().at(0).toObject().value(QStringLiteral("id")).toString(), c);

        const HttpResponse empty = f.post(QStringLiteral("/api/agents/bulk/delete"),
                                          QJsonObject{{kAgentIds, QJsonArray()}});
        QCOMPARE(empty.status, 200);
        QCOMPARE(empty.object().value(QStringLiteral("succeeded")).toArray(), QJsonArray());
    }

    void bulkRefusals_data() {
        QTest::addColumn<QString>("route");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        for (const char *route : {"delete", "move-area"}) {
            const QString r = QString::fromLatin1(route);
            const QByteArray area =
                r == QLatin1String("move-area") ? QByteArray(",\"areaId\":null") : QByteArray();
            QTest::addRow("%s malformed", route)
                << r << QByteArray("{\"agentIds\":[") << 400 << QStringLiteral("bad_json");
            QTest::addRow("%s no agentIds", route)
                << r << QByteArray("{\"areaId\":null}") << 400 << QStringLiteral("missing_field");
            QTest::addRow("%s agentIds not array", route)
                << r << (QByteArray("{\"agentIds\":\"x\"") + area + "}") << 400
                << QStringLiteral("wrong_type");
            QTest::addRow("%s id not string", route)
                << r << (QByteArray("{\"agentIds\":[\"AGENT\",7]") + area + "}") << 400
                << QStringLiteral("wrong_type");
        }
        QTest::newRow("move-area no areaId")
            << QStringLiteral("move-area") << QByteArray("{\"agentIds\":[\"AGENT\"]}") << 400
            << QStringLiteral("missing_field");
        QTest::newRow("move-area areaId number")
            << QStringLiteral("move-area") << QByteArray("{\"agentIds\":[\"AGENT\"],\"areaId\":5}")
            << 400 << QStringLiteral("wrong_type");
        QTest::newRow("move-area unknown area")
            << QStringLiteral("move-area")
            << QByteArray("{\"agentIds\":[\"AGENT\"],\"areaId\":\"no-such-area\"}") << 404
            << QStringLiteral("not_found");
    }
    void bulkRefusals() {
        QFETCH(QString, route);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        const QString agent = f.createAgent(QStringLiteral("survivor"));
        const QString area =
            f.createArea(QStringLiteral("Home")).value(QStringLiteral("id")).toString();
        QCOMPARE(f.post(QStringLiteral("/api/agents/bulk/move-area"),
                        QJsonObject{{kAgentIds, ids({agent})}, {kAreaId, area}})
                     .status,
                 200);
        const QJsonObject before = f.agent(agent);
        body.replace("AGENT", agent.toUtf8());
        QVERIFY(f.barrier());
        f.ws->clear();
        expectError(f.postRaw(QStringLiteral("/api/agents/bulk/") + route, body), status, code);
        QVERIFY(f.barrier());
        QCOMPARE(f.agent(agent), before);
        QCOMPARE(f.ws->countOf(m::AgentUpdated) + f.ws->countOf(m::AgentDeleted), 0);
    }

    void moveAreaMixedIdsIsDurableBeforeTheAnswer() {
        const QString area =
            f.createArea(QStringLiteral("Ops")).value(QStringLiteral("id")).toString();
        const QString a = f.createAgent(QStringLiteral("a"));
        const QString b = f.createAgent(QStringLiteral("b"));
        const QString move = QStringLiteral("/api/agents/bulk/move-area");
        const HttpResponse r =
            f.post(move, QJsonObject{{kAgentIds, ids({a, QStringLiteral("ghost"), b, a})},
                                     {kAreaId, area}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("succeeded")).toArray(), ids({a, b}));
        QCOMPARE(r.object().value(QStringLiteral("failed")).toArray().size(), 1);
        QCOMPARE(r.object()
                     .value(QStringLiteral("failed"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("id")),
                 QJsonValue(QStringLiteral("ghost")));
        // On disk already, not only after the 500 ms runtime flush.
        QCOMPARE(storedAgent(dbPath(), a).value(kAreaId).toString(), area);
        QCOMPARE(storedAgent(dbPath(), b).value(kAreaId).toString(), area);
        QVERIFY(f.barrier());
        const QList<QJsonObject> updates = f.payloads(m::AgentUpdated);
        QCOMPARE(updates.size(), 2);
        QCOMPARE(updates.at(0).value(QStringLiteral("id")).toString(), a);
        QCOMPARE(updates.at(0).value(kName).toString(), QStringLiteral("a"));
        QCOMPARE(updates.at(0).value(kAreaId).toString(), area);

        // Moving again to the same area changes nothing and says so with no event.
        f.ws->clear();
        QCOMPARE(f.post(move, QJsonObject{{kAgentIds, ids({a})}, {kAreaId, area}})
                     .object()
                     .value(QStringLiteral("succeeded"))
                     .toArray(),
                 ids({a}));
        // null takes them out of the area.
        const HttpResponse out =
            f.post(move, QJsonObject{{kAgentIds, ids({a, b})}, {kAreaId, QJsonValue()}});
        QCOMPARE(out.object().value(QStringLiteral("succeeded")).toArray(), ids({a, b}));
        QVERIFY(storedAgent(dbPath(), b).value(kAreaId).isNull());
        QVERIFY(f.barrier());
        QCOMPARE(f.ws->countOf(m::AgentUpdated), 2);
        QVERIFY(f.payloads(m::AgentUpdated).at(1).value(kAreaId).isNull());
    }

    void focusAgentBroadcasts() {
        const QString id = f.createAgent(QStringLiteral("Looked At"));
        const HttpResponse r = f.post(QStringLiteral("/api/focus-agent"),
                                      QJsonObject{{QStringLiteral("agentId"), id}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("success")).toBool(), true);
        QVERIFY(f.ws->waitFor(om::FocusAgent));
        QCOMPARE(f.payloads(om::FocusAgent).first(),
                 (QJsonObject{{QStringLiteral("agentId"), id},
                              {QStringLiteral("agentName"), QStringLiteral("Looked At")}}));
    }

    void focusAgentRefusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("malformed") << QByteArray("{") << 400 << QStringLiteral("bad_json");
        QTest::newRow("missing") << QByteArray("{}") << 400 << QStringLiteral("missing_field");
        QTest::newRow("not string")
            << QByteArray("{\"agentId\":1}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("unknown field") << QByteArray("{\"agentId\":\"x\",\"zoom\":2}") << 422
                                       << QStringLiteral("unknown_field");
        QTest::newRow("unknown agent")
            << QByteArray("{\"agentId\":\"nobody\"}") << 404 << QStringLiteral("not_found");
    }
    void focusAgentRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        expectError(f.postRaw(QStringLiteral("/api/focus-agent"), body), status, code);
        QVERIFY(f.barrier());
        QCOMPARE(f.ws->countOf(om::FocusAgent), 0);
    }

    void activityEntries() {
        AgentRegistry &registry = f.svc->app().agents();
        const QString id = f.createAgent(QStringLiteral("Busy Bee"));
        const QString area =
            f.createArea(QStringLiteral("Hive")).value(QStringLiteral("id")).toString();
        QCOMPARE(f.post(QStringLiteral("/api/agents/bulk/move-area"),
                        QJsonObject{{kAgentIds, ids({id})}, {kAreaId, area}})
                     .status,
                 200);
        // What the runtime does during a turn that succeeds, then one that fails.
        auto setStatus = [&](const char *status, const QString &error = {}) {
            registry.updateRuntime(id, [&](Agent &a) {
                a.status = QString::fromLatin1(status);
                a.lastError = error;
            });
        };
        setStatus("working");
        setStatus("idle");
        setStatus("working");
        setStatus("error", QStringLiteral("CLI exited with code 1"));
        setStatus("idle"); // idle after an error is not "finished"
        QCOMPARE(f.del(QStringLiteral("/api/agents/") + id).status, 204);
        QVERIFY(f.barrier());

        const QStringList expectedKinds{
            QStringLiteral("agent_created"), QStringLiteral("area_created"),
            QStringLiteral("agent_moved"),   QStringLiteral("agent_finished"),
            QStringLiteral("agent_error"),   QStringLiteral("agent_deleted")};
        QStringList kinds;
        const QList<QJsonObject> events = f.payloads(om::Activity);
        for (const QJsonObject &e : events)
            kinds.append(e.value(QStringLiteral("kind")).toString());
        QCOMPARE(kinds, expectedKinds);
        const QJsonObject error = events.at(4);
        QCOMPARE(error.value(QStringLiteral("agentId")).toString(), id);
        QCOMPARE(error.value(QStringLiteral("agentName")).toString(), QStringLiteral("Busy Bee"));
        QVERIFY(error.value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("CLI exited")));
        QVERIFY(events.at(2)
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("Hive")));
        QVERIFY(events.at(1).value(QStringLiteral("agentId")).isNull());
        QCOMPARE(events.at(5).value(QStringLiteral("agentName")).toString(),
                 QStringLiteral("Busy Bee"));
        for (const QJsonObject &e : events) {
            QVERIFY(!e.value(QStringLiteral("id")).toString().isEmpty());
            QVERIFY(e.value(QStringLiteral("timestamp")).toInteger() > 1'600'000'000'000);
        }

        // GET: newest first, limit, filter by agent.
        const QJsonArray all = f.get(QStringLiteral("/api/activity"))
                                   .object()
                                   .value(QStringLiteral("activities"))
                                   .toArray();
        QCOMPARE(all.size(), 6);
        QCOMPARE(all.first().toObject(), events.last());
        QCOMPARE(all.last().toObject(), events.first());
        const QJsonArray two = f.get(QStringLiteral("/api/activity?limit=2"))
                                   .object()
                                   .value(QStringLiteral("activities"))
                                   .toArray();
        QCOMPARE(two.size(), 2);
        QCOMPARE(two.at(1).toObject(), events.at(4));
        QCOMPARE(f.get(QStringLiteral("/api/activity?agentId=") + id)
                     .object()
                     .value(QStringLiteral("activities"))
                     .toArray()
                     .size(),
                 5);
        expectError(f.get(QStringLiteral("/api/activity?limit=abc")), 400,
                    QStringLiteral("wrong_type"));
        expectError(f.get(QStringLiteral("/api/activity?limit=0")), 422,
                    QStringLiteral("invalid_value"));
        expectError(f.get(QStringLiteral("/api/activity?limit=201")), 422,
                    QStringLiteral("invalid_value"));
    }

    void activityRingIsBounded() {
        ActivityLog log(Clock::system(), 3);
        QSignalSpy recorded(&log, &ActivityLog::recorded);
        for (int i = 0; i < 5; ++i)
            log.record(wire::org::activity::AreaCreated, QString::number(i));
        QCOMPARE(recorded.size(), 5);
        QCOMPARE(log.size(), 3);
        const QList<ActivityEntry> latest = log.latest(10);
        QCOMPARE(latest.size(), 3);
        QCOMPARE(latest.first().message, QStringLiteral("4"));
        QCOMPARE(latest.last().message, QStringLiteral("2"));
    }
};

QTEST_GUILESS_MAIN(TestOrganization)
#include "tst_organization.moc"
