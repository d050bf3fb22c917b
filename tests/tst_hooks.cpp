// Hooks (docs/api.md "Hooks"): create, read, update and delete with their events, and every
// refusal of POST and PATCH, each leaving the hooks as they were. The runs of real commands are in
// tst_hook_runs.

#include "hooks/HookStore.h"
#include "support/HookFixture.h"

#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace sm = wire::shaping::msg;

} // namespace

class TestHooks final : public QObject, private HookFixture {
    Q_OBJECT

    // For the tests that only read and refuse: one service for all their rows.
    std::unique_ptr<AgentRig> m_shared;

private Q_SLOTS:
    void initTestCase() {
        m_shared = std::make_unique<AgentRig>();
        QVERIFY(m_shared->start());
    }
    void cleanupTestCase() { m_shared.reset(); }

    void createReadUpdateDelete() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QJsonObject created =
            addHook(rig, hookOn(QStringLiteral("agent_finished"), QStringLiteral("notify me"),
                                {QStringLiteral("notify-send"), QStringLiteral("done")}));
        const QString id = str(created, k::Id);
        QVERIFY(!id.isEmpty());
        QCOMPARE(str(created, k::Name_), QStringLiteral("notify me"));
        QCOMPARE(str(created, sk::Event), QStringLiteral("agent_finished"));
        QCOMPARE(created.value(sk::Command).toArray(),
                 (QJsonArray{QStringLiteral("notify-send"), QStringLiteral("done")}));
        // Defaults: no filter, the service's home, 30 s, enabled, never run.
        QCOMPARE(created.value(sk::Filter).toObject(), QJsonObject());
        QVERIFY(created.value(k::Cwd).isNull());
        QCOMPARE(created.value(sk::TimeoutSeconds).toInt(), 30);
        QCOMPARE(created.value(sk::Enabled).toBool(), true);
        QVERIFY(created.contains(sk::LastRun) && created.value(sk::LastRun).isNull());
        QVERIFY(created.value(k::CreatedAt).toInteger() > 0);
        QCOMPARE(created.value(k::UpdatedAt), created.value(k::CreatedAt));
        QVERIFY(rig.ws->waitFor(sm::HookCreated));
        QCOMPARE(payloadOf(rig.ws->last(sm::HookCreated)), created);

        // Every field given.
        const QJsonObject full =
            addHook(rig, hookOn(QStringLiteral("exec_finished"), QStringLiteral("full"),
                                {QStringLiteral("/bin/true")},
                                {{sk::Filter, QJsonObject{{k::AgentId, rig.agentId},
                                                          {k::Class, QStringLiteral("builder")},
                                                          {k::AreaId, QStringLiteral("area-1")}}},
                                 {k::Cwd, rig.cwd},
                                 {sk::TimeoutSeconds, 300},
                                 {sk::Enabled, false}}));
        QCOMPARE(full.value(sk::Filter).toObject().size(), 3);
        QCOMPARE(str(full, k::Cwd), rig.cwd);
        QCOMPARE(full.value(sk::TimeoutSeconds).toInt(), 300);
        QCOMPARE(full.value(sk::Enabled).toBool(), false);

        const HttpResponse list = rig.http.get(rig.svc->url(QStringLiteral("/api/hooks")));
        QCOMPARE(list.status, 200);
        QCOMPARE(list.array(), (QJsonArray{created, full}));
        const HttpResponse one = rig.http.get(hookUrl(rig, id));
        QCOMPARE(one.status, 200);
        QCOMPARE(one.object(), created);
        const HttpResponse noRuns = rig.http.get(hookUrl(rig, id, QStringLiteral("/runs")));
        QCOMPARE(noRuns.status, 200);
        QCOMPARE(noRuns.array(), QJsonArray());

