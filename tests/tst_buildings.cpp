// Buildings against the real service in-process, real processes, real sockets: the REST rows and
// every refusal, start and stop, the states and their events, building_output and the logs route,
// a change applied on the next start, secrets in env, and a building going with its agent. What
// happens to the processes over time (crashes, restarts, groups, shutdown) is in
// tst_building_runs.

#include "buildings/BuildingRun.h"
#include "support/BuildingFixture.h"

#include <QDir>

using namespace flotilla;
using namespace flotilla::test;

namespace {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace sm = wire::shaping::msg;
namespace ss = wire::shaping::state;
namespace c = wire::code;

} // namespace

class TestBuildings final : public QObject, private BuildingFixture {
    Q_OBJECT

private Q_SLOTS:
    void cleanup() {
        ws.reset();
        http.reset();
        svc.reset();
    }

    void logRingKeepsTheNewestWholeLines() {
        BuildingLog log(100, 8, 10);
        bool truncated = true;
        log.append(QStringLiteral("abc\r\ndef"), false);
        log.append(QStringLiteral("err"), true);
        QList<BuildingLog::Line> lines = log.tail(10, &truncated);
        QCOMPARE(lines.size(), 3); // a line, then both partial lines
        QCOMPARE(lines[0].text, QStringLiteral("abc"));
        QCOMPARE(lines[1].text, QStringLiteral("def"));
        QVERIFY(lines[2].isError);
        QVERIFY(!truncated);
        log.append(QStringLiteral("ghijklmnopq\n"), false); // over 10 characters: cut
        log.endRun();
        lines = log.tail(10, &truncated);
        QCOMPARE(lines.size(), 4);
        QCOMPARE(lines[1].text, QStringLiteral("defghijklm"));
        QCOMPARE(lines[2].text, QStringLiteral("nopq"));
        QCOMPARE(lines[3].text, QStringLiteral("err")); // the partial line became a line
        QCOMPARE(log.tail(2, &truncated).size(), 2);
        QVERIFY(truncated);
        for (int i = 0; i < 40; ++i)
            log.append(QStringLiteral("line %1\n").arg(i), false);
        QVERIFY(log.bytes() <= 100);
        lines = log.tail(100, &truncated);
        QCOMPARE(lines.size(), 8); // the line bound
        QCOMPARE(lines.last().text, QStringLiteral("line 39"));
        QVERIFY(truncated);
    }

