// Usage and budgets: each turn's usage as the CLI reported it, summed exactly into the
// agent's `usage` (Claude's cost from total_cost_usd, a running total per process), kept across a
// restart; GET /api/usage by agent, boss team and day, and its refusals; budgets on an agent and
// on a boss's team: the turn in progress finishes, further messages are refused with 409
// budget_exceeded, queued ones wait and run once the budget is raised; day budgets across
// midnight with an injected clock.

#include "agents/AgentRuntime.h"
#include "support/AgentRig.h"
#include "support/BossFixtures.h"
#include "usage/UsageService.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QJsonObject usageOf(const QJsonObject &agent) {
    return agent.value(QLatin1String("usage")).toObject();
}

qint64 num(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toInteger();
}

double cost(const QJsonObject &o) {
    return o.value(QLatin1String("costUsd")).toDouble();
}

// What the rig's model reports per call, and what one text turn then counts.
struct PerTurn {
    qint64 input;
    qint64 output;
    qint64 cacheRead;
};

PerTurn scriptUsage(AgentRig &rig) {
    if (rig.isCodex()) {
        rig.openai.setUsage(1000, 20, 400); // OpenAI's input includes the cached 400
        return {600, 20, 400};
    }
    rig.mock.setUsage(100, 20, 1000, 10); // Anthropic's leaves out cache reads and writes
    return {110, 20, 1000};
}

// Local noon of a fixed day, and moments around its midnight.
qint64 localTime(int day, int hour, int minute, int second = 0) {
    return QDateTime(QDate(2026, 11, day), QTime(hour, minute, second)).toMSecsSinceEpoch();
}

UsageTotals spent(qint64 input, qint64 output, double usd, qint64 cacheRead = 0) {
    UsageTotals u;
    u.turns = 1;
    u.inputTokens = input;
    u.outputTokens = output;
    u.cacheReadTokens = cacheRead;
    u.costUsd = usd;
    return u;
}

QJsonObject groupOf(const QJsonObject &report, const char *key, const QString &value) {
    for (const QJsonValue &g : report.value(QLatin1String("groups")).toArray()) {
        if (g.toObject().value(QLatin1String(key)).toString() == value)
            return g.toObject();
    }
    return {};
}
} // namespace