        const HttpResponse patched = rig.http.patch(
            hookUrl(rig, id), {{k::Name_, QStringLiteral("renamed")},
                               {sk::Event, QStringLiteral("turn_finished")},
                               {sk::Filter, QJsonObject{{k::Class, QStringLiteral("reviewer")}}},
                               {k::Cwd, QStringLiteral("agent")},
                               {sk::TimeoutSeconds, 1},
                               {sk::Enabled, false}});
        QCOMPARE(patched.status, 200);
        const QJsonObject updated = patched.object();
        QCOMPARE(str(updated, k::Name_), QStringLiteral("renamed"));
        QCOMPARE(str(updated, sk::Event), QStringLiteral("turn_finished"));
        QCOMPARE(updated.value(sk::Filter).toObject(),
                 (QJsonObject{{k::Class, QStringLiteral("reviewer")}}));
        QCOMPARE(str(updated, k::Cwd), QStringLiteral("agent"));
        QCOMPARE(updated.value(sk::TimeoutSeconds).toInt(), 1);
        QCOMPARE(updated.value(sk::Enabled).toBool(), false);
        QCOMPARE(updated.value(sk::Command), created.value(sk::Command)); // untouched
        QCOMPARE(updated.value(k::CreatedAt), created.value(k::CreatedAt));
        QVERIFY(updated.value(k::UpdatedAt).toInteger() >= created.value(k::UpdatedAt).toInteger());
        QVERIFY(rig.ws->waitFor(sm::HookUpdated));
        QCOMPARE(payloadOf(rig.ws->last(sm::HookUpdated)), updated);
        // null clears the filter and the cwd.
        const QJsonObject cleared =
            rig.http.patch(hookUrl(rig, id), {{sk::Filter, QJsonValue()}, {k::Cwd, QJsonValue()}})
                .object();
        QCOMPARE(cleared.value(sk::Filter).toObject(), QJsonObject());
        QVERIFY(cleared.value(k::Cwd).isNull());