    void crudRowsAndEvents() {
        QVERIFY(boot());
        const QString workDir = svc->workDir();
        HttpResponse r = post(QStringLiteral("/api/buildings"),
                              body(QStringLiteral("Dev server"), argv({"npm", "run", "dev"}),
                                   {{sk::Url, QStringLiteral("http://localhost:5173/")}}));
        QCOMPARE(r.status, 201);
        QJsonObject b = r.object();
        const QString id = str(b, k::Id);
        QCOMPARE(QString::fromUtf8(r.header("location")), at(id));
        QCOMPARE(str(b, k::Name_), QStringLiteral("Dev server"));
        QCOMPARE(str(b, k::Cwd), workDir);
        QCOMPARE(b.value(sk::Command), QJsonValue(argv({"npm", "run", "dev"})));
        QCOMPARE(b.value(sk::Env), QJsonValue(QJsonObject()));
        QCOMPARE(b.value(sk::Autostart), QJsonValue(false));
        QCOMPARE(str(b, sk::Restart), QStringLiteral("on-failure"));
        QCOMPARE(str(b, sk::Url), QStringLiteral("http://localhost:5173/"));
        QVERIFY(b.value(k::AreaId).isNull() && b.value(k::AgentId).isNull());
        QCOMPARE(str(b, sk::State), QString(ss::Stopped));
        for (QLatin1String key : {sk::Pid, sk::ExitCode, sk::StartedAt, sk::UptimeSeconds})
            QVERIFY2(b.value(key).isNull(), key.data());
        QCOMPARE(b.value(sk::Restarts), QJsonValue(0));
        QVERIFY(b.value(k::CreatedAt).toInteger() > 0);
        QVERIFY(ws->waitFor(sm::BuildingCreated));
        QCOMPARE(str(events(sm::BuildingCreated, id).first(), k::Name_),
                 QStringLiteral("Dev server"));

        const QString area =
            str(post(QStringLiteral("/api/areas"), {{k::Name_, QStringLiteral("Web")}}).object(),
                k::Id);
        r = patch(at(id), {{k::Name_, QStringLiteral("Vite")},
                           {sk::Env, QJsonObject{{QStringLiteral("PORT"), QStringLiteral("5173")}}},
                           {sk::Restart, QStringLiteral("always")},
                           {sk::Autostart, true},
                           {k::AreaId, area},
                           {sk::Url, QJsonValue()}});
        QCOMPARE(r.status, 200);
        b = r.object();
        QCOMPARE(str(b, k::Name_), QStringLiteral("Vite"));
        QCOMPARE(b.value(sk::Env).toObject().value(QStringLiteral("PORT")),
                 QJsonValue(QStringLiteral("5173")));
        QCOMPARE(str(b, sk::Restart), QStringLiteral("always"));
        QCOMPARE(b.value(sk::Autostart), QJsonValue(true));
        QCOMPARE(str(b, k::AreaId), area);
        QVERIFY(b.value(sk::Url).isNull());
        QVERIFY(ws->waitFor(sm::BuildingUpdated));
        QCOMPARE(str(events(sm::BuildingUpdated, id).last(), k::Name_), QStringLiteral("Vite"));

        const QString second = create(QStringLiteral("Db"), argv({"true"}));
        QVERIFY(!second.isEmpty());
        const QJsonArray list = get(QStringLiteral("/api/buildings")).array();
        QCOMPARE(list.size(), 2);
        QCOMPARE(str(list[0].toObject(), k::Id), id); // creation order
        QCOMPARE(building(id), b);

        // Deleting the area leaves the building without one.
        QCOMPARE(del(QStringLiteral("/api/areas/") + area).status, 204);
        QTRY_VERIFY(building(id).value(k::AreaId).isNull());
        QCOMPARE(del(at(id)).status, 204);
        QVERIFY(ws->waitFor(sm::BuildingDeleted));
        QCOMPARE(events(sm::BuildingDeleted, id).first(),
                 (QJsonObject{{k::Id, id}, {k::Name_, QStringLiteral("Vite")}}));
        QCOMPARE(get(at(id)).status, 404);
        QCOMPARE(get(QStringLiteral("/api/buildings")).array().size(), 1);
    }

