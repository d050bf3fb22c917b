// Work plans end to end with the real Claude Code CLI and the scripted model: a boss proposes a
// plan, a client approves it, its tasks are delegated and completed through report-task or the
// end of the subordinate's turn; cancel, delete, refusals, and the plans after a restart. Plus
// fenced block extraction and the work-plan block parser on their own.

#include "boss/BlockParser.h"
#include "support/BossFixtures.h"

#include <QStandardPaths>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QJsonObject task(const QString &description, const char *targetKey = nullptr,
                 const QString &target = {}) {
    QJsonObject t{{QStringLiteral("description"), description}};
    if (targetKey)
        t.insert(QLatin1String(targetKey), target);
    return t;
}

QString planAnswer(const QString &title, const QJsonArray &tasks) {
    return QStringLiteral("Proposed plan:\n") +
           fenced("work-plan", json(QJsonObject{{QStringLiteral("title"), title},
                                                {QStringLiteral("tasks"), tasks}}));
}

QJsonObject taskOf(const QJsonObject &plan, int i) {
    return plan.value(QStringLiteral("tasks")).toArray().at(i).toObject();
}

void planMessage(AgentRig &rig, const char *type, const QString &planId) {
    sendWs(*rig.ws, type, QJsonObject{{QStringLiteral("planId"), planId}});
}
} // namespace

