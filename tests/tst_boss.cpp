// Boss agents end to end with the real Claude Code CLI and the scripted model: the boss's
// instructions, delegation to a subordinate and back through report-task, malformed blocks,
// spawn blocks, teams and their persistence, delegation history, refusals. Plus the delegation
// block parser on its own.

#include "boss/BlockParser.h"
#include "support/BossFixtures.h"

#include <QStandardPaths>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QString delegationAnswer(const QString &intro, const QJsonValue &block) {
    return intro + QLatin1Char('\n') + fenced("delegation", json(block));
}
} // namespace

class TestBoss final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // --- BlockParser, pure ---------------------------------------------------------------------

    void delegationBlocks_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<int>("items");        // -1: refused
        QTest::addColumn<QString>("expected"); // confidence of item 1, or the error text
        QTest::newRow("one object")
            << QStringLiteral(
                   "{\"agentName\": \"b\", \"task\": \"do it\", \"confidence\": \"HIGH\"}")
            << 1 << QStringLiteral("high");
        QTest::newRow("array") << QStringLiteral("[{\"agentId\": \"a\", \"task\": \"x\"}, "
                                                 "{\"agentName\": \"b\", \"task\": \"y\", "
                                                 "\"confidence\": 0.5}]")
                               << 2 << QStringLiteral("medium");
        QTest::newRow("probability")
            << QStringLiteral(
                   "{\"agentId\": \"a\", \"task\": \"x\", \"confidence\": 0.9, \"extra\": 1}")
            << 1 << QStringLiteral("high");
        QTest::newRow("bad json") << QStringLiteral("{\"agentId\": ") << -1
                                  << QStringLiteral("not valid JSON");
        QTest::newRow("no target") << QStringLiteral("{\"task\": \"x\"}") << -1
                                   << QStringLiteral("'agentId' or 'agentName' is required");
        QTest::newRow("no task") << QStringLiteral("[{\"agentId\": \"a\", \"task\": \"x\"}, "
                                                   "{\"agentId\": \"a\"}]")
                                 << -1 << QStringLiteral("item 2: field 'task' is required");
        QTest::newRow("empty task") << QStringLiteral("{\"agentId\": \"a\", \"task\": \"  \"}")
                                    << -1 << QStringLiteral("must not be empty");
        QTest::newRow("task type") << QStringLiteral("{\"agentId\": \"a\", \"task\": 3}") << -1
                                   << QStringLiteral("'task' must be a string");
        QTest::newRow("confidence")
            << QStringLiteral("{\"agentId\": \"a\", \"task\": \"x\", \"confidence\": \"sure\"}")
            << -1 << QStringLiteral("high, medium or low");
        QTest::newRow("half a plan link")
            << QStringLiteral("{\"agentId\": \"a\", \"task\": \"x\", \"planId\": \"p\"}") << -1
            << QStringLiteral("go together");
        QTest::newRow("not an object")
            << QStringLiteral("[\"text\"]") << -1 << QStringLiteral("item 1 is not a JSON object");
        QTest::newRow("empty array") << QStringLiteral("[]") << -1 << QStringLiteral("empty");
    }

    void delegationBlocks() {
        QFETCH(QString, body);
        QFETCH(int, items);
        QFETCH(QString, expected);
        const auto parsed = boss::parseDelegationBlock(body);
        if (items < 0) {
            QVERIFY(!parsed);
            QVERIFY2(parsed.error().message.contains(expected), qPrintable(parsed.error().message));
            return;
        }
        QVERIFY2(parsed, qPrintable(parsed.error().message));
        QCOMPARE(parsed->size(), items);
        QCOMPARE(parsed->at(items - 1).confidence, expected);
    }

    // --- The flow with the real CLI ------------------------------------------------------------

    void delegationToSubordinateAndBackThroughReport() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        QCOMPARE(rig.agent(bossId).value(QStringLiteral("isBoss")).toBool(), true);

        rig.mock.queueText(delegationAnswer(
            QStringLiteral("agent-1 should take this."),
            QJsonObject{{QStringLiteral("agentName"), QStringLiteral("agent-1")},
                        {QStringLiteral("task"), QStringLiteral("Fix the login bug in auth.cpp")},
                        {QStringLiteral("reasoning"), QStringLiteral("it knows the code")},
                        {QStringLiteral("confidence"), QStringLiteral("high")}}));
        rig.mock.queueSlow(QStringLiteral("Looking at auth.cpp. The null check was missing."),
                           4000);                             // the subordinate's turn
        rig.mock.queueText(QStringLiteral("Thanks, noted.")); // the boss reads the report
        sendCommand(rig, bossId, QStringLiteral("Please fix the login bug"));

        const QJsonObject decision = waitPayload(*rig.ws, "delegation_decision");
        QCOMPARE(str(decision, "bossId"), bossId);
        QCOMPARE(str(decision, "command"), QStringLiteral("Please fix the login bug"));
        QCOMPARE(str(decision, "selectedAgentId"), rig.agentId);
        QCOMPARE(str(decision, "selectedAgentName"), QStringLiteral("agent-1"));
        QCOMPARE(str(decision, "reasoning"), QStringLiteral("it knows the code"));
        QCOMPARE(str(decision, "confidence"), QStringLiteral("high"));
        QCOMPARE(str(decision, "status"), QStringLiteral("sent"));
        QCOMPARE(QString::number(decision.value(QStringLiteral("timestamp")).toInteger()).size(),
                 13);
        const QString taskId = str(decision, "id");
        QVERIFY(!taskId.isEmpty());

        // The boss was told its team (name, id, class, status, task, context) and the format.
        const QString instructions = rig.mock.lastUserTextOf(0);
        for (const QString &part :
             {QStringLiteral("boss-1"), QStringLiteral("agent-1"), rig.agentId,
              QStringLiteral("class builder"), QStringLiteral("status idle"),
              QStringLiteral("current task: none"), QStringLiteral("context unused"),
              QStringLiteral("```delegation")})
            QVERIFY2(instructions.contains(part), qPrintable(part));
        QVERIFY(instructions.endsWith(QStringLiteral("Please fix the login bug")));

        const QJsonObject started = waitPayload(*rig.ws, "agent_task_started");
        QCOMPARE(str(started, "bossId"), bossId);
        QCOMPARE(str(started, "subordinateId"), rig.agentId);
        QCOMPARE(str(started, "taskId"), taskId);
        QCOMPARE(str(started, "task"), QStringLiteral("Fix the login bug in auth.cpp"));
        const QJsonObject out = waitPayload(*rig.ws, "agent_task_output");
        QCOMPARE(str(out, "bossId"), bossId);
        QCOMPARE(str(out, "subordinateId"), rig.agentId);
        QCOMPARE(out.value(QStringLiteral("isStreaming")).toBool(), true);
        QVERIFY(!str(out, "text").isEmpty());
        const QString received = rig.mock.lastUserTextOf(1);
        QVERIFY(received.contains(QStringLiteral("Fix the login bug in auth.cpp")));
        QVERIFY(received.contains(QStringLiteral("/api/agents/%1/report-task").arg(rig.agentId)));

        // The subordinate reports while its turn still runs.
        const HttpResponse r =
            reportTask(rig, rig.agentId, QStringLiteral("Added the missing null check"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("success")).toBool(), true);
        QCOMPARE(r.object().value(QStringLiteral("forwarded")).toBool(), true);
        QCOMPARE(str(r.object(), "bossId"), bossId);
        QCOMPARE(str(r.object(), "taskId"), taskId);
        const QJsonObject done = waitPayload(*rig.ws, "agent_task_completed");
        QCOMPARE(str(done, "bossId"), bossId);
        QCOMPARE(str(done, "subordinateId"), rig.agentId);
        QCOMPARE(done.value(QStringLiteral("success")).toBool(), true);
        QCOMPARE(str(done, "summary"), QStringLiteral("Added the missing null check"));
        QCOMPARE(str(done, "source"), QStringLiteral("report"));

        // The report is the boss's next message.
        QVERIFY(rig.waitTurns(2, 60000, bossId));
        QCOMPARE(rig.mock.requestCount(), 3);
        const QString report = rig.mock.lastUserTextOf(2);
        QVERIFY(report.startsWith(QStringLiteral("[Task report")) ||
                report.contains(QStringLiteral("[Task report")));
        QVERIFY(report.contains(QStringLiteral("Added the missing null check")));
        QVERIFY(report.contains(QStringLiteral("Status: COMPLETED")));
        QVERIFY(report.contains(QStringLiteral("Fix the login bug in auth.cpp")));

        // The subordinate's turn then ends: the task is not completed twice.
        QVERIFY(rig.waitTurns(1, 60000, rig.agentId));
        QTest::qWait(0);
        QCOMPARE(rig.ws->countOf(QStringLiteral("agent_task_completed")), 1);
        const QJsonObject updated = waitPayload(*rig.ws, "delegation_decision", 2);
        QCOMPARE(str(updated, "id"), taskId);
        QCOMPARE(str(updated, "status"), QStringLiteral("completed"));
        QCOMPARE(rig.mock.unscriptedRequests(), 0);
    }

    // A spawn block adds a member the same answer can delegate to; a bad item is reported alone.
    void bossSpawnsAndDelegatesToNewMember() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        const QJsonArray spawns{QJsonObject{{QStringLiteral("name"), QStringLiteral("helper")}},
                                QJsonObject{{QStringLiteral("name"), QStringLiteral("boss-2")},
                                            {QStringLiteral("class"), QStringLiteral("boss")}}};
        rig.mock.queueText(
            fenced("spawn", json(spawns)) +
            delegationAnswer(QString(),
                             QJsonObject{{QStringLiteral("agentName"), QStringLiteral("helper")},
                                         {QStringLiteral("task"), QStringLiteral("Help out")}}));
        rig.mock.queueText(QStringLiteral("Helped."));
        sendCommand(rig, bossId, QStringLiteral("Get a helper"));

        const QJsonObject spawned = waitPayload(*rig.ws, "boss_spawned_agent");
        QCOMPARE(str(spawned, "bossId"), bossId);
        const QJsonObject agent = spawned.value(QStringLiteral("agent")).toObject();
        QCOMPARE(str(agent, "name"), QStringLiteral("helper"));
        QCOMPARE(str(agent, "bossId"), bossId);
        QCOMPARE(str(agent, "cwd"), rig.cwd); // the boss's directory by default
        QCOMPARE(waitPayload(*rig.ws, "boss_subordinates_updated", 2, field("bossId", bossId))
                     .value(QStringLiteral("subordinateIds")),
                 QJsonValue(QJsonArray{rig.agentId, str(agent, "id")}));
        const QJsonObject done = waitPayload(*rig.ws, "agent_task_completed");
        QCOMPARE(str(done, "subordinateId"), str(agent, "id"));
        QCOMPARE(str(done, "summary"), QStringLiteral("Helped."));
        QCOMPARE(str(payloads(*rig.ws, "delegation_decision")[0], "selectedAgentName"),
                 QStringLiteral("helper"));
        QVERIFY(rig.streamedText(bossId).contains(
            QStringLiteral("Spawn error: boss-2: a boss cannot spawn another boss")));
        QCOMPARE(rig.ws->countOf(QStringLiteral("boss_spawned_agent")), 1);
    }

    void malformedBlocksDelegateNothing() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        rig.mock.queueText(fenced("delegation", QStringLiteral("{\"agentName\": \"agent-1\",")));
        rig.mock.queueText(fenced("delegation", QStringLiteral("{\"agentName\": \"nobody\", "
                                                               "\"task\": \"x\"}")));
        rig.mock.queueText(fenced("delegation", QStringLiteral("[{\"agentName\": \"agent-1\", "
                                                               "\"task\": \"ok\"}, "
                                                               "{\"agentName\": \"agent-1\"}]")));
        for (const char *c : {"one", "two", "three"})
            sendCommand(rig, bossId, QLatin1String(c));

        const auto isError = [](const QJsonObject &p) {
            return str(p, "text").startsWith(QStringLiteral("Delegation error:"));
        };
        const auto bossErrors = [&] {
            QList<QJsonObject> out;
            for (const QJsonObject &c : rig.chunks(bossId))
                if (isError(c))
                    out.append(c);
            return out;
        };
        QTRY_COMPARE_WITH_TIMEOUT(bossErrors().size(), 3, 90000);
        const QList<QJsonObject> errors = bossErrors();
        for (const QJsonObject &e : errors)
            QCOMPARE(e.value(QStringLiteral("isStreaming")).toBool(), false);
        QVERIFY2(str(errors[0], "text").contains(QStringLiteral("not valid JSON")),
                 qPrintable(str(errors[0], "text")));
        QVERIFY2(str(errors[1], "text")
                     .contains(QStringLiteral("no member of your team named "
                                              "'nobody'")),
                 qPrintable(str(errors[1], "text")));
        QVERIFY2(str(errors[2], "text").contains(QStringLiteral("item 2: field 'task'")),
                 qPrintable(str(errors[2], "text")));
        QVERIFY(rig.waitTurns(6, 30000, bossId)); // 3 turns + 3 error lines
        QCOMPARE(rig.ws->countOf(QStringLiteral("delegation_decision")), 0);
        QCOMPARE(rig.mock.requestCount(), 3); // the subordinate was never asked anything
    }

    void teamsAreAnnouncedAndPersisted() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString a1 = rig.agentId;
        const QString a2 = createAgent(rig, QStringLiteral("agent-2"));
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {});
        QVERIFY(!bossId.isEmpty());
        const auto ofBoss = field("bossId", bossId);
        QCOMPARE(waitPayload(*rig.ws, "boss_subordinates_updated", 1, ofBoss)
                     .value(QStringLiteral("subordinateIds")),
                 QJsonValue(QJsonArray{}));

        sendWs(*rig.ws, "assign_subordinates",
               QJsonObject{{QStringLiteral("bossId"), bossId},
                           {QStringLiteral("subordinateIds"), QJsonArray{a1, a2, a1}}});
        QCOMPARE(waitPayload(*rig.ws, "boss_subordinates_updated", 2, ofBoss, 5000)
                     .value(QStringLiteral("subordinateIds")),
                 QJsonValue(QJsonArray{a1, a2}));
        QCOMPARE(str(rig.agent(a1), "bossId"), bossId);

        sendWs(
            *rig.ws, "remove_subordinate",
            QJsonObject{{QStringLiteral("bossId"), bossId}, {QStringLiteral("subordinateId"), a1}});
        QCOMPARE(waitPayload(*rig.ws, "boss_subordinates_updated", 3, ofBoss, 5000)
                     .value(QStringLiteral("subordinateIds")),
                 QJsonValue(QJsonArray{a2}));
        QVERIFY(rig.agent(a1).value(QStringLiteral("bossId")).isNull());

        QVERIFY(rig.restartService());
        QJsonObject b = rig.agent(bossId);
        QCOMPARE(b.value(QStringLiteral("isBoss")).toBool(), true);
        QCOMPARE(b.value(QStringLiteral("subordinateIds")), QJsonValue(QJsonArray{a2}));
        QCOMPARE(str(rig.agent(a2), "bossId"), bossId);
        QVERIFY(rig.agent(a1).value(QStringLiteral("bossId")).isNull());

        // A second boss takes agent-2 over: both teams are announced.
        const QString boss2 = spawnBoss(rig, QStringLiteral("boss-2"), {a2});
        QVERIFY(!boss2.isEmpty());
        QCOMPARE(waitPayload(*rig.ws, "boss_subordinates_updated", 1, ofBoss, 5000)
                     .value(QStringLiteral("subordinateIds")),
                 QJsonValue(QJsonArray{}));
        QCOMPARE(str(rig.agent(a2), "bossId"), boss2);
        // Deleting a member updates its boss's team.
        QCOMPARE(rig.http.del(rig.svc->url(QStringLiteral("/api/agents/") + a2)).status, 204);
        QCOMPARE(waitPayload(*rig.ws, "boss_subordinates_updated", 2, field("bossId", boss2), 5000)
                     .value(QStringLiteral("subordinateIds")),
                 QJsonValue(QJsonArray{}));
    }

    void delegationHistoryNewestFirst() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        const QStringList tasks{QStringLiteral("Write the README"), QStringLiteral("Add tests")};
        for (int i = 0; i < 2; ++i) {
            // One command at a time: the boss and subordinate requests then come in a known order.
            rig.mock.queueText(delegationAnswer(
                QString(), QJsonObject{{QStringLiteral("agentId"), rig.agentId},
                                       {QStringLiteral("task"), tasks[i]},
                                       {QStringLiteral("confidence"), i == 0 ? 0.2 : 0.5}}));
            rig.mock.queueText(QStringLiteral("Done: ") + tasks[i]);
            sendCommand(rig, bossId, QStringLiteral("command %1").arg(i + 1));
            // No report: the end of the subordinate's turn completes the task.
            const QJsonObject done = waitPayload(*rig.ws, "agent_task_completed", i + 1);
            QCOMPARE(str(done, "source"), QStringLiteral("turn"));
            QCOMPARE(done.value(QStringLiteral("success")).toBool(), true);
            QCOMPARE(str(done, "summary"), QStringLiteral("Done: ") + tasks[i]);
        }
        const auto history = [&](int n) {
            sendWs(*rig.ws, "request_delegation_history",
                   QJsonObject{{QStringLiteral("bossId"), bossId}});
            return waitPayload(*rig.ws, "delegation_history", n, {}, 5000);
        };
        for (int round = 1; round <= 2; ++round) {
            const QJsonObject h = history(1);
            QCOMPARE(str(h, "bossId"), bossId);
            const QJsonArray decisions = h.value(QStringLiteral("decisions")).toArray();
            QCOMPARE(decisions.size(), 2);
            QCOMPARE(str(decisions[0].toObject(), "task"), tasks[1]);
            QCOMPARE(str(decisions[0].toObject(), "command"), QStringLiteral("command 2"));
            QCOMPARE(str(decisions[0].toObject(), "confidence"), QStringLiteral("medium"));
            QCOMPARE(str(decisions[1].toObject(), "task"), tasks[0]);
            QCOMPARE(str(decisions[1].toObject(), "confidence"), QStringLiteral("low"));
            for (const QJsonValue &d : decisions) {
                QCOMPARE(str(d.toObject(), "status"), QStringLiteral("completed"));
                QVERIFY(d.toObject().value(QStringLiteral("completedAt")).toInteger() > 0);
            }
            if (round == 1)
                QVERIFY(rig.restartService()); // persisted: the same answer after a restart
        }
        const HttpResponse one = rig.http.get(
            rig.svc->url(QStringLiteral("/api/agents/%1/delegations?limit=1").arg(bossId)));
        QCOMPARE(one.status, 200);
        QCOMPARE(
            str(one.object().value(QStringLiteral("decisions")).toArray()[0].toObject(), "task"),
            tasks[1]);
    }

    // --- Refusals ------------------------------------------------------------------------------

    void refusedMessages_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("payload"); // $boss, $agent and $cwd are substituted
        QTest::addColumn<QString>("code");
        const auto row = [](const char *name, const char *type, const char *payload,
                            const char *code) {
            QTest::newRow(name) << QString::fromLatin1(type) << QString::fromLatin1(payload)
                                << QString::fromLatin1(code);
        };
        row("spawn: no name", "spawn_boss_agent", "{\"cwd\": \"$cwd\"}", "missing_field");
        row("spawn: bad cwd", "spawn_boss_agent", "{\"name\": \"b\", \"cwd\": \"/nonexistent/x\"}",
            "invalid_value");
        row("spawn: ids type", "spawn_boss_agent",
            "{\"name\": \"b\", \"cwd\": \"$cwd\", \"subordinateIds\": \"$agent\"}", "wrong_type");
        row("spawn: unknown member", "spawn_boss_agent",
            "{\"name\": \"b\", \"cwd\": \"$cwd\", \"subordinateIds\": [\"ghost\"]}", "not_found");
        row("spawn: boss as member", "spawn_boss_agent",
            "{\"name\": \"b\", \"cwd\": \"$cwd\", \"subordinateIds\": [\"$boss\"]}",
            "invalid_value");
        row("spawn: name taken", "spawn_boss_agent", "{\"name\": \"agent-1\", \"cwd\": \"$cwd\"}",
            "conflict");
        row("assign: no ids", "assign_subordinates", "{\"bossId\": \"$boss\"}", "missing_field");
        row("assign: unknown boss", "assign_subordinates",
            "{\"bossId\": \"ghost\", \"subordinateIds\": [\"$agent\"]}", "not_found");
        row("assign: not a boss", "assign_subordinates",
            "{\"bossId\": \"$agent\", \"subordinateIds\": [\"$agent\"]}", "invalid_value");
        row("assign: itself", "assign_subordinates",
            "{\"bossId\": \"$boss\", \"subordinateIds\": [\"$boss\"]}", "invalid_value");
        row("assign: unknown member", "assign_subordinates",
            "{\"bossId\": \"$boss\", \"subordinateIds\": [\"$agent\", \"ghost\"]}", "not_found");
        row("assign: ids type", "assign_subordinates",
            "{\"bossId\": \"$boss\", \"subordinateIds\": [1]}", "wrong_type");
        row("assign: empty", "assign_subordinates",
            "{\"bossId\": \"$boss\", \"subordinateIds\": []}", "invalid_value");
        row("assign: bossId type", "assign_subordinates",
            "{\"bossId\": 7, \"subordinateIds\": [\"$agent\"]}", "wrong_type");
        row("remove: not a member", "remove_subordinate",
            "{\"bossId\": \"$boss\", \"subordinateId\": \"$agent\"}", "not_found");
        row("remove: no member", "remove_subordinate", "{\"bossId\": \"$boss\"}", "missing_field");
        row("command: unknown boss", "send_boss_command",
            "{\"bossId\": \"ghost\", \"command\": \"x\"}", "not_found");
        row("command: not a boss", "send_boss_command",
            "{\"bossId\": \"$agent\", \"command\": \"x\"}", "invalid_value");
        row("command: empty", "send_boss_command", "{\"bossId\": \"$boss\", \"command\": \" \"}",
            "invalid_value");
        row("command: type", "send_boss_command", "{\"bossId\": \"$boss\", \"command\": [1]}",
            "wrong_type");
        row("command: missing", "send_boss_command", "{\"bossId\": \"$boss\"}", "missing_field");
        row("history: unknown", "request_delegation_history", "{\"bossId\": \"ghost\"}",
            "not_found");
        row("history: limit", "request_delegation_history", "{\"bossId\": \"$boss\", \"limit\": 0}",
            "invalid_value");
    }

    void refusedMessages() {
        QFETCH(QString, type);
        QFETCH(QString, payload);
        QFETCH(QString, code);
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {});
        QVERIFY(!bossId.isEmpty());
        WsClient bystander;
        QVERIFY(bystander.open(rig.svc->wsUrl()));
        payload.replace(QStringLiteral("$boss"), bossId)
            .replace(QStringLiteral("$agent"), rig.agentId)
            .replace(QStringLiteral("$cwd"), rig.cwd);
        const QJsonObject body = QJsonDocument::fromJson(payload.toUtf8()).object();
        QVERIFY(!body.isEmpty());
        sendWs(*rig.ws, type.toLatin1().constData(), body);
        const QJsonObject error = waitError(*rig.ws, 1);
        QCOMPARE(str(error, "code"), code);
        QVERIFY(!str(error, "message").isEmpty());
        // Only the sender hears about it, and nothing changed.
        sendWs(bystander, "ping", {});
        QVERIFY(bystander.waitFor(QStringLiteral("pong")));
        QCOMPARE(bystander.countOf(QStringLiteral("error")), 0);
        QCOMPARE(rig.ws->countOf(QStringLiteral("boss_subordinates_updated")), 1);
        QCOMPARE(rig.agent(bossId).value(QStringLiteral("subordinateIds")),
                 QJsonValue(QJsonArray{}));
        QCOMPARE(rig.mock.requestCount(), 0);
    }

    void reportTaskRefusals_data() {
        QTest::addColumn<QString>("agent"); // "$agent" or an unknown id
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QString a = QStringLiteral("$agent");
        QTest::newRow("unknown agent")
            << QStringLiteral("ghost") << QByteArray("{\"summary\":\"s\",\"status\":\"completed\"}")
            << 404 << QStringLiteral("not_found");
        QTest::newRow("bad json") << a << QByteArray("{\"summary\":") << 400
                                  << QStringLiteral("bad_json");
        QTest::newRow("no summary") << a << QByteArray("{\"status\":\"completed\"}") << 400
                                    << QStringLiteral("missing_field");
        QTest::newRow("summary type") << a << QByteArray("{\"summary\":5,\"status\":\"failed\"}")
                                      << 400 << QStringLiteral("wrong_type");
        QTest::newRow("empty summary")
            << a << QByteArray("{\"summary\":\" \",\"status\":\"failed\"}") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("no status")
            << a << QByteArray("{\"summary\":\"s\"}") << 400 << QStringLiteral("missing_field");
        QTest::newRow("bad status") << a << QByteArray("{\"summary\":\"s\",\"status\":\"done\"}")
                                    << 422 << QStringLiteral("invalid_value");
    }

    void reportTaskRefusals() {
        QFETCH(QString, agent);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        AgentRig rig;
        QVERIFY(rig.start());
        const QString id = agent == QLatin1String("$agent") ? rig.agentId : agent;
        const HttpResponse r = rig.http.send(
            "POST", rig.svc->url(QStringLiteral("/api/agents/%1/report-task").arg(id)), body);
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
        QCOMPARE(rig.ws->countOf(QStringLiteral("agent_task_completed")), 0);
    }

    void reportWithoutBossIsNotForwarded() {
        AgentRig rig;
        QVERIFY(rig.start());
        const HttpResponse r = reportTask(rig, rig.agentId, QStringLiteral("done"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("success")).toBool(), true);
        QCOMPARE(r.object().value(QStringLiteral("forwarded")).toBool(), false);
        QVERIFY(r.object().value(QStringLiteral("bossId")).isNull());
        QVERIFY(!str(r.object(), "reason").isEmpty());
        QCOMPARE(rig.ws->countOf(QStringLiteral("agent_task_completed")), 0);
    }
};

QTEST_GUILESS_MAIN(TestBoss)
#include "tst_boss.moc"