    // Bodies written with ' for " ; @cmd, @cwd and @agent are filled in by refusals().
    void refusals_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        auto row = [](const char *name, const char *json, int status, const char *code) {
            QTest::newRow(name) << QByteArray(json).replace('\'', '"') << status
                                << QString::fromLatin1(code);
        };
        row("bad json", "{", 400, "bad_json");
        row("no name", "{'command': @cmd, 'cwd': '@cwd'}", 400, "missing_field");
        row("name not a string", "{'name': 3, 'command': @cmd, 'cwd': '@cwd'}", 400, "wrong_type");
        row("empty name", "{'name': '  ', 'command': @cmd, 'cwd': '@cwd'}", 422, "invalid_value");
        row("long name", "{'name': '@long', 'command': @cmd, 'cwd': '@cwd'}", 422, "invalid_value");
        row("escape in name", "{'name': 'a\\u001b[2Jb', 'command': @cmd, 'cwd': '@cwd'}", 422,
            "invalid_value");
        row("taken name", "{'name': 'TAKEN', 'command': @cmd, 'cwd': '@cwd'}", 409, "conflict");
        row("no command", "{'name': 'x', 'cwd': '@cwd'}", 400, "missing_field");
        row("command string", "{'name': 'x', 'command': 'npm run dev', 'cwd': '@cwd'}", 400,
            "wrong_type");
        row("command empty", "{'name': 'x', 'command': [], 'cwd': '@cwd'}", 422, "invalid_value");
        row("command number", "{'name': 'x', 'command': ['a', 1], 'cwd': '@cwd'}", 400,
            "wrong_type");
        row("command no program", "{'name': 'x', 'command': [''], 'cwd': '@cwd'}", 422,
            "invalid_value");
        row("no cwd", "{'name': 'x', 'command': @cmd}", 400, "missing_field");
        row("relative cwd", "{'name': 'x', 'command': @cmd, 'cwd': 'work'}", 422, "invalid_value");
        row("missing cwd", "{'name': 'x', 'command': @cmd, 'cwd': '/nonexistent/dir'}", 422,
            "invalid_value");
        row("env array", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'env': []}", 400,
            "wrong_type");
        row("env name", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'env': {'A-B': '1'}}", 422,
            "invalid_value");
        row("env number", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'env': {'A': 1}}", 400,
            "wrong_type");
        row("env unknown secret",
            "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'env': {'A': '{{NOPE}}'}}", 422,
            "unknown_secret");
        row("restart", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'restart': 'sometimes'}", 422,
            "invalid_value");
        row("autostart", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'autostart': 'yes'}", 400,
            "wrong_type");
        row("url scheme", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'url': 'ftp://h/'}", 422,
            "invalid_value");
        row("url type", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'url': 80}", 400,
            "wrong_type");
        row("unknown area", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'areaId': 'nope'}", 404,
            "not_found");
        row("unknown agent", "{'name': 'x', 'command': @cmd, 'agentId': 'nope'}", 404, "not_found");
        row("agent and cwd", "{'name': 'x', 'command': @cmd, 'agentId': '@agent', 'cwd': '@cwd'}",
            422, "invalid_value");
        row("unknown field", "{'name': 'x', 'command': @cmd, 'cwd': '@cwd', 'state': 'running'}",
            422, "unknown_field");
    }
    void refusals() {
        QFETCH(QByteArray, json);
        QFETCH(int, status);
        QFETCH(QString, code);
        QVERIFY(boot());
        const QString taken = create(QStringLiteral("taken"), argv({"true"}));
        QVERIFY(!taken.isEmpty());
        const QString agent = str(post(QStringLiteral("/api/agents"),
                                       {{k::Name_, QStringLiteral("a")}, {k::Cwd, svc->workDir()}})
                                      .object(),
                                  k::Id);
        json.replace("@cmd", "[\"sleep\", \"1\"]")
            .replace("@cwd", svc->workDir().toUtf8())
            .replace("@agent", agent.toUtf8())
            .replace("@long", QByteArray(101, 'x'));
        const HttpResponse r = http->send("POST", url(QStringLiteral("/api/buildings")), json);
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), k::Code), code);
        QVERIFY(!str(r.object(), QLatin1String("error")).isEmpty());
        QCOMPARE(get(QStringLiteral("/api/buildings")).array().size(), 1); // nothing stored
        QCOMPARE(ws->countOf(sm::BuildingCreated), 1);
    }

    void routeRefusals() {
        QVERIFY(boot());
        for (const char *action : {"start", "stop", "restart"})
            QCOMPARE(post(at(QStringLiteral("nope"), action)).status, 404);
        QCOMPARE(get(at(QStringLiteral("nope"))).status, 404);
        QCOMPARE(get(at(QStringLiteral("nope"), "logs")).status, 404);
        QCOMPARE(patch(at(QStringLiteral("nope")), {{k::Name_, QStringLiteral("x")}}).status, 404);
        QCOMPARE(del(at(QStringLiteral("nope"))).status, 404);
        const QString id = create(QStringLiteral("s"), argv({"sleep", "30"}));
        QCOMPARE(get(at(id, "logs") + QStringLiteral("?tail=0")).status, 422);
        QCOMPARE(get(at(id, "logs") + QStringLiteral("?tail=x")).status, 400);
        // PATCH checks what it changes as POST does.
        QCOMPARE(patch(at(id), {{k::Cwd, QJsonValue()}}).status, 422); // nowhere to run
        QCOMPARE(patch(at(id), {{sk::Command, QStringLiteral("sleep 1")}}).status, 400);
        QCOMPARE(patch(at(id), {{sk::Url, QStringLiteral("javascript:x")}}).status, 422);
        QCOMPARE(patch(at(id), {{k::AgentId, QStringLiteral("nope")}}).status, 404);
        QCOMPARE(patch(at(id), {{sk::Pid, 1}}).status, 422);
        QCOMPARE(http->send("PATCH", url(at(id)), "[").status, 400);
        QVERIFY(!create(QStringLiteral("other"), argv({"true"})).isEmpty());
        const HttpResponse taken = patch(at(id), {{k::Name_, QStringLiteral("OTHER")}});
        QCOMPARE(taken.status, 409);
        QCOMPARE(str(taken.object(), k::Code), QString(c::Conflict));
        QCOMPARE(str(building(id), k::Name_), QStringLiteral("s"));
        QCOMPARE(post(at(id, "start")).status, 200);
        const HttpResponse again = post(at(id, "start"));
        QCOMPARE(again.status, 409);
        QCOMPARE(str(again.object(), k::Code), QString(wire::shaping::code::AlreadyRunning));
        // A program that is not there: 422, and the building says why.
        const QString missing = create(QStringLiteral("m"), argv({"no-such-program-xyz"}));
        const HttpResponse r = post(at(missing, "start"));
        QCOMPARE(r.status, 422);
        QCOMPARE(str(building(missing), sk::State), QString(ss::Crashed));
        QVERIFY(logLines(missing).join(u'\n').contains(QStringLiteral("no-such-program-xyz")));
    }

    void startStreamsStateAndLogs() {
        QVERIFY(boot());
        const QString id = create(QStringLiteral("web"),
                                  argv({"sh", "-c", "echo ready; echo oops >&2; exec sleep 30"}));
        HttpResponse r = post(at(id, "start"));
        QCOMPARE(r.status, 200);
        QCOMPARE(str(r.object(), sk::State), QString(ss::Starting));
        const qint64 pid = r.object().value(sk::Pid).toInteger();
        QVERIFY(pid > 0 && processAlive(pid));
        QVERIFY(waitState(id, ss::Running));
        const QJsonObject b = building(id);
        QCOMPARE(b.value(sk::Pid).toInteger(), pid);
        QVERIFY(b.value(sk::StartedAt).toInteger() > 0);
        QVERIFY(b.value(sk::UptimeSeconds).toInteger() >= 0);
        QTRY_COMPARE(streamed(id, wire::shaping::stream::Stdout), QStringLiteral("ready\n"));
        QTRY_COMPARE(streamed(id, wire::shaping::stream::Stderr), QStringLiteral("oops\n"));
        QCOMPARE(states(id).mid(0, 2), (QStringList{ss::Starting, ss::Running}));

        const QJsonObject logs = get(at(id, "logs")).object();
        QCOMPARE(logs.value(sk::Truncated), QJsonValue(false));
        const QJsonArray lines = logs.value(sk::Lines).toArray();
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0].toObject(), (QJsonObject{{k::Text, QStringLiteral("ready")},
                                                   {sk::Stream, QStringLiteral("stdout")}}));
        QCOMPARE(str(lines[1].toObject(), sk::Stream), QStringLiteral("stderr"));
        bool truncated = false;
        QCOMPARE(logLines(id, 1, &truncated), QStringList{QStringLiteral("oops")});
        QVERIFY(truncated);

        r = post(at(id, "stop"));
        QCOMPARE(r.status, 200);
        QCOMPARE(str(r.object(), sk::State), QString(ss::Stopped));
        QVERIFY(r.object().value(sk::Pid).isNull());
        QVERIFY(!groupAlive(pid));
        QCOMPARE(states(id).last(), QString(ss::Stopped));
        QCOMPARE(post(at(id, "stop")).status, 200); // nothing runs: nothing to do
    }

    void chattyOutputIsBatchedAndBounded() {
        QVERIFY(boot());
        const QString id =
            create(QStringLiteral("chatty"), argv({"sh", "-c", "seq 1 300000; exec sleep 30"}));
        QCOMPARE(post(at(id, "start")).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(
            streamed(id, wire::shaping::stream::Stdout).endsWith(QStringLiteral("\n300000\n")),
            10000);
        const QString all = streamed(id, wire::shaping::stream::Stdout);
        QCOMPARE(all.count(u'\n'), 300000);
        // 1.9 MB in events of up to 64 KiB, not one per line.
        QVERIFY2(events(sm::BuildingOutput, id).size() < 300,
                 qPrintable(QString::number(events(sm::BuildingOutput, id).size())));
        bool truncated = false;
        const QStringList tail = logLines(id, 10000, &truncated);
        QVERIFY(truncated);
        QCOMPARE(tail.size(), 10000);
        QCOMPARE(tail.first(), QStringLiteral("290001"));
        QCOMPARE(tail.last(), QStringLiteral("300000"));
    }

    void patchAppliesOnTheNextStart() {
        QVERIFY(boot());
        const QString id =
            create(QStringLiteral("v"), argv({"sh", "-c", "echo one; exec sleep 30"}));
        const qint64 pid = post(at(id, "start")).object().value(sk::Pid).toInteger();
        const HttpResponse r =
            patch(at(id), {{sk::Command, argv({"sh", "-c", "echo two; exec sleep 30"})}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(sk::Pid).toInteger(), pid); // still the old process
        QCOMPARE(r.object().value(sk::Command),
                 QJsonValue(argv({"sh", "-c", "echo two; exec sleep 30"})));
        QCOMPARE(post(at(id, "restart")).status, 200);
        QTRY_COMPARE(logLines(id), (QStringList{QStringLiteral("one"), QStringLiteral("two")}));
    }

    void secretsInEnvAreSubstitutedAndMasked() {
        QVERIFY(boot());
        const QString secret = QStringLiteral("hunter2-sekret-value");
        QCOMPARE(http->send("PUT", url(QStringLiteral("/api/secrets/API_KEY")),
                            QJsonDocument(QJsonObject{{QStringLiteral("value"), secret}}).toJson())
                     .status,
                 201);
        const QString id =
            create(QStringLiteral("s"),
                   argv({"sh", "-c",
                         "echo key=$KEY; echo literal=$LITERAL >&2; "
                         "[ \"$KEY\" = hunter2-sekret-value ] && echo match; exec sleep 30"}),
                   {{sk::Env, QJsonObject{{QStringLiteral("KEY"), QStringLiteral("{{API_KEY}}")},
                                          {QStringLiteral("LITERAL"), secret}}}});
        QVERIFY(!id.isEmpty());
        const QJsonObject env = building(id).value(sk::Env).toObject();
        QCOMPARE(str(env, QLatin1String("KEY")), QStringLiteral("{{API_KEY}}"));
        QCOMPARE(str(env, QLatin1String("LITERAL")), QStringLiteral("***"));
        QCOMPARE(post(at(id, "start")).status, 200);
        QTRY_VERIFY(logLines(id).contains(QStringLiteral("match")));
        QVERIFY(logLines(id).contains(QStringLiteral("key=***")));
        QVERIFY(logLines(id).contains(QStringLiteral("literal=***")));
        QTRY_VERIFY(
            streamed(id, wire::shaping::stream::Stdout).contains(QStringLiteral("key=***")));
        for (const QJsonObject &m : ws->messages())
            QVERIFY(!QJsonDocument(m).toJson().contains(secret.toUtf8()));
        QVERIFY(!get(at(id, "logs")).body.contains(secret.toUtf8()));
        QVERIFY(!get(QStringLiteral("/api/buildings")).body.contains(secret.toUtf8()));
    }

    void buildingGoesWithItsAgent() {
        QVERIFY(boot());
        const QString agent = str(post(QStringLiteral("/api/agents"),
                                       {{k::Name_, QStringLiteral("a")}, {k::Cwd, svc->workDir()}})
                                      .object(),
                                  k::Id);
        const QString id = create(QStringLiteral("agent's"),
                                  argv({"sh", "-c", "pwd; exec sleep 30"}), {{k::AgentId, agent}});
        QVERIFY(!id.isEmpty());
        const QJsonObject b = building(id);
        QCOMPARE(str(b, k::AgentId), agent);
        const QString agentCwd = str(get(QStringLiteral("/api/agents/") + agent).object(), k::Cwd);
        QCOMPARE(str(b, k::Cwd), agentCwd);
        const qint64 pid = post(at(id, "start")).object().value(sk::Pid).toInteger();
        QTRY_COMPARE(logLines(id), QStringList{QDir(agentCwd).canonicalPath()});
        // Other buildings stay.
        const QString other = create(QStringLiteral("other"), argv({"true"}));
        QCOMPARE(del(QStringLiteral("/api/agents/") + agent).status, 204);
        QVERIFY(ws->waitFor(sm::BuildingDeleted));
        QCOMPARE(events(sm::BuildingDeleted, id).size(), 1);
        QCOMPARE(get(at(id)).status, 404);
        QCOMPARE(get(at(other)).status, 200);
        QTRY_VERIFY(!groupAlive(pid));
    }
};

QTEST_GUILESS_MAIN(TestBuildings)
#include "tst_buildings.moc"
