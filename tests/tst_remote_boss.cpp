// Bosses and teams across hosts (docs/api.md "Hosts"), with the real Claude Code CLI against the
// scripted model and a real sshd on 127.0.0.2 serving an account of its own
// (support/RemoteHost.h): a local boss delegates to a member on the host, whose turn runs there
// (a command writes the account's name into its directory there) and whose report comes back
// through report_task, an MCP call that reaches flotillad only through the link's forward; a boss
// spawns members onto the host with spawn_agent and with a spawn block (each has that host, and
// its exec runs there), a spawn onto another host without a cwd there is refused; a sandboxed boss
// cannot spawn onto another host.

#include "protocol/HostNames.h"
#include "protocol/McpNames.h"
#include "support/BossFixtures.h"
#include "support/RemoteHost.h"

#include <QJsonArray>
#include <QStandardPaths>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;
namespace hk = flotilla::wire::host::key;
namespace mcp = flotilla::wire::mcp;

namespace {

// What the model was given back for tool call `id`, once a request carries it (empty: never).
QString waitToolResult(AgentRig &rig, const QString &id) {
    QString result;
    (void)QTest::qWaitFor(
        [&] {
            for (int i = 0; i < rig.mock.requestCount() && result.isEmpty(); ++i) {
                if (rig.mock.hasToolResult(i, id))
                    result = rig.mock.toolResultTextOf(i, id);
            }
            return !result.isEmpty();
        },
        60000);
    return result;
}

QString readFile(const QString &path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestRemoteBoss final : public QObject {
    Q_OBJECT

    RemoteHost m_remote;

    // The service as hosts need it: the ssh config, and a token (without one no link starts).
    std::function<void(ServerConfig &)> viaSsh() const {
        return [config = m_remote.sshConfig()](ServerConfig &c) {
            c.sshConfig = config;
            c.authToken = QByteArrayLiteral("remote-boss-service-token-51c2");
        };
    }
    // Host "box" on the remote account, connected.
    bool addBox(AgentRig &rig) {
        const HttpResponse r =
            rig.post(QStringLiteral("/api/hosts"),
                     QJsonObject{{QStringLiteral("name"), QStringLiteral("box")},
                                 {QStringLiteral("ssh"), m_remote.destination()},
                                 {QStringLiteral("claudeBin"), m_remote.claudeBin()},
                                 {QStringLiteral("codexBin"), m_remote.codexBin()}});
        if (r.status != 201)
            return false;
        return QTest::qWaitFor(
            [&] {
                return str(rig.http.get(rig.svc->url(QStringLiteral("/api/hosts/box"))).object(),
                           "state") == QLatin1String("connected");
            },
            20000);
    }
    QString exec(AgentRig &rig, const QString &agentId, const QString &command) {
        return str(
            rig.post(QStringLiteral("/api/exec"), QJsonObject{{QStringLiteral("agentId"), agentId},
                                                              {QStringLiteral("command"), command}})
                .object(),
            "output");
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        const QString error = m_remote.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    // A local boss gives a member on the host a task: the member's turn runs there, and its
    // report (report_task over MCP, through the forward) is the boss's next message.
    void localBossDelegatesToRemoteMember() {
        AgentRig rig(viaSsh());
        QVERIFY(rig.start());
        QVERIFY(m_remote.writeHomeFile(QStringLiteral("team/README"), "hi\n"));
        const QString project = m_remote.home() + QStringLiteral("/team");
        QVERIFY(addBox(rig));
        HttpResponse r = rig.createAgent(
            QStringLiteral("far"), {{hk::Host, QStringLiteral("box")},
                                    {QStringLiteral("cwd"), project},
                                    {QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(r.status, 201);
        const QString farId = str(r.object(), "id");
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {farId});
        QVERIFY(!bossId.isEmpty());
        QCOMPARE(str(rig.agent(bossId), "host"), QStringLiteral("local"));

        const QString task = QStringLiteral("Write who you are into whoami.txt, then report.");
        rig.mock.queueText(fenced(
            "delegation", json(QJsonObject{{QStringLiteral("agentName"), QStringLiteral("far")},
                                           {QStringLiteral("task"), task}})));
        rig.model().queueCommand(QStringLiteral("id -un > whoami.txt; pwd >> whoami.txt"));
        const QJsonObject report{{QStringLiteral("summary"), QStringLiteral("Wrote whoami.txt")},
                                 {QStringLiteral("status"), QStringLiteral("completed")}};
        const QString reportCall =
            rig.mock.queueToolUse(QString(mcp::ClaudeToolPrefix) + mcp::tool::ReportTask, report);
        // The member's last request and the boss's reading of the report race: both text.
        rig.mock.queueText(QStringLiteral("Noted."));
        rig.mock.queueText(QStringLiteral("Noted."));
        sendCommand(rig, bossId, QStringLiteral("Find out who works on the box"));

        const QJsonObject started = waitPayload(*rig.ws, "agent_task_started");
        QCOMPARE(str(started, "bossId"), bossId);
        QCOMPARE(str(started, "subordinateId"), farId);
        QCOMPARE(str(started, "task"), task);
        // The boss was told where its member runs.
        QVERIFY2(rig.mock.lastUserTextOf(0).contains(QStringLiteral("class builder, on host box")),
                 qPrintable(rig.mock.lastUserTextOf(0)));

        const QJsonObject done = waitPayload(*rig.ws, "agent_task_completed");
        QCOMPARE(str(done, "bossId"), bossId);
        QCOMPARE(str(done, "subordinateId"), farId);
        QCOMPARE(str(done, "source"), QStringLiteral("report"));
        QCOMPARE(str(done, "summary"), QStringLiteral("Wrote whoami.txt"));
        QVERIFY2(waitToolResult(rig, reportCall).contains(bossId),
                 qPrintable(waitToolResult(rig, reportCall)));

        // The command ran on the host: as its account, in the member's directory there.
        const QString ran = readFile(project + QStringLiteral("/whoami.txt"));
        QVERIFY2(ran.startsWith(m_remote.user() + QLatin1Char('\n')) && ran.contains(project),
                 qPrintable(ran));

        // The report is the boss's next message.
        QVERIFY(rig.waitTurns(2, 60000, bossId));
        bool bossRead = false;
        for (int i = 0; i < rig.mock.requestCount(); ++i)
            bossRead = bossRead ||
                       (rig.mock.lastUserTextOf(i).contains(QStringLiteral("[Task "
                                                                           "report")) &&
                        rig.mock.lastUserTextOf(i).contains(QStringLiteral("Wrote whoami.txt")));
        QVERIFY(bossRead);
        QVERIFY(rig.waitTurns(1, 60000, farId));
        QCOMPARE(rig.ws->countOf(QStringLiteral("agent_task_completed")), 1);
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), 0);
    }

    // spawn_agent and a spawn block with `host`: the members are on that host and run there; one
    // without a cwd on that host is refused (the boss's directory is this machine's).
    void bossSpawnsOntoTheHost() {
        AgentRig rig(viaSsh());
        QVERIFY(rig.start());
        QVERIFY(m_remote.writeHomeFile(QStringLiteral("spawned/README"), "hi\n"));
        const QString dir = m_remote.home() + QStringLiteral("/spawned");
        QVERIFY(addBox(rig));
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-2"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());

        const QString spawnTool = QString(mcp::ClaudeToolPrefix) + mcp::tool::SpawnAgent;
        const QString byTool = rig.mock.queueToolUse(
            spawnTool, QJsonObject{{QStringLiteral("name"), QStringLiteral("far-tool")},
                                   {QStringLiteral("host"), QStringLiteral("box")},
                                   {QStringLiteral("cwd"), dir}});
        const QString withoutCwd = rig.mock.queueToolUse(
            spawnTool, QJsonObject{{QStringLiteral("name"), QStringLiteral("far-nowhere")},
                                   {QStringLiteral("host"), QStringLiteral("box")}});
        const QJsonArray block{QJsonObject{{QStringLiteral("name"), QStringLiteral("far-block")},
                                           {QStringLiteral("host"), QStringLiteral("box")},
                                           {QStringLiteral("cwd"), dir}},
                               QJsonObject{{QStringLiteral("name"), QStringLiteral("far-lost")},
                                           {QStringLiteral("host"), QStringLiteral("box")}}};
        rig.mock.queueText(QStringLiteral("Team ready.\n") + fenced("spawn", json(block)));
        sendCommand(rig, bossId, QStringLiteral("Get two helpers on the box"));

        QTRY_COMPARE_WITH_TIMEOUT(rig.ws->countOf(QStringLiteral("boss_spawned_agent")), 2, 60000);
        QStringList spawned;
        for (const QJsonObject &p : payloads(*rig.ws, "boss_spawned_agent")) {
            const QJsonObject member = p.value(QStringLiteral("agent")).toObject();
            QCOMPARE(str(p, "bossId"), bossId);
            QCOMPARE(str(member, "host"), QStringLiteral("box"));
            QCOMPARE(str(member, "cwd"), dir);
            spawned << str(member, "name");
        }
        QCOMPARE(spawned, (QStringList{QStringLiteral("far-tool"), QStringLiteral("far-block")}));
        const QString farTool = str(
            payloads(*rig.ws, "boss_spawned_agent").at(0).value(QStringLiteral("agent")).toObject(),
            "id");
        QVERIFY2(waitToolResult(rig, byTool).contains(farTool),
                 qPrintable(waitToolResult(rig, byTool)));
        const QString refused = waitToolResult(rig, withoutCwd);
        QVERIFY2(refused.contains(QStringLiteral("field 'cwd' is required for an agent on host "
                                                 "'box'")),
                 qPrintable(refused));
        QTRY_VERIFY_WITH_TIMEOUT(
            rig.streamedText(bossId).contains(
                QStringLiteral("far-lost: field 'cwd' is required for an agent on host 'box'")),
            30000);
        QCOMPARE(rig.ws->countOf(QStringLiteral("boss_spawned_agent")), 2);

        // They are the boss's team, and they run there.
        const QJsonArray team = rig.agent(bossId).value(QStringLiteral("subordinateIds")).toArray();
        QCOMPARE(team.size(), 3);
        for (const QJsonValue &id : team) {
            if (id.toString() == rig.agentId)
                continue;
            QCOMPARE(str(rig.agent(id.toString()), "host"), QStringLiteral("box"));
            QCOMPARE(exec(rig, id.toString(), QStringLiteral("id -un; pwd")),
                     QStringLiteral("%1\n%2\n").arg(m_remote.user(), dir));
        }
    }

    // A boss in a sandbox keeps its team in that sandbox, on this machine: a member on another
    // host is refused and says why, the rest of the block is made. (The host's port has nothing
    // listening: the refusal comes before any connection matters.)
    void sandboxedBossCannotSpawnOntoAHost() {
        AgentRig rig;
        QVERIFY(rig.start());
        QCOMPARE(rig.post(QStringLiteral("/api/hosts"),
                          QJsonObject{{QStringLiteral("name"), QStringLiteral("far")},
                                      {QStringLiteral("ssh"), QStringLiteral("x@127.0.0.2:1")}})
                     .status,
                 201);
        sendWs(*rig.ws, "spawn_boss_agent",
               QJsonObject{{QStringLiteral("name"), QStringLiteral("boxed-boss")},
                           {QStringLiteral("cwd"), rig.cwd},
                           {QStringLiteral("permissionMode"), QStringLiteral("auto")},
                           {QStringLiteral("sandbox"),
                            QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")}}}});
        const QString bossId = str(
            waitPayload(*rig.ws, "agent_created", 1, field("name", QStringLiteral("boxed-boss"))),
            "id");
        QVERIFY(!bossId.isEmpty());
        const QJsonArray spawns{QJsonObject{{QStringLiteral("name"), QStringLiteral("inside")}},
                                QJsonObject{{QStringLiteral("name"), QStringLiteral("outside")},
                                            {QStringLiteral("host"), QStringLiteral("far")},
                                            {QStringLiteral("cwd"), QStringLiteral("/srv/app")}}};
        rig.mock.queueText(fenced("spawn", json(spawns)));
        sendCommand(rig, bossId, QStringLiteral("Get helpers"));
        QTRY_VERIFY_WITH_TIMEOUT(
            rig.streamedText(bossId).contains(
                QStringLiteral("outside: boss 'boxed-boss' runs in a sandbox: the agents it spawns "
                               "run in the same one on this machine, not on host 'far'")),
            30000);
        QCOMPARE(rig.ws->countOf(QStringLiteral("boss_spawned_agent")), 1);
        const QJsonObject member =
            payloads(*rig.ws, "boss_spawned_agent").at(0).value(QStringLiteral("agent")).toObject();
        QCOMPARE(str(member, "name"), QStringLiteral("inside"));
        QCOMPARE(str(member, "host"), QStringLiteral("local"));
        QCOMPARE(str(member.value(QStringLiteral("sandbox")).toObject(), "mode"),
                 QStringLiteral("workspace"));
    }
};

QTEST_GUILESS_MAIN(TestRemoteBoss)
#include "tst_remote_boss.moc"
