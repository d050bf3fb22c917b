// Boss delegation across providers, with both real CLIs against their scripted mocks in one
// service: a Claude boss spawns a Codex member and delegates to it, and a Codex boss delegates to
// a Claude subordinate. The team instructions, the task, the streamed task output, the task's end
// (from the subordinate's turn) and the report back to the boss are the same whichever CLI plays
// which part.

#include "support/BossFixtures.h"
#include "support/MockOpenAI.h"

#include <QStandardPaths>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QString delegation(const QJsonObject &block) {
    return QStringLiteral("On it.\n") + fenced("delegation", json(block));
}
} // namespace

class TestBossCodex final : public QObject {
    Q_OBJECT

    MockOpenAI *m_openai = nullptr;
    std::unique_ptr<AgentRig> m_rig;

    // The rig's Claude environment plus what the Codex CLI needs to reach its mock: the same
    // HOME (config.toml written there), a TMPDIR outside /tmp and a key.
    bool start() {
        m_rig = std::make_unique<AgentRig>([this](ServerConfig &c) {
            const QString home = c.agentEnvironment.value(QStringLiteral("HOME"));
            const QProcessEnvironment codex = m_openai->codexEnvironment(home);
            for (const char *key : {"TMPDIR", "OPENAI_API_KEY", "NO_PROXY"})
                c.agentEnvironment.insert(QLatin1String(key), codex.value(QLatin1String(key)));
            c.codexBin = MockOpenAI::codexBinary();
            c.codexHome = home + QStringLiteral("/.codex");
        });
        return m_rig->start();
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() {
        m_openai = new MockOpenAI(this);
        QVERIFY(m_openai->start());
    }
    void cleanup() {
        m_rig.reset();
        delete m_openai;
        m_openai = nullptr;
    }

    void claudeBossDelegatesToCodexMember() {
        QVERIFY(start());
        AgentRig &rig = *m_rig;
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        const QJsonArray spawns{QJsonObject{{QStringLiteral("name"), QStringLiteral("coder")},
                                            {QStringLiteral("provider"), QStringLiteral("codex")},
                                            {QStringLiteral("model"), QStringLiteral("gpt-mock")}}};
        rig.mock.queueText(fenced("spawn", json(spawns)) +
                           delegation({{QStringLiteral("agentName"), QStringLiteral("coder")},
                                       {QStringLiteral("task"), QStringLiteral("Port auth.cpp")},
                                       {QStringLiteral("confidence"), QStringLiteral("high")}}));
        // The member streams a line, then reports through report-task from a command, with
        // its own credential, as the instructions told it to.
        m_openai->queueText(QStringLiteral("Porting auth.cpp now."), 4);
        m_openai->queueFunctionCall(
            QStringLiteral("exec_command"),
            {{QStringLiteral("cmd"),
              QStringLiteral("curl -s -o /dev/null -X POST "
                             "\"$FLOTILLA_URL/api/agents/$FLOTILLA_AGENT_ID/report-task\" "
                             "-H 'Content-Type: application/json' "
                             "-H @\"$FLOTILLA_AUTH_HEADER_FILE\" "
                             "-d '{\"summary\":\"Ported auth.cpp\",\"status\":\"completed\"}'")}});
        m_openai->queueText(QStringLiteral("Reported."));
        rig.mock.queueText(QStringLiteral("Good work."));
        sendCommand(rig, bossId, QStringLiteral("Port the auth module"));

        const QJsonObject spawned = waitPayload(*rig.ws, "boss_spawned_agent");
        const QJsonObject member = spawned.value(QStringLiteral("agent")).toObject();
        QCOMPARE(str(member, "provider"), QStringLiteral("codex"));
        const QString coderId = str(member, "id");
        const QJsonObject started = waitPayload(*rig.ws, "agent_task_started");
        QCOMPARE(str(started, "subordinateId"), coderId);
        QCOMPARE(str(started, "task"), QStringLiteral("Port auth.cpp"));
        // Codex got the task with the way to report back.
        QTRY_VERIFY_WITH_TIMEOUT(m_openai->requestCount() >= 1, 60000);
        const QString received = m_openai->lastUserTextOf(0);
        QVERIFY2(received.contains(QStringLiteral("Port auth.cpp")), qPrintable(received));
        QVERIFY(received.contains(QStringLiteral("/api/agents/%1/report-task").arg(coderId)));
        const QJsonObject out =
            waitPayload(*rig.ws, "agent_task_output", 1, field("subordinateId", coderId));
        QCOMPARE(str(out, "bossId"), bossId);

        // That turn ended the task; the next message, with the command, reports it.
        QVERIFY(rig.waitTurns(1, 60000, coderId));
        QCOMPARE(rig.send(QStringLiteral("report it"), coderId).status, 200);
        // A spawned member asks (the default mode): the user grants its curl.
        const QJsonObject ask =
            waitPayload(*rig.ws, "permission_request", 1, field("agentId", coderId));
        QVERIFY(str(ask.value(QStringLiteral("toolInput")).toObject(), "command")
                    .contains(QStringLiteral("report-task")));
        sendWs(*rig.ws, "permission_response",
               {{QStringLiteral("agentId"), coderId},
                {QStringLiteral("permissionId"), str(ask, "id")},
                {QStringLiteral("granted"), true}});
        const QJsonObject done = waitPayload(*rig.ws, "agent_task_completed", 1,
                                             field("source", QStringLiteral("report")));
        QCOMPARE(str(done, "subordinateId"), coderId);
        QCOMPARE(str(done, "summary"), QStringLiteral("Ported auth.cpp"));

        // The boss (Claude) reads the Codex member's report as its next message.
        QVERIFY(rig.waitTurns(2, 60000, bossId));
        const QString report = rig.mock.lastUserTextOf(1);
        QVERIFY2(report.contains(QStringLiteral("Ported auth.cpp")) &&
                     report.contains(QStringLiteral("[Task report")),
                 qPrintable(report));
        QCOMPARE(str(waitPayload(*rig.ws, "delegation_decision", 2), "status"),
                 QStringLiteral("completed"));
        QCOMPARE(str(waitPayload(*rig.ws, "agent_task_completed", 1,
                                 field("source", QStringLiteral("turn"))),
                     "summary"),
                 QStringLiteral("Porting auth.cpp now."));
    }

    void codexBossDelegatesToClaude() {
        QVERIFY(start());
        AgentRig &rig = *m_rig;
        sendWs(*rig.ws, "spawn_boss_agent",
               QJsonObject{{QStringLiteral("name"), QStringLiteral("codex-boss")},
                           {QStringLiteral("cwd"), rig.cwd},
                           {QStringLiteral("provider"), QStringLiteral("codex")},
                           {QStringLiteral("model"), QStringLiteral("gpt-mock")},
                           {QStringLiteral("subordinateIds"), QJsonArray{rig.agentId}}});
        const QJsonObject created =
            waitPayload(*rig.ws, "agent_created", 1, field("name", QStringLiteral("codex-boss")));
        const QString bossId = str(created, "id");
        QVERIFY(!bossId.isEmpty());
        QCOMPARE(str(created, "provider"), QStringLiteral("codex"));
        QVERIFY(!waitPayload(*rig.ws, "boss_subordinates_updated", 1, field("bossId", bossId))
                     .isEmpty());

        m_openai->queueText(delegation({{QStringLiteral("agentName"), QStringLiteral("agent-1")},
                                        {QStringLiteral("task"), QStringLiteral("Write the tests")},
                                        {QStringLiteral("reasoning"), QStringLiteral("free")}}));
        rig.mock.queueSlow(QStringLiteral("Writing the tests."), 4000);
        m_openai->queueText(QStringLiteral("Thanks."));
        sendCommand(rig, bossId, QStringLiteral("Get tests written"));

        // The Codex boss was told its team and the block format.
        QTRY_VERIFY_WITH_TIMEOUT(m_openai->requestCount() >= 1, 60000);
        const QString instructions = m_openai->lastUserTextOf(0);
        for (const QString &part : {QStringLiteral("codex-boss"), QStringLiteral("agent-1"),
                                    rig.agentId, QStringLiteral("```delegation")})
            QVERIFY2(instructions.contains(part), qPrintable(part));

        const QJsonObject decision = waitPayload(*rig.ws, "delegation_decision");
        QCOMPARE(str(decision, "bossId"), bossId);
        QCOMPARE(str(decision, "selectedAgentId"), rig.agentId);
        QCOMPARE(str(decision, "reasoning"), QStringLiteral("free"));
        QVERIFY(!waitPayload(*rig.ws, "agent_task_started").isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(rig.mock.requestCount() >= 1, 60000);
        QVERIFY(rig.mock.lastUserTextOf(0).contains(QStringLiteral("Write the tests")));
        // The subordinate reports while its turn still runs.
        const HttpResponse r = reportTask(rig, rig.agentId, QStringLiteral("Wrote 12 tests"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("forwarded")).toBool(), true);
        const QJsonObject done = waitPayload(*rig.ws, "agent_task_completed");
        QCOMPARE(str(done, "subordinateId"), rig.agentId);
        QCOMPARE(str(done, "source"), QStringLiteral("report"));

        // The report reaches the Codex boss as its next turn.
        QVERIFY(rig.waitTurns(2, 60000, bossId));
        QCOMPARE(m_openai->requestCount(), 2);
        const QString report = m_openai->lastUserTextOf(1);
        QVERIFY2(report.contains(QStringLiteral("[Task report")), qPrintable(report));
        QVERIFY(report.contains(QStringLiteral("Wrote 12 tests")));
    }
};

QTEST_GUILESS_MAIN(TestBossCodex)
#include "tst_boss_codex.moc"