class TestWorkPlans final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void extractsOnlyOurBlocks() {
        const QString text = QStringLiteral(
            "Plan:\n```json\n{\"ignored\": true}\n```\n```Delegation\n{\"agentId\": \"a\", "
            "\"task\": \"t\"}\n```\ntext\n```spawn {\"name\": \"n\"}```\n```work-plan\n{\"title\"");
        const auto blocks =
            boss::extractBlocks(text, {QStringLiteral("delegation"), QStringLiteral("spawn"),
                                       QStringLiteral("work-plan")});
        QCOMPARE(blocks.size(), 3);
        QCOMPARE(blocks[0].tag, QStringLiteral("delegation"));
        QCOMPARE(blocks[0].line, 5);
        QCOMPARE(blocks[0].body.trimmed(), QStringLiteral("{\"agentId\": \"a\", \"task\": \"t\"}"));
        QCOMPARE(blocks[1].tag, QStringLiteral("spawn"));
        QCOMPARE(blocks[1].body, QStringLiteral("{\"name\": \"n\"}"));
        QCOMPARE(blocks[2].closed, false); // cut off: still handed over, the JSON decides
    }

    void workPlanBlocks_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<int>("tasks"); // -1: refused
        QTest::addColumn<QString>("error");
        QTest::newRow("assigned and not")
            << QStringLiteral("{\"title\": \"T\", \"description\": \"d\", \"tasks\": "
                              "[{\"description\": \"a\", "
                              "\"agentName\": \"x\"}, {\"description\": \"b\"}]}")
            << 2 << QString();
        QTest::newRow("no title") << QStringLiteral("{\"tasks\": [{\"description\": \"a\"}]}") << -1
                                  << QStringLiteral("field 'title' is required");
        QTest::newRow("no tasks") << QStringLiteral("{\"title\": \"T\"}") << -1
                                  << QStringLiteral("field 'tasks' is required");
        QTest::newRow("tasks type") << QStringLiteral("{\"title\": \"T\", \"tasks\": {}}") << -1
                                    << QStringLiteral("must be an array");
        QTest::newRow("empty tasks") << QStringLiteral("{\"title\": \"T\", \"tasks\": []}") << -1
                                     << QStringLiteral("1 to 50 tasks");
        QTest::newRow("task text")
            << QStringLiteral("{\"title\": \"T\", \"tasks\": [{\"description\": \"a\"}, "
                              "{\"agentId\": \"x\"}]}")
            << -1 << QStringLiteral("task 2: field 'description'");
        QTest::newRow("array") << QStringLiteral("[{\"title\": \"T\"}]") << -1
                               << QStringLiteral("JSON object");
    }

    void workPlanBlocks() {
        QFETCH(QString, body);
        QFETCH(int, tasks);
        QFETCH(QString, error);
        const auto plan = boss::parseWorkPlanBlock(body);
        if (tasks < 0) {
            QVERIFY(!plan);
            QVERIFY2(plan.error().message.contains(error), qPrintable(plan.error().message));
            return;
        }
        QVERIFY2(plan, qPrintable(plan.error().message));
        QCOMPARE(plan->tasks.size(), tasks);
        QCOMPARE(plan->tasks[0].agentName, QStringLiteral("x"));
        QVERIFY(plan->tasks[1].agentId.isEmpty() && plan->tasks[1].agentName.isEmpty());
    }

    void planFromProposalToCompletion() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString a1 = rig.agentId;
        const QString a2 = createAgent(rig, QStringLiteral("agent-2"));
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {a1, a2});
        QVERIFY(!bossId.isEmpty());
        rig.mock.queueText(
            planAnswer(QStringLiteral("Ship v2"),
                       QJsonArray{task(QStringLiteral("Write the changelog"), "agentName",
                                       QStringLiteral("AGENT-1")),
                                  task(QStringLiteral("Tag the release"), "agentId", a2)}));
        sendCommand(rig, bossId, QStringLiteral("Plan the v2 release"));

        const QJsonObject plan = waitPayload(*rig.ws, "work_plan_created");
        const QString planId = str(plan, "id");
        QVERIFY(!planId.isEmpty());
        QCOMPARE(str(plan, "bossId"), bossId);
        QCOMPARE(str(plan, "title"), QStringLiteral("Ship v2"));
        QCOMPARE(str(plan, "status"), QStringLiteral("proposed"));
        QCOMPARE(str(taskOf(plan, 0), "id"), QStringLiteral("t1"));
        QCOMPARE(str(taskOf(plan, 0), "agentId"), a1);
        QCOMPARE(str(taskOf(plan, 0), "agentName"), QStringLiteral("agent-1"));
        QCOMPARE(str(taskOf(plan, 1), "agentId"), a2);
        QCOMPARE(str(taskOf(plan, 1), "status"), QStringLiteral("pending"));
        const HttpResponse listed = rig.http.get(rig.svc->url(QStringLiteral("/api/work-plans")));
        QCOMPARE(listed.status, 200);
        QCOMPARE(
            str(listed.object().value(QStringLiteral("workPlans")).toArray()[0].toObject(), "id"),
            planId);

        // Both subordinates work until they report; then the boss reads each report.
        rig.mock.queueHang();
        rig.mock.queueHang();
        rig.mock.queueText(QStringLiteral("Noted the changelog."));
        rig.mock.queueText(QStringLiteral("Noted the tag."));
        planMessage(rig, "approve_work_plan", planId);
        const auto ofPlan = field("id", planId);
        QCOMPARE(str(waitPayload(*rig.ws, "work_plan_updated", 1, ofPlan, 5000), "status"),
                 QStringLiteral("executing"));
        QVERIFY(!waitPayload(*rig.ws, "agent_task_started", 2).isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(rig.mock.requestCount(), 3, 60000); // both hang in the model
        const QList<QJsonObject> decisions = payloads(*rig.ws, "delegation_decision");
        QCOMPARE(decisions.size(), 2);
        QHash<QString, QString> delegationOf; // plan task -> delegation
        for (const QJsonObject &d : decisions) {
            QCOMPARE(str(d, "planId"), planId);
            QCOMPARE(str(d, "bossId"), bossId);
            delegationOf.insert(str(d, "planTaskId"), str(d, "id"));
        }
        QCOMPARE(str(decisions[0], "selectedAgentId"), a1);
        QCOMPARE(str(decisions[0], "task"), QStringLiteral("Write the changelog"));
        QJsonObject current =
            rig.http.get(rig.svc->url(QStringLiteral("/api/work-plans/") + planId)).object();
        QCOMPARE(str(taskOf(current, 0), "status"), QStringLiteral("in_progress"));
        QCOMPARE(str(taskOf(current, 1), "delegationId"), delegationOf.value(QStringLiteral("t2")));

        HttpResponse r = reportTask(rig, a1, QStringLiteral("Changelog written"));
        QCOMPARE(r.status, 200);
        QCOMPARE(str(r.object(), "taskId"), delegationOf.value(QStringLiteral("t1")));
        current = rig.http.get(rig.svc->url(QStringLiteral("/api/work-plans/") + planId)).object();
        QCOMPARE(str(taskOf(current, 0), "status"), QStringLiteral("completed"));
        QCOMPARE(str(taskOf(current, 0), "summary"), QStringLiteral("Changelog written"));
        QCOMPARE(str(current, "status"), QStringLiteral("executing"));

        r = reportTask(rig, a2, QStringLiteral("Tagged v2.0.0"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("forwarded")).toBool(), true);
        const QJsonObject finished = waitPayload(
            *rig.ws, "work_plan_updated", 1,
            [&](const QJsonObject &p) {
                return ofPlan(p) && str(p, "status") == QLatin1String("completed");
            },
            5000);
        QCOMPARE(str(taskOf(finished, 1), "status"), QStringLiteral("completed"));
        QCOMPARE(str(taskOf(finished, 1), "summary"), QStringLiteral("Tagged v2.0.0"));
        // Both reports reached the boss, in order.
        QVERIFY(rig.waitTurns(3, 60000, bossId));
        QVERIFY(rig.mock.lastUserTextOf(3).contains(QStringLiteral("Changelog written")));
        QVERIFY(rig.mock.lastUserTextOf(4).contains(QStringLiteral("Tagged v2.0.0")));
    }

    // A task without an agent: on approval the boss is asked to assign it, and the end of the
    // subordinate's turn completes it.
    void bossAssignsOpenTasksOnApproval() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        rig.mock.queueText(planAnswer(QStringLiteral("Docs"),
                                      QJsonArray{task(QStringLiteral("Document the API"))}));
        sendCommand(rig, bossId, QStringLiteral("Plan the docs"));
        const QString planId = str(waitPayload(*rig.ws, "work_plan_created"), "id");
        QVERIFY(!planId.isEmpty());

        rig.mock.queueText(fenced(
            "delegation", json(QJsonObject{{QStringLiteral("agentName"), QStringLiteral("agent-1")},
                                           {QStringLiteral("task"), QStringLiteral("Document it")},
                                           {QStringLiteral("planId"), planId},
                                           {QStringLiteral("planTaskId"), QStringLiteral("t1")}})));
        rig.mock.queueText(QStringLiteral("API documented."));
        planMessage(rig, "approve_work_plan", planId);
        const QJsonObject done =
            waitPayload(*rig.ws, "work_plan_updated", 1, [&](const QJsonObject &p) {
                return str(p, "status") == QLatin1String("completed");
            });
        QCOMPARE(str(taskOf(done, 0), "agentId"), rig.agentId);
        QCOMPARE(str(taskOf(done, 0), "summary"), QStringLiteral("API documented."));
        const QString asked = rig.mock.lastUserTextOf(1);
        QVERIFY(asked.contains(QStringLiteral("[Work plan")));
        QVERIFY(asked.contains(QStringLiteral("t1: Document the API")));
        QVERIFY(asked.contains(planId));
        QCOMPARE(str(waitPayload(*rig.ws, "agent_task_completed"), "source"),
                 QStringLiteral("turn"));
    }

    void cancelDeleteAndRefusals() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        rig.mock.queueText(planAnswer(QStringLiteral("Refactor"),
                                      QJsonArray{task(QStringLiteral("Split the parser"),
                                                      "agentName", QStringLiteral("agent-1"))}));
        rig.mock.queueText(planAnswer(
            QStringLiteral("Bad"),
            QJsonArray{task(QStringLiteral("x"), "agentName", QStringLiteral("nobody"))}));
        sendCommand(rig, bossId, QStringLiteral("Plan a refactor"));
        sendCommand(rig, bossId, QStringLiteral("Plan something odd"));
        const QString planId = str(waitPayload(*rig.ws, "work_plan_created"), "id");
        QVERIFY(!planId.isEmpty());
        // A plan naming someone outside the team is refused as a whole.
        QVERIFY(rig.waitTurns(3, 60000, bossId));
        QVERIFY(rig.streamedText(bossId).contains(
            QStringLiteral("Work plan error: task 1: no member of your team named 'nobody'")));
        QCOMPARE(rig.ws->countOf(QStringLiteral("work_plan_created")), 1);

        planMessage(rig, "cancel_work_plan", planId);
        const QJsonObject cancelled =
            waitPayload(*rig.ws, "work_plan_updated", 1, field("id", planId));
        QCOMPARE(str(cancelled, "status"), QStringLiteral("cancelled"));
        QCOMPARE(str(taskOf(cancelled, 0), "status"), QStringLiteral("cancelled"));

        int errors = 0;
        const auto refused = [&](const char *type, const QJsonObject &payload, const char *code) {
            sendWs(*rig.ws, type, payload);
            return str(waitError(*rig.ws, ++errors), "code") == QLatin1String(code);
        };
        const QJsonObject thePlan{{QStringLiteral("planId"), planId}};
        const QJsonObject ghost{{QStringLiteral("planId"), QStringLiteral("ghost")}};
        QVERIFY(refused("approve_work_plan", thePlan, "conflict"));
        QVERIFY(refused("cancel_work_plan", thePlan, "conflict"));
        QVERIFY(refused("approve_work_plan", ghost, "not_found"));
        QVERIFY(refused("cancel_work_plan", ghost, "not_found"));
        QVERIFY(refused("approve_work_plan", QJsonObject{}, "missing_field"));
        QVERIFY(
            refused("cancel_work_plan", QJsonObject{{QStringLiteral("planId"), 3}}, "wrong_type"));
        QCOMPARE(rig.ws->countOf(QStringLiteral("delegation_decision")), 0);

        const QUrl url = rig.svc->url(QStringLiteral("/api/work-plans/") + planId);
        QCOMPARE(rig.http.del(url).status, 204);
        QCOMPARE(str(waitPayload(*rig.ws, "work_plan_deleted"), "id"), planId);
        QCOMPARE(rig.http.get(url).status, 404);
        QCOMPARE(str(rig.http.del(url).object(), "code"), QStringLiteral("not_found"));
        QCOMPARE(rig.http.get(rig.svc->url(QStringLiteral("/api/work-plans")))
                     .object()
                     .value(QStringLiteral("workPlans"))
                     .toArray()
                     .size(),
                 0);
    }

    // Plans are persisted: after a restart the on-connect sync carries them; a plan whose task was
    // running when the service stopped ends failed (the turn died with the service).
    void plansAfterRestart() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        rig.mock.queueText(
            planAnswer(QStringLiteral("Later"),
                       QJsonArray{task(QStringLiteral("Not yet"), "agentId", rig.agentId)}) +
            fenced("work-plan", json(QJsonObject{{QStringLiteral("title"), QStringLiteral("Now")},
                                                 {QStringLiteral("tasks"),
                                                  QJsonArray{task(QStringLiteral("Run it"),
                                                                  "agentId", rig.agentId)}}})));
        rig.mock.queueHang();
        sendCommand(rig, bossId, QStringLiteral("Two plans please"));
        QVERIFY(!waitPayload(*rig.ws, "work_plan_created", 2).isEmpty());
        const QString later = str(payloads(*rig.ws, "work_plan_created")[0], "id");
        const QString now = str(payloads(*rig.ws, "work_plan_created")[1], "id");
        planMessage(rig, "approve_work_plan", now);
        QTRY_COMPARE_WITH_TIMEOUT(rig.mock.requestCount(), 2, 60000);

        QVERIFY(rig.restartService());
        const QJsonArray synced = rig.ws->last(QStringLiteral("work_plans_update"))
                                      .value(QStringLiteral("payload"))
                                      .toArray();
        QCOMPARE(synced.size(), 2);
        QHash<QString, QJsonObject> byId;
        for (const QJsonValue &v : synced)
            byId.insert(str(v.toObject(), "id"), v.toObject());
        QCOMPARE(str(byId.value(later), "status"), QStringLiteral("proposed"));
        QCOMPARE(str(byId.value(now), "status"), QStringLiteral("failed"));
        QCOMPARE(str(taskOf(byId.value(now), 0), "status"), QStringLiteral("failed"));
        QVERIFY(str(taskOf(byId.value(now), 0), "summary").contains(QStringLiteral("stopped")));
        QVERIFY(synced[0].toObject().value(QStringLiteral("createdAt")).toInteger() >=
                synced[1].toObject().value(QStringLiteral("createdAt")).toInteger());
        // The proposed one can still be approved after the restart.
        rig.mock.queueText(QStringLiteral("Done later."));
        planMessage(rig, "approve_work_plan", later);
        const QJsonObject done =
            waitPayload(*rig.ws, "work_plan_updated", 1, [&](const QJsonObject &p) {
                return str(p, "id") == later && str(p, "status") != QLatin1String("executing");
            });
        QVERIFY2(str(done, "status") == QLatin1String("completed"),
                 qPrintable(str(taskOf(done, 0), "summary")));
    }
};

QTEST_GUILESS_MAIN(TestWorkPlans)
#include "tst_work_plans.moc"