        QCOMPARE(rig.http.del(hookUrl(rig, id)).status, 204);
        QVERIFY(rig.ws->waitFor(sm::HookDeleted));
        QCOMPARE(payloadOf(rig.ws->last(sm::HookDeleted)),
                 (QJsonObject{{k::Id, id}, {k::Name_, QStringLiteral("renamed")}}));
        expectError(rig.http.get(hookUrl(rig, id)), 404, c::NotFound);
        expectError(rig.http.patch(hookUrl(rig, id), {{sk::Enabled, true}}), 404, c::NotFound);
        expectError(rig.http.del(hookUrl(rig, id)), 404, c::NotFound);
        expectError(rig.http.get(hookUrl(rig, id, QStringLiteral("/runs"))), 404, c::NotFound);
        QCOMPARE(rig.http.get(rig.svc->url(QStringLiteral("/api/hooks"))).array(),
                 QJsonArray{full});
    }

    void refusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QJsonObject ok{{k::Name_, QStringLiteral("h")},
                             {sk::Event, QStringLiteral("agent_created")},
                             {sk::Command, QJsonArray{QStringLiteral("/bin/true")}}};
        auto with = [&](QLatin1String key, const QJsonValue &v) {
            QJsonObject b = ok;
            b.insert(key, v);
            return json(b);
        };
        auto without = [&](QLatin1String key) {
            QJsonObject b = ok;
            b.remove(key);
            return json(b);
        };
        auto filter = [&](const QJsonObject &f) { return with(sk::Filter, f); };
        const QString bad = QStringLiteral("bad_json");
        const QString missing = QStringLiteral("missing_field");
        const QString type = QStringLiteral("wrong_type");
        const QString value = QStringLiteral("invalid_value");
        const QString unknown = QStringLiteral("unknown_field");
        QTest::newRow("not json") << QByteArray("{name:") << 400 << bad;
        QTest::newRow("array body") << QByteArray("[]") << 400 << bad;
        QTest::newRow("no name") << without(k::Name_) << 400 << missing;
        QTest::newRow("no event") << without(sk::Event) << 400 << missing;
        QTest::newRow("no command") << without(sk::Command) << 400 << missing;
        QTest::newRow("name number") << with(k::Name_, 5) << 400 << type;
        QTest::newRow("name null") << with(k::Name_, QJsonValue()) << 400 << type;
        QTest::newRow("name empty") << with(k::Name_, QString()) << 422 << value;
        QTest::newRow("name blank") << with(k::Name_, QStringLiteral("  ")) << 422 << value;
        QTest::newRow("name 101") << with(k::Name_, QString(101, QLatin1Char('n'))) << 422 << value;
        QTest::newRow("name escape") << with(k::Name_, QStringLiteral("a\x1b[2Jb")) << 422 << value;
        QTest::newRow("event unknown")
            << with(sk::Event, QStringLiteral("agent_started")) << 422 << value;
        QTest::newRow("event test") << with(sk::Event, QStringLiteral("test")) << 422 << value;
        QTest::newRow("event hook_run")
            << with(sk::Event, QStringLiteral("hook_run")) << 422 << value;
        QTest::newRow("event number") << with(sk::Event, 1) << 400 << type;
        QTest::newRow("filter string") << with(sk::Filter, QStringLiteral("x")) << 400 << type;
        QTest::newRow("filter key")
            << filter({{k::Status, QStringLiteral("idle")}}) << 422 << unknown;
        QTest::newRow("filter agent unknown")
            << filter({{k::AgentId, QStringLiteral("no-such-agent")}}) << 422 << value;
        QTest::newRow("filter class bad")
            << filter({{k::Class, QStringLiteral("Not A Slug")}}) << 422 << value;
        QTest::newRow("filter area number") << filter({{k::AreaId, 7}}) << 400 << type;
        QTest::newRow("filter area empty") << filter({{k::AreaId, QString()}}) << 422 << value;
        QTest::newRow("command string")
            << with(sk::Command, QStringLiteral("/bin/true")) << 400 << type;
        QTest::newRow("command empty") << with(sk::Command, QJsonArray()) << 422 << value;
        QTest::newRow("command number")
            << with(sk::Command, QJsonArray{QStringLiteral("/bin/echo"), 1}) << 400 << type;
        QTest::newRow("command no program")
            << with(sk::Command, QJsonArray{QString()}) << 422 << value;
        QTest::newRow("command relative path")
            << with(sk::Command, QJsonArray{QStringLiteral("bin/hook")}) << 422 << value;
        QTest::newRow("command NUL")
            << with(sk::Command, QJsonArray{QStringLiteral("/bin/echo"), QStringLiteral("a\0b")})
            << 422 << value;
        QJsonArray many{QStringLiteral("/bin/echo")};
        for (int i = 0; i < HookStore::kMaxArgs; ++i)
            many.append(QStringLiteral("x"));
        QTest::newRow("command 257 elements") << with(sk::Command, many) << 422 << value;
        QTest::newRow("command too long")
            << with(sk::Command,
                    QJsonArray{QStringLiteral("/bin/echo"), QString(65536, QLatin1Char('a'))})
            << 422 << value;
        QTest::newRow("cwd relative") << with(k::Cwd, QStringLiteral("project")) << 422 << value;
        QTest::newRow("cwd missing")
            << with(k::Cwd, QStringLiteral("/no/such/dir")) << 422 << value;
        QTest::newRow("cwd a file") << with(k::Cwd, QStringLiteral("/bin/sh")) << 422 << value;
        QTest::newRow("cwd number") << with(k::Cwd, 1) << 400 << type;
        QTest::newRow("timeout 0") << with(sk::TimeoutSeconds, 0) << 422 << value;
        QTest::newRow("timeout 301") << with(sk::TimeoutSeconds, 301) << 422 << value;
        QTest::newRow("timeout 1.5") << with(sk::TimeoutSeconds, 1.5) << 400 << type;
        QTest::newRow("timeout string")
            << with(sk::TimeoutSeconds, QStringLiteral("30")) << 400 << type;
        QTest::newRow("enabled string") << with(sk::Enabled, QStringLiteral("yes")) << 400 << type;
        QTest::newRow("id given") << with(k::Id, QStringLiteral("mine")) << 422 << unknown;
        QTest::newRow("lastRun given") << with(sk::LastRun, QJsonValue()) << 422 << unknown;
        QTest::newRow("shell string field") << with(QLatin1String("shell"), true) << 422 << unknown;
    }
    void refusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        AgentRig &rig = *m_shared;
        expectError(rig.http.send("POST", rig.svc->url(QStringLiteral("/api/hooks")), body,
                                  {{"Content-Type", "application/json"}}),
                    status, code);
        QCOMPARE(rig.http.get(rig.svc->url(QStringLiteral("/api/hooks"))).array(), QJsonArray());
    }

    void patchRefusals() {
        AgentRig &rig = *m_shared;
        const QJsonObject hook =
            addHook(rig, hookOn(QStringLiteral("agent_error"), QStringLiteral("p"),
                                {QStringLiteral("true")}));
        const QString id = str(hook, k::Id);
        const QUrl url = hookUrl(rig, id);
        expectError(rig.http.send("PATCH", url, "{", {{"Content-Type", "application/json"}}), 400,
                    c::BadJson);
        expectError(rig.http.patch(url, {{sk::Event, QStringLiteral("nope")}}), 422,
                    c::InvalidValue);
        expectError(rig.http.patch(url, {{sk::Command, QJsonArray()}}), 422, c::InvalidValue);
        expectError(rig.http.patch(url, {{sk::TimeoutSeconds, 0}}), 422, c::InvalidValue);
        expectError(rig.http.patch(url, {{k::Name_, QJsonValue()}}), 400, c::WrongType);
        expectError(rig.http.patch(url, {{k::CreatedAt, 1}}), 422, c::UnknownField);
        // A refused PATCH changes nothing, whatever its other fields.
        expectError(
            rig.http.patch(url, {{k::Name_, QStringLiteral("changed")}, {sk::TimeoutSeconds, 999}}),
            422, c::InvalidValue);
        QCOMPARE(rig.http.get(url).object(), hook);
        QCOMPARE(rig.http.del(url).status, 204);
    }
};

QTEST_GUILESS_MAIN(TestHooks)
#include "tst_hooks.moc"