class TestUsageBudgets final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void usageIsSummedExactly_data() { addProviderRows(); }
    void usageIsSummedExactly() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        const PerTurn per = scriptUsage(rig);
        rig.model().queueText(QStringLiteral("one"));
        QCOMPARE(rig.send(QStringLiteral("first")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QJsonObject u = usageOf(rig.agent());
        QCOMPARE(num(u, "turns"), 1);
        QCOMPARE(num(u, "inputTokens"), per.input);
        QCOMPARE(num(u, "outputTokens"), per.output);
        QCOMPARE(num(u, "cacheReadTokens"), per.cacheRead);
        const double first = cost(u);
        if (rig.isCodex())
            QCOMPARE(first, 0.0); // Codex reports tokens only
        else
            QVERIFY2(first > 0, qPrintable(QString::number(first)));

        // A new process: Claude's total_cost_usd starts again at 0 there.
        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/stop"),
                          {{QStringLiteral("agentIds"), QJsonArray{rig.agentId}}})
                     .status,
                 200);
        QTRY_VERIFY_WITH_TIMEOUT(!rig.agent().value(QStringLiteral("isProcessRunning")).toBool(),
                                 10000);
        rig.model().queueText(QStringLiteral("two"));
        rig.model().queueText(QStringLiteral("three"));
        QCOMPARE(rig.send(QStringLiteral("second")).status, 200);
        QCOMPARE(rig.send(QStringLiteral("third")).status, 200);
        QVERIFY(rig.waitTurns(3)); // stopping an idle agent sends no final chunk
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QTRY_COMPARE(num(usageOf(rig.agent()), "turns"), 3);
        u = usageOf(rig.agent());
        QCOMPARE(num(u, "inputTokens"), 3 * per.input);
        QCOMPARE(num(u, "outputTokens"), 3 * per.output);
        QCOMPARE(num(u, "cacheReadTokens"), 3 * per.cacheRead);
        QVERIFY2(std::abs(cost(u) - 3 * first) < 1e-12,
                 qPrintable(QStringLiteral("%1 vs 3 x %2").arg(cost(u)).arg(first)));

        // The report says the same, and so does everything after a restart.
        const auto check = [&] {
            const QJsonObject report =
                rig.http.get(rig.svc->url(QStringLiteral("/api/usage?groupBy=agent"))).object();
            QJsonObject g = groupOf(report, "agentId", rig.agentId);
            QCOMPARE(g.value(QStringLiteral("agentName")).toString(), QStringLiteral("agent-1"));
            g.remove(QStringLiteral("agentId"));
            g.remove(QStringLiteral("agentName"));
            QCOMPARE(g, u);
            QCOMPARE(report.value(QStringLiteral("total")).toObject(), u);
            QCOMPARE(usageOf(rig.agent()), u);
        };
        check();
        QVERIFY(rig.restartService());
        check();
    }

    // A budget on the agent: the turn that reaches it finishes, the message queued behind it
    // waits, new ones are refused; raising the budget runs the queue.
    void agentBudgetHoldsTheQueue_data() { addProviderRows(); }
    void agentBudgetHoldsTheQueue() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        const PerTurn per = scriptUsage(rig);
        const qint64 perTurn = per.input + per.output; // what a tokens budget counts
        HttpResponse r = rig.http.patch(
            rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
            QJsonObject{{QStringLiteral("budget"),
                         QJsonObject{{QStringLiteral("tokens"), 2 * perTurn - 1},
                                     {QStringLiteral("period"), QStringLiteral("total")}}}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("budget")).toObject(),
                 (QJsonObject{{QStringLiteral("tokens"), 2 * perTurn - 1},
                              {QStringLiteral("period"), QStringLiteral("total")}}));

        rig.model().queueText(QStringLiteral("one"));
        QCOMPARE(rig.send(QStringLiteral("first")).status, 200);
        QVERIFY(rig.waitTurns(1));
        rig.model().queueText(QStringLiteral("two"), 3, 300);
        rig.model().queueText(QStringLiteral("three"));
        QCOMPARE(rig.send(QStringLiteral("second")).status, 200);
        r = rig.send(QStringLiteral("third"));
        QCOMPARE(r.status, 200);
        QVERIFY(r.object()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QLatin1String("queued")));

        // "second" reached it: the event, the agent's lastError, the notification; "third" held.
        QVERIFY(rig.ws->waitFor(QStringLiteral("budget_exceeded"), 1, 60000));
        const QJsonObject event = payloadOf(rig.ws->last(QStringLiteral("budget_exceeded")));
        QCOMPARE(str(event, "agentId"), rig.agentId);
        QCOMPARE(str(event, "scope"), QStringLiteral("agent"));
        QCOMPARE(str(event, "budgetOwnerId"), rig.agentId);
        QCOMPARE(num(event.value(QStringLiteral("used")).toObject(), "turns"), 2);
        QCOMPARE(rig.svc->app().runtime().heldAgents(), QStringList{rig.agentId});
        QCOMPARE(rig.model().requestCount(), 2);
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QVERIFY2(str(rig.agent(), "lastError").startsWith(QLatin1String("Budget reached: ")),
                 qPrintable(str(rig.agent(), "lastError")));
        const QJsonArray notes =
            rig.http.get(rig.svc->url(QStringLiteral("/api/notifications"))).array();
        QVERIFY(!notes.isEmpty());
        QCOMPARE(str(notes.at(0).toObject(), "title"), QStringLiteral("Budget reached: agent-1"));

        r = rig.send(QStringLiteral("fourth"));
        QCOMPARE(r.status, 409);
        QCOMPARE(str(r.object(), "code"), QStringLiteral("budget_exceeded"));
        QVERIFY(str(r.object(), "error").contains(QLatin1String("tokens")));

        // Raised: the held "third" runs, nothing else.
        r = rig.http.patch(
            rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
            QJsonObject{{QStringLiteral("budget"),
                         QJsonObject{{QStringLiteral("tokens"), 100 * perTurn},
                                     {QStringLiteral("period"), QStringLiteral("total")}}}});
        QCOMPARE(r.status, 200);
        QVERIFY(rig.waitTurns(3));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QVERIFY(rig.model().lastUserTextOf(2).endsWith(QStringLiteral("third")));
        QCOMPARE(rig.model().requestCount(), 3);
        QTRY_VERIFY(rig.agent().value(QStringLiteral("lastError")).isNull());
        QVERIFY(rig.svc->app().runtime().heldAgents().isEmpty());
    }

    // A boss's budget caps its whole team: any member's spending counts, every member (and the
    // boss) is refused, agents outside the team are not.
    void teamBudget() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString member = createAgent(rig, QStringLiteral("member"));
        const QString boss = spawnBoss(rig, QStringLiteral("lead"), {member});
        QVERIFY(!boss.isEmpty());
        HttpResponse r = rig.http.patch(
            rig.svc->url(QStringLiteral("/api/agents/") + boss),
            QJsonObject{{QStringLiteral("budget"),
                         QJsonObject{{QStringLiteral("costUsd"), 1.0},
                                     {QStringLiteral("period"), QStringLiteral("total")}}}});
        QCOMPARE(r.status, 200);
        UsageService &usage = rig.svc->app().usage();
        usage.record(member, spent(100, 10, 0.6));
        QCOMPARE(rig.ws->countOf(QStringLiteral("budget_exceeded")), 0);
        usage.record(boss, spent(100, 10, 0.5));
        QVERIFY(rig.ws->waitFor(QStringLiteral("budget_exceeded")));
        const QJsonObject event = payloadOf(rig.ws->last(QStringLiteral("budget_exceeded")));
        QCOMPARE(str(event, "scope"), QStringLiteral("team"));
        QCOMPARE(str(event, "budgetOwnerId"), boss);
        QCOMPARE(str(event, "agentId"), boss);
        QVERIFY(std::abs(cost(event.value(QStringLiteral("used")).toObject()) - 1.1) < 1e-9);
        QTRY_VERIFY(str(rig.agent(member), "lastError").startsWith(QLatin1String("Budget")));

        for (const QString &id : {member, boss}) {
            r = rig.send(QStringLiteral("go on"), id);
            QCOMPARE(r.status, 409);
            QCOMPARE(str(r.object(), "code"), QStringLiteral("budget_exceeded"));
            QVERIFY(str(r.object(), "error").contains(QLatin1String("team of 'lead'")));
        }
        // Outside the team: works as ever.
        rig.model().queueText(QStringLiteral("free"));
        QCOMPARE(rig.send(QStringLiteral("hello")).status, 200);
        QVERIFY(rig.waitTurns(1));

        const QJsonObject report =
            rig.http.get(rig.svc->url(QStringLiteral("/api/usage?groupBy=boss"))).object();
        const QJsonObject team = groupOf(report, "bossId", boss);
        QCOMPARE(team.value(QStringLiteral("agentIds")).toArray(), (QJsonArray{boss, member}));
        QCOMPARE(num(team, "turns"), 2);
        QCOMPARE(num(team, "inputTokens"), 200);

        // Raised: members work again, their budget errors are gone.
        r = rig.http.patch(
            rig.svc->url(QStringLiteral("/api/agents/") + boss),
            QJsonObject{{QStringLiteral("budget"),
                         QJsonObject{{QStringLiteral("costUsd"), 5.0},
                                     {QStringLiteral("period"), QStringLiteral("total")}}}});
        QCOMPARE(r.status, 200);
        QVERIFY(rig.agent(member).value(QStringLiteral("lastError")).isNull());
        rig.model().queueText(QStringLiteral("back at it"));
        QCOMPARE(rig.send(QStringLiteral("go on"), member).status, 200);
        QVERIFY(rig.waitTurns(1, 30000, member));
    }

    // A day budget counts the service's local day: refused at 23:59, accepted after midnight;
    // the report groups by those days.
    // A day budget reached before midnight holds the queue; the service's own midnight timer
    // (armed from the injected clock, re-armed while the day has not changed) runs it.
    void heldQueueRunsAtTheNextDay_data() { addProviderRows(); }
    void heldQueueRunsAtTheNextDay() {
        QFETCH(QString, provider);
        qint64 now = localTime(24, 23, 59, 58);
        AgentRig rig(provider, [&now](ServerConfig &c) { c.clock = [&now] { return now; }; });
        QVERIFY(rig.start());
        const PerTurn per = scriptUsage(rig);
        HttpResponse r = rig.http.patch(
            rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
            QJsonObject{{QStringLiteral("budget"),
                         QJsonObject{{QStringLiteral("tokens"), 2 * (per.input + per.output) - 1},
                                     {QStringLiteral("period"), QStringLiteral("day")}}}});
        QCOMPARE(r.status, 200);
        rig.model().queueText(QStringLiteral("one"));
        QCOMPARE(rig.send(QStringLiteral("first")).status, 200);
        QVERIFY(rig.waitTurns(1));
        rig.model().queueText(QStringLiteral("two"), 3, 300);
        rig.model().queueText(QStringLiteral("three"));
        QCOMPARE(rig.send(QStringLiteral("second")).status, 200);
        QCOMPARE(rig.send(QStringLiteral("third")).status, 200); // queued behind "second"
        QVERIFY(rig.ws->waitFor(QStringLiteral("budget_exceeded"), 1, 60000));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QCOMPARE(rig.svc->app().runtime().heldAgents(), QStringList{rig.agentId});
        QCOMPARE(rig.send(QStringLiteral("fourth")).status, 409);
        // The day timer fires (about every 2 s while the clock stays before midnight) and
        // reconsiders the budgets: still held.
        QSignalSpy fired(&rig.svc->app().usage(), &UsageService::budgetsChanged);
        QVERIFY(fired.wait(5000));
        QCOMPARE(rig.model().requestCount(), 2);
        QCOMPARE(rig.svc->app().runtime().heldAgents(), QStringList{rig.agentId});

        now = localTime(25, 0, 0, 1); // the next local day: no request, no PATCH
        QVERIFY(rig.waitTurns(3));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QVERIFY(rig.model().lastUserTextOf(2).endsWith(QStringLiteral("third")));
        QVERIFY(rig.svc->app().runtime().heldAgents().isEmpty());
        QCOMPARE(str(rig.agent(), "lastError"), QString());
    }

    void dayBudgetAcrossMidnight() {
        qint64 now = localTime(24, 23, 59);
        AgentRig rig([&now](ServerConfig &c) { c.clock = [&now] { return now; }; });
        QVERIFY(rig.start());
        HttpResponse r = rig.http.patch(
            rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
            QJsonObject{{QStringLiteral("budget"),
                         QJsonObject{{QStringLiteral("costUsd"), 1.0},
                                     {QStringLiteral("period"), QStringLiteral("day")}}}});
        QCOMPARE(r.status, 200);
        rig.svc->app().usage().record(rig.agentId, spent(50, 5, 1.25));
        r = rig.send(QStringLiteral("one more today"));
        QCOMPARE(r.status, 409);
        QVERIFY(str(r.object(), "error").contains(QLatin1String("today")));

        now = localTime(25, 0, 0, 30);
        rig.model().queueText(QStringLiteral("good morning"));
        QCOMPARE(rig.send(QStringLiteral("a new day")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));

        const QJsonObject days =
            rig.http.get(rig.svc->url(QStringLiteral("/api/usage?groupBy=day"))).object();
        const QJsonArray groups = days.value(QStringLiteral("groups")).toArray();
        QCOMPARE(groups.size(), 2);
        QCOMPARE(str(groups.at(0).toObject(), "day"), QStringLiteral("2026-11-24"));
        QCOMPARE(cost(groups.at(0).toObject()), 1.25);
        QCOMPARE(str(groups.at(1).toObject(), "day"), QStringLiteral("2026-11-25"));
        QCOMPARE(num(groups.at(1).toObject(), "turns"), 1);

        // The same cap over the total is still reached.
        r = rig.http.patch(
            rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
            QJsonObject{{QStringLiteral("budget"),
                         QJsonObject{{QStringLiteral("costUsd"), 1.0},
                                     {QStringLiteral("period"), QStringLiteral("total")}}}});
        QCOMPARE(r.status, 200);
        QCOMPARE(rig.send(QStringLiteral("more")).status, 409);
    }

    // GET /api/usage by agent, boss and day, bounded by ms or by dates.
    void usageReport() {
        qint64 now = localTime(10, 9, 0);
        AgentRig rig([&now](ServerConfig &c) { c.clock = [&now] { return now; }; });
        QVERIFY(rig.start());
        const QString a2 = createAgent(rig, QStringLiteral("a2"));
        const QString a3 = createAgent(rig, QStringLiteral("a3"));
        const QString boss = spawnBoss(rig, QStringLiteral("lead"), {rig.agentId, a2});
        QVERIFY(!boss.isEmpty());
        UsageService &usage = rig.svc->app().usage();
        usage.record(rig.agentId, spent(10, 1, 0.25, 100));
        usage.record(a3, spent(20, 2, 0.5));
        now = localTime(11, 9, 0);
        usage.record(a2, spent(30, 3, 0.125));
        usage.record(rig.agentId, spent(40, 4, 0.0625));
        const qint64 secondDay = now;

        auto get = [&](const QString &query) {
            return rig.http.get(rig.svc->url(QStringLiteral("/api/usage") + query)).object();
        };
        QJsonObject report = get(QStringLiteral("?groupBy=agent"));
        QCOMPARE(str(report, "groupBy"), QStringLiteral("agent"));
        QVERIFY(report.value(QStringLiteral("from")).isNull());
        QCOMPARE(num(report.value(QStringLiteral("total")).toObject(), "turns"), 4);
        QCOMPARE(num(report.value(QStringLiteral("total")).toObject(), "inputTokens"), 100);
        QCOMPARE(cost(report.value(QStringLiteral("total")).toObject()), 0.9375);
        QCOMPARE(report.value(QStringLiteral("groups")).toArray().size(), 4); // every agent
        QJsonObject g = groupOf(report, "agentId", rig.agentId);
        QCOMPARE(num(g, "turns"), 2);
        QCOMPARE(num(g, "inputTokens"), 50);
        QCOMPARE(num(g, "cacheReadTokens"), 100);
        QCOMPARE(cost(g), 0.3125);
        QCOMPARE(num(groupOf(report, "agentId", boss), "turns"), 0);

        report = get(QStringLiteral("?groupBy=boss"));
        QCOMPARE(report.value(QStringLiteral("groups")).toArray().size(), 1);
        g = groupOf(report, "bossId", boss);
        QCOMPARE(str(g, "bossName"), QStringLiteral("lead"));
        QCOMPARE(num(g, "turns"), 3);
        QCOMPARE(cost(g), 0.4375);

        report = get(QStringLiteral("?groupBy=day"));
        QCOMPARE(str(report.value(QStringLiteral("groups")).toArray().at(0).toObject(), "day"),
                 QStringLiteral("2026-11-10"));
        QCOMPARE(num(groupOf(report, "day", QStringLiteral("2026-11-11")), "turns"), 2);

        // Dates are whole local days; milliseconds are [from, to).
        report = get(QStringLiteral("?groupBy=day&from=2026-11-11"));
        QCOMPARE(num(report.value(QStringLiteral("total")).toObject(), "turns"), 2);
        QCOMPARE(report.value(QStringLiteral("from")).toInteger(), localTime(11, 0, 0));
        report = get(QStringLiteral("?from=2026-11-10&to=2026-11-10"));
        QCOMPARE(num(report.value(QStringLiteral("total")).toObject(), "turns"), 2);
        QCOMPARE(report.value(QStringLiteral("to")).toInteger(), localTime(11, 0, 0));
        report =
            get(QStringLiteral("?groupBy=day&from=%1&to=%2").arg(secondDay).arg(secondDay + 1));
        QCOMPARE(num(report.value(QStringLiteral("total")).toObject(), "turns"), 2);
        report = get(QStringLiteral("?groupBy=day&to=%1").arg(secondDay));
        QCOMPARE(num(report.value(QStringLiteral("total")).toObject(), "turns"), 2);

        // A deleted agent's usage stays in the record.
        QCOMPARE(rig.http.del(rig.svc->url(QStringLiteral("/api/agents/") + a3)).status, 204);
        g = groupOf(get(QStringLiteral("?groupBy=agent")), "agentId", a3);
        QCOMPARE(str(g, "agentName"), QStringLiteral("a3"));
        QCOMPARE(g.value(QStringLiteral("deleted")).toBool(), true);
        QCOMPARE(num(g, "turns"), 1);
    }

    void usageReportRefusals_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("groupBy unknown")
            << QStringLiteral("?groupBy=week") << 422 << QStringLiteral("invalid_value");
        QTest::newRow("from not a time")
            << QStringLiteral("?from=yesterday") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("no such date")
            << QStringLiteral("?to=2026-13-01") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("from after to")
            << QStringLiteral("?from=2000&to=1000") << 422 << QStringLiteral("invalid_value");
    }
    void usageReportRefusals() {
        QFETCH(QString, query);
        QFETCH(int, status);
        QFETCH(QString, code);
        TestService svc;
        QVERIFY(svc.start());
        HttpClient http;
        const HttpResponse r = http.get(svc.url(QStringLiteral("/api/usage") + query));
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
    }

    void budgetRefusals_data() {
        QTest::addColumn<QJsonValue>("budget");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const auto b = [](std::initializer_list<QPair<QString, QJsonValue>> fields) {
            QJsonObject o;
            for (const auto &f : fields)
                o.insert(f.first, f.second);
            return QJsonValue(o);
        };
        const QString period = QStringLiteral("period");
        const QJsonValue total(QStringLiteral("total"));
        QTest::newRow("not an object") << QJsonValue(5) << 400 << QStringLiteral("wrong_type");
        QTest::newRow("no period")
            << b({{QStringLiteral("tokens"), 5}}) << 400 << QStringLiteral("missing_field");
        QTest::newRow("period week")
            << b({{QStringLiteral("tokens"), 5}, {period, QStringLiteral("week")}}) << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("no cap") << b({{period, total}}) << 422 << QStringLiteral("invalid_value");
        QTest::newRow("cost text")
            << b({{QStringLiteral("costUsd"), QStringLiteral("5")}, {period, total}}) << 400
            << QStringLiteral("wrong_type");
        QTest::newRow("cost negative") << b({{QStringLiteral("costUsd"), -1}, {period, total}})
                                       << 422 << QStringLiteral("invalid_value");
        QTest::newRow("tokens fraction") << b({{QStringLiteral("tokens"), 1.5}, {period, total}})
                                         << 422 << QStringLiteral("invalid_value");
        QTest::newRow("unknown key")
            << b({{QStringLiteral("tokens"), 5}, {period, total}, {QStringLiteral("usd"), 1}})
            << 422 << QStringLiteral("unknown_field");
    }
    void budgetRefusals() {
        QFETCH(QJsonValue, budget);
        QFETCH(int, status);
        QFETCH(QString, code);
        TestService svc;
        QVERIFY(svc.start());
        HttpClient http;
        HttpResponse r = http.post(svc.url(QStringLiteral("/api/agents")),
                                   QJsonObject{{QStringLiteral("name"), QStringLiteral("a")},
                                               {QStringLiteral("cwd"), svc.workDir()},
                                               {QStringLiteral("budget"), budget}});
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
        // Accepted shapes, for contrast: on create, then cleared with null.
        r = http.post(
            svc.url(QStringLiteral("/api/agents")),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("b")},
                        {QStringLiteral("cwd"), svc.workDir()},
                        {QStringLiteral("budget"),
                         QJsonObject{{QStringLiteral("costUsd"), 2.5},
                                     {QStringLiteral("tokens"), 1000},
                                     {QStringLiteral("period"), QStringLiteral("day")}}}});
        QCOMPARE(r.status, 201);
        QCOMPARE(
            r.object().value(QStringLiteral("budget")).toObject().value(QStringLiteral("period")),
            QJsonValue(QStringLiteral("day")));
        QCOMPARE(usageOf(r.object()), (QJsonObject{{QStringLiteral("turns"), 0},
                                                   {QStringLiteral("inputTokens"), 0},
                                                   {QStringLiteral("outputTokens"), 0},
                                                   {QStringLiteral("cacheReadTokens"), 0},
                                                   {QStringLiteral("costUsd"), 0}}));
        const QString id = str(r.object(), "id");
        r = http.patch(svc.url(QStringLiteral("/api/agents/") + id),
                       QJsonObject{{QStringLiteral("budget"), budget}});
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
        r = http.patch(svc.url(QStringLiteral("/api/agents/") + id),
                       QJsonObject{{QStringLiteral("budget"), QJsonValue()}});
        QCOMPARE(r.status, 200);
        QVERIFY(r.object().value(QStringLiteral("budget")).isNull());
    }
};

QTEST_GUILESS_MAIN(TestUsageBudgets)
#include "tst_usage_budgets.moc"
