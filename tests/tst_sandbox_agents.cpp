// Agents in the workspace sandbox (bubblewrap), with both real CLIs against the scripted models:
// a command's write outside the working directory fails (read-only file system) and one inside
// succeeds; ~/.ssh, the service's data directory and its token file are not there; the session
// still resumes after a restart of the service; a worktree agent commits on its own branch and
// cannot move the repository's other branches; the field round-trips and changes by PATCH; and
// the refusals: no bubblewrap -> 503 sandbox_unavailable naming the fix, bad paths -> 422.
// The launcher itself (argv, signals, exit codes, an unprivileged user) is tst_process_launcher.

#include "support/SandboxFixtures.h"
#include "support/WorktreeFixture.h"

#include "support/ServiceProcess.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <unistd.h>

using namespace flotilla;
using namespace flotilla::test;

namespace {

const QJsonObject kWorkspace{{QStringLiteral("mode"), QStringLiteral("workspace")}};

bool usableHere() {
    return !QStandardPaths::findExecutable(QStringLiteral("bwrap")).isEmpty();
}

} // namespace

class TestSandboxAgents final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        // scripts/install-deps.sh installs bubblewrap: its absence is a broken setup, not a
        // reason to pass quietly.
        QVERIFY2(usableHere(), "bwrap not on PATH: run scripts/install-deps.sh");
    }

    void commandsAreConfined_data() { addProviderRows(); }
    void commandsAreConfined() {
        QFETCH(QString, provider);
        QString tokenFile;
        // The service's token in a file of its own, as packaged installs keep it (AUTH_TOKEN,
        // which the rig's clients use, holds the same value).
        AgentRig rig(provider, [&tokenFile](ServerConfig &c) {
            tokenFile = c.dataDir + QStringLiteral("/../secrets/flotilla-token");
            QDir().mkpath(c.dataDir + QStringLiteral("/../secrets"));
            QFile f(tokenFile);
            if (f.open(QIODevice::WriteOnly))
                f.write("sandbox-test-token-0123456789abcdef\n");
            c.tokenFile = tokenFile;
            c.authToken = QByteArrayLiteral("sandbox-test-token-0123456789abcdef");
        });
        QVERIFY(rig.start());
        tokenFile = QFileInfo(tokenFile).canonicalFilePath();
        QVERIFY(QFileInfo(tokenFile).size() > 0);
        // What the user keeps out of reach of a confined agent.
        QVERIFY(QDir().mkpath(rig.home + QStringLiteral("/.ssh")));
        {
            QFile key(rig.home + QStringLiteral("/.ssh/id_test"));
            QVERIFY(key.open(QIODevice::WriteOnly));
            key.write("PRIVATE KEY\n");
        }
        const QString data = QDir(rig.svc->config().dataDir).canonicalPath();
        const QString outside =
            QStringLiteral("/etc/flotilla-sbx-") + QUuid::createUuid().toString(QUuid::Id128);

        const HttpResponse created = rig.createAgent(QStringLiteral("boxed"), sandboxed());
        QCOMPARE(created.status, 201);
        const QString id = str(created.object(), "id");
        const QJsonObject sandbox = created.object().value(QStringLiteral("sandbox")).toObject();
        QCOMPARE(str(sandbox, "mode"), QStringLiteral("workspace"));
        QCOMPARE(str(sandbox, "network"), QStringLiteral("full"));

        // The service's own paths reach the shell encoded: the permission check denies a command
        // that names them (a string filter, which an agent can evade the same way); the sandbox
        // is what holds when it does.
        const auto encoded = [](const QString &path) {
            return QStringLiteral("\"$(echo %1 | base64 -d)\"")
                .arg(QString::fromLatin1(path.toUtf8().toBase64()));
        };
        const QString command =
            QStringLiteral("touch %1; echo outside-rc=$?; touch \"$PWD/inside.txt\" && echo "
                           "inside-ok; echo ssh-entries=$(ls -A \"$HOME/.ssh\" | wc -l); "
                           "test -e %2 && echo db-visible || echo db-hidden; "
                           "echo token-bytes=$(cat %3 2>/dev/null | wc -c)")
                .arg(outside, encoded(data + QStringLiteral("/flotilla.db")), encoded(tokenFile));
        rig.model().queueCommand(command);
        rig.model().queueText(QStringLiteral("Done."));
        QCOMPARE(rig.send(QStringLiteral("probe the sandbox"), id).status, 200);
        QVERIFY(rig.waitTurns(1, 60000, id));
        const QString out = lastToolOutput(rig, id);
        QVERIFY2(out.contains(QStringLiteral("Read-only file system")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("outside-rc=1")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("inside-ok")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("ssh-entries=0")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("db-hidden")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("token-bytes=0")), qPrintable(out));
        QVERIFY(!QFileInfo::exists(outside));
        QVERIFY(QFileInfo::exists(rig.cwd + QStringLiteral("/inside.txt")));
        // The key is still there for the user: hidden from the agent, not touched.
        QVERIFY(QFileInfo::exists(rig.home + QStringLiteral("/.ssh/id_test")));

        // The CLI kept its session where it resumes from: a restart of the service, and the next
        // message continues the same conversation inside a new sandbox.
        const QString sessionId = str(rig.agent(id), "sessionId");
        QVERIFY(!sessionId.isEmpty());
        QVERIFY(rig.restartService());
        const int before = rig.model().requestCount();
        rig.model().queueText(QStringLiteral("Still here."));
        QCOMPARE(rig.send(QStringLiteral("second message"), id).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(rig.model().requestCount() > before, 60000);
        const QString conversation = rig.model().conversationOf(rig.model().requestCount() - 1);
        QVERIFY2(conversation.contains(QStringLiteral("probe the sandbox")),
                 qPrintable(conversation.left(2000)));
        QVERIFY(rig.waitTurns(1, 60000, id));
        QTRY_COMPARE_WITH_TIMEOUT(str(rig.agent(id), "status"), QStringLiteral("idle"), 30000);
        QCOMPARE(str(rig.agent(id), "sessionId"), sessionId);
        QCOMPARE(str(rig.agent(id), "lastError"), QString());

        // Exec for the agent runs in the same kind of sandbox; for an unconfined agent it does not.
        const auto exec = [&](const QString &agent) {
            return rig.http
                .post(rig.svc->url(QStringLiteral("/api/exec")),
                      QJsonObject{{QStringLiteral("agentId"), agent},
                                  {QStringLiteral("command"),
                                   QStringLiteral("touch %1; echo rc=$?; touch ./exec.txt && "
                                                  "echo exec-inside-ok")
                                       .arg(outside)}})
                .object();
        };
        const QJsonObject boxed = exec(id);
        QVERIFY2(str(boxed, "output").contains(QStringLiteral("Read-only file system")),
                 qPrintable(str(boxed, "output")));
        QVERIFY(str(boxed, "output").contains(QStringLiteral("exec-inside-ok")));
        QCOMPARE(boxed.value(QStringLiteral("exitCode")).toInt(), 0);
        QVERIFY(!QFileInfo::exists(outside));
        const QJsonObject free = exec(rig.agentId); // agent-1: ask mode, no sandbox
        QVERIFY2(str(free, "output").contains(QStringLiteral("rc=0")),
                 qPrintable(str(free, "output")));
        QVERIFY(QFile::remove(outside));
    }

    // The same confinement when flotillad runs as an unprivileged user (here `nobody`, through
    // runuser): bubblewrap's user namespace is then the only privilege it has.
    void confinedAsAnUnprivilegedUser_data() { addProviderRows(); }
    void confinedAsAnUnprivilegedUser() {
        QFETCH(QString, provider);
        if (::geteuid() != 0)
            QSKIP("needs root to run the service as another user (runuser); CI runs as root");
        const bool codex = provider == QLatin1String("codex");
        MockAnthropic claude;
        MockOpenAI openai;
        QVERIFY(codex ? openai.start() : claude.start());
        const auto model = codex ? scriptedModel(openai) : scriptedModel(claude);
        // Not under /tmp: the sandbox has a /tmp of its own, which would hide the host's anyway.
        QTemporaryDir tmp(QStringLiteral("/var/tmp/tst_sandbox_agents-XXXXXX"));
        QVERIFY(tmp.isValid());
        QVERIFY(QFile::setPermissions(
            tmp.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                            QFileDevice::ReadOther | QFileDevice::ExeOther));
        const QString home = tmp.path() + QStringLiteral("/home");
        const QString project = tmp.path() + QStringLiteral("/project");
        const QString data = tmp.path() + QStringLiteral("/data");
        // Writable for nobody on the host, outside the agent's project.
        const QString elsewhere = tmp.path() + QStringLiteral("/elsewhere");
        QVERIFY(QDir().mkpath(elsewhere));
        QVERIFY(QDir().mkpath(home + QStringLiteral("/.ssh")));
        QVERIFY(QDir().mkpath(project));
        QVERIFY(QDir().mkpath(data));
        {
            QFile key(home + QStringLiteral("/.ssh/id_test"));
            QVERIFY(key.open(QIODevice::WriteOnly));
            key.write("PRIVATE KEY\n");
        }
        QProcessEnvironment env =
            codex ? openai.codexEnvironment(home) : claude.claudeEnvironment(home);
        for (const QString &k : hermeticEnv(home).keys()) {
            if (!env.contains(k))
                env.insert(k, hermeticEnv(home).value(k));
        }
        env.insert(QStringLiteral("AUTH_TOKEN"), QStringLiteral("nobody-sandbox-token-0123456789"));
        // Everything the service and its agents write belongs to the service's user.
        QProcess chown;
        chown.start(QStringLiteral("chown"),
                    {QStringLiteral("-R"), QStringLiteral("nobody:nogroup"), home, project, data,
                     elsewhere});
        QVERIFY(chown.waitForFinished(10000) && chown.exitCode() == 0);

        ServiceProcess svc;
        svc.setRunAs(QStringLiteral("nobody"));
        QVERIFY2(svc.start({QStringLiteral("--data-dir"), data, QStringLiteral("--claude-bin"),
                            QStringLiteral(FLOTILLA_TEST_CLAUDE_BIN), QStringLiteral("--codex-bin"),
                            QStringLiteral(FLOTILLA_TEST_CODEX_BIN)},
                           env, 20000),
                 svc.stdErr().constData());
        HttpClient http;
        http.setToken(QByteArrayLiteral("nobody-sandbox-token-0123456789"));
        QJsonObject body = sandboxed();
        body.insert(QStringLiteral("name"), QStringLiteral("boxed"));
        body.insert(QStringLiteral("cwd"), project);
        if (codex) {
            body.insert(QStringLiteral("provider"), QStringLiteral("codex"));
            body.insert(QStringLiteral("model"), QStringLiteral("gpt-mock"));
        }
        const HttpResponse created =
            http.post(localUrl(svc.port(), QStringLiteral("/api/agents")), body);
        QCOMPARE(created.status, 201);
        const QString id = str(created.object(), "id");
        const QString outside =
            QStringLiteral("/tmp/flotilla-sbx-") + QUuid::createUuid().toString(QUuid::Id128);
        // As nobody, /tmp is writable outside a sandbox: inside, it is the sandbox's own.
        model->queueCommand(QStringLiteral("{ touch %1; echo outside-rc=$?; id -u; echo "
                                           "ssh-entries=$(ls -A \"$HOME/.ssh\" | wc -l); touch "
                                           "%2/x; echo elsewhere-rc=$?; } > report.txt 2>&1")
                                .arg(outside, elsewhere));
        model->queueText(QStringLiteral("Done."));
        QCOMPARE(http.post(localUrl(svc.port(), QStringLiteral("/api/agents/%1/message").arg(id)),
                           QJsonObject{{QStringLiteral("message"), QStringLiteral("probe")}})
                     .status,
                 200);
        QTRY_VERIFY_WITH_TIMEOUT(
            http.get(localUrl(svc.port(), QStringLiteral("/api/agents/") + id))
                        .object()
                        .value(QStringLiteral("taskCount"))
                        .toInt() >= 1 &&
                str(http.get(localUrl(svc.port(), QStringLiteral("/api/agents/") + id)).object(),
                    "status") == QLatin1String("idle"),
            60000);
        QFile report(project + QStringLiteral("/report.txt"));
        QVERIFY2(report.open(QIODevice::ReadOnly), qPrintable(report.fileName()));
        const QString out = QString::fromUtf8(report.readAll());
        QVERIFY2(out.contains(QStringLiteral("outside-rc=0")), qPrintable(out)); // its private /tmp
        QVERIFY(!QFileInfo::exists(outside));                                    // not the host's
        QVERIFY2(out.contains(QStringLiteral("65534")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("ssh-entries=0")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("Read-only file system")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("elsewhere-rc=1")), qPrintable(out));
        QVERIFY(!QFileInfo::exists(elsewhere + QStringLiteral("/x")));
        QCOMPARE(QFileInfo(report).ownerId(), uint(65534));
        QVERIFY(svc.terminate());
    }

    // A building of a sandboxed agent runs in the same kind of sandbox; stopping it reaches the
    // program inside (its SIGTERM goes to the session in the sandbox, not just to bwrap).
    void buildingOfASandboxedAgentIsConfined() {
        AgentRig rig;
        QVERIFY(rig.start());
        const HttpResponse created = rig.createAgent(QStringLiteral("boxed"), sandboxed());
        QCOMPARE(created.status, 201);
        const QString outside =
            QStringLiteral("/etc/flotilla-sbx-") + QUuid::createUuid().toString(QUuid::Id128);
        const HttpResponse b = rig.post(
            QStringLiteral("/api/buildings"),
            {{QStringLiteral("name"), QStringLiteral("server")},
             {QStringLiteral("agentId"), str(created.object(), "id")},
             {QStringLiteral("command"),
              QJsonArray{QStringLiteral("bash"), QStringLiteral("-c"),
                         QStringLiteral("trap 'echo got-term; exit 0' TERM; touch %1; echo "
                                        "rc=$?; touch built.txt && echo built; while :; do sleep "
                                        "0.1; done")
                             .arg(outside)}}});
        QCOMPARE(b.status, 201);
        const QString id = str(b.object(), "id");
        QCOMPARE(rig.post(QStringLiteral("/api/buildings/%1/start").arg(id), {}).status, 200);
        const auto logs = [&] {
            return QString::fromUtf8(
                rig.http.get(rig.svc->url(QStringLiteral("/api/buildings/%1/logs").arg(id))).body);
        };
        QTRY_VERIFY_WITH_TIMEOUT(logs().contains(QStringLiteral("built")), 20000);
        QVERIFY2(logs().contains(QStringLiteral("Read-only file system")), qPrintable(logs()));
        QVERIFY(!QFileInfo::exists(outside));
        QVERIFY(QFileInfo::exists(rig.cwd + QStringLiteral("/built.txt")));
        QCOMPARE(rig.post(QStringLiteral("/api/buildings/%1/stop").arg(id), {}).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(logs().contains(QStringLiteral("got-term")), 20000);
    }

    // A worktree agent writes its own branch in the main repository's git directory, and nothing
    // else there: not the repository's main branch, not its configuration or hooks.
    void worktreeAgentCommitsOnItsBranch() {
        WorktreeFixture f;
        QVERIFY(f.start());
        const QString mainBefore =
            f.repo->run({QStringLiteral("rev-parse"), QStringLiteral("main")}).out;
        const HttpResponse created = f.create(QStringLiteral("boxed-tree"), true, sandboxed());
        QCOMPARE(created.status, 201);
        const QString id = str(created.object(), "id");
        const QString branch = str(WorktreeFixture::worktreeOf(created), "branch");
        QVERIFY(!branch.isEmpty());

        f.rig.model().queueCommand(QStringLiteral(
            "echo boxed > boxed.txt && git add boxed.txt && git -c user.name=A -c "
            "user.email=a@example.org commit -q -m boxed && echo commit-ok; git update-ref "
            "refs/heads/main HEAD; echo main-rc=$?; echo '#!/bin/sh' > \"$(git rev-parse "
            "--git-common-dir)/hooks/post-commit\"; echo hook-rc=$?"));
        f.rig.model().queueText(QStringLiteral("Committed."));
        QCOMPARE(f.rig.send(QStringLiteral("commit it"), id).status, 200);
        QVERIFY(f.rig.waitTurns(1, 60000, id));
        const QString out = lastToolOutput(f.rig, id);
        QVERIFY2(out.contains(QStringLiteral("commit-ok")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("main-rc=0")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("hook-rc=0")), qPrintable(out));

        QCOMPARE(f.repo
                     ->run({QStringLiteral("log"), QStringLiteral("-1"),
                            QStringLiteral("--format=%s"), branch})
                     .out,
                 QStringLiteral("boxed"));
        QCOMPARE(f.repo->run({QStringLiteral("rev-parse"), QStringLiteral("main")}).out,
                 mainBefore);
        QVERIFY(!QFileInfo::exists(f.rig.cwd + QStringLiteral("/.git/hooks/post-commit")));

        // The service's own git in the agent's worktree (diff, merge) runs in its sandbox too, and
        // still works: an uncommitted change shows in the diff.
        {
            QFile changed(f.worktreePath(id) + QStringLiteral("/shared.txt"));
            QVERIFY(changed.open(QIODevice::Append));
            changed.write("four\n");
        }
        const HttpResponse diff = f.diff(id);
        QCOMPARE(diff.status, 200);
        QVERIFY2(paths(diff.object().value(QStringLiteral("files")).toArray())
                     .contains(QStringLiteral("shared.txt")),
                 diff.body.constData());
        QVERIFY2(paths(diff.object().value(QStringLiteral("files")).toArray())
                     .contains(QStringLiteral("boxed.txt")),
                 diff.body.constData());
    }

    // A sandboxed boss cannot get out through its team: what it spawns gets its sandbox and works
    // inside its directory; asking for less is refused for that item alone.
    void sandboxedBossSpawnsConfinedMembers() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString outside = QDir(rig.svc->workDir()).filePath(QStringLiteral("elsewhere"));
        QVERIFY(QDir().mkpath(outside));
        sendWs(*rig.ws, "spawn_boss_agent",
               QJsonObject{{QStringLiteral("name"), QStringLiteral("boxed-boss")},
                           {QStringLiteral("cwd"), rig.cwd},
                           {QStringLiteral("permissionMode"), QStringLiteral("auto")},
                           {QStringLiteral("sandbox"), kWorkspace}});
        const QString bossId = str(
            waitPayload(*rig.ws, "agent_created", 1, field("name", QStringLiteral("boxed-boss"))),
            "id");
        QVERIFY(!bossId.isEmpty());
        const QJsonArray spawns{
            QJsonObject{{QStringLiteral("name"), QStringLiteral("inside")}},
            QJsonObject{{QStringLiteral("name"), QStringLiteral("escapee")},
                        {QStringLiteral("permissionMode"), QStringLiteral("auto")},
                        {QStringLiteral("sandbox"),
                         QJsonObject{{QStringLiteral("mode"), QStringLiteral("off")}}}},
            QJsonObject{{QStringLiteral("name"), QStringLiteral("elsewhere")},
                        {QStringLiteral("cwd"), outside}}};
        rig.mock.queueText(fenced("spawn", json(spawns)));
        sendCommand(rig, bossId, QStringLiteral("Get helpers"));
        // A spawn block carries no permission mode or sandbox of its own: "escapee" is made like
        // "inside", confined as the boss is.
        QTRY_COMPARE_WITH_TIMEOUT(rig.ws->countOf(QStringLiteral("boss_spawned_agent")), 2, 30000);
        for (const QJsonObject &spawned : payloads(*rig.ws, "boss_spawned_agent")) {
            const QJsonObject member = spawned.value(QStringLiteral("agent")).toObject();
            QCOMPARE(str(member.value(QStringLiteral("sandbox")).toObject(), "mode"),
                     QStringLiteral("workspace"));
            QCOMPARE(str(member, "cwd"), rig.cwd);
        }
        // The one outside the boss's directory is refused, reported to the boss after its answer.
        QTRY_VERIFY_WITH_TIMEOUT(rig.streamedText(bossId).contains(
                                     QStringLiteral("elsewhere: boss 'boxed-boss' runs in a "
                                                    "sandbox: the agents it spawns work inside")),
                                 30000);
        QCOMPARE(rig.ws->countOf(QStringLiteral("boss_spawned_agent")), 2);
    }

    // The field on the agent: PATCH changes it (and the next turn's process), null returns to the
    // service's default, bad values are refused with what is wrong.
    void fieldValidation() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString url = QStringLiteral("/api/agents/") + rig.agentId;
        QCOMPARE(rig.agent().value(QStringLiteral("sandbox")), QJsonValue());

        HttpResponse r =
            rig.http.patch(rig.svc->url(url), QJsonObject{{QStringLiteral("sandbox"), kWorkspace}});
        QCOMPARE(r.status, 200);
        QCOMPARE(str(r.object().value(QStringLiteral("sandbox")).toObject(), "mode"),
                 QStringLiteral("workspace"));
        r = rig.http.patch(rig.svc->url(url),
                           QJsonObject{{QStringLiteral("sandbox"), QJsonValue::Null}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("sandbox")), QJsonValue());

        const auto refused = [&](const QJsonValue &sandbox, int status, const char *code) {
            const HttpResponse res = rig.createAgent(
                QStringLiteral("bad-") + QUuid::createUuid().toString(QUuid::Id128).left(8),
                {{QStringLiteral("sandbox"), sandbox}});
            if (res.status != status || str(res.object(), "code") != QLatin1String(code)) {
                qWarning().noquote() << res.status << res.body;
                return false;
            }
            return true;
        };
        QVERIFY(refused(5, 400, "wrong_type"));
        QVERIFY(refused(QJsonObject{}, 400, "missing_field"));
        QVERIFY(refused(QJsonObject{{QStringLiteral("mode"), QStringLiteral("jail")}}, 422,
                        "invalid_sandbox"));
        QVERIFY(
            refused(QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")},
                                {QStringLiteral("writable"), QJsonArray{QStringLiteral("rel")}}},
                    422, "invalid_sandbox"));
        QVERIFY(refused(QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")},
                                    {QStringLiteral("writable"),
                                     QJsonArray{QString(rig.cwd + QStringLiteral("/missing"))}}},
                        422, "invalid_sandbox"));
        QVERIFY(refused(QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")},
                                    {QStringLiteral("writable"), QJsonArray{rig.home}}},
                        422, "invalid_sandbox"));
        QVERIFY(refused(
            QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")},
                        {QStringLiteral("writable"), QJsonArray{rig.svc->config().dataDir}}},
            422, "invalid_sandbox"));
        QVERIFY(refused(
            QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")},
                        {QStringLiteral("allowHosts"), QJsonArray{QStringLiteral("example.org")}}},
            422, "invalid_sandbox"));
        QVERIFY(refused(QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")},
                                    {QStringLiteral("bogus"), 1}},
                        422, "unknown_field"));
        QCOMPARE(rig.http.get(rig.svc->url(QStringLiteral("/api/agents"))).array().size(), 1);

        // The health details say what the probe found and the default.
        const QJsonObject health = rig.http.get(rig.svc->url(QStringLiteral("/api/health")))
                                       .object()
                                       .value(QStringLiteral("sandbox"))
                                       .toObject();
        QCOMPARE(health.value(QStringLiteral("available")).toBool(), true);
        QVERIFY(str(health, "version").startsWith(QStringLiteral("bubblewrap")));
        QCOMPARE(str(health, "default"), QStringLiteral("off")); // pinned by TestService
    }

    // Without bubblewrap: asking for a sandbox is refused with the fix, never run without one;
    // an auto agent that asks for nothing runs unconfined (the default follows the probe).
    void refusedWithoutBubblewrap() {
        AgentRig rig([](ServerConfig &c) {
            c.bwrap = QStringLiteral("/nonexistent/bwrap");
            c.sandboxDefault.clear();
        });
        QVERIFY(rig.start());
        const HttpResponse r = rig.createAgent(QStringLiteral("boxed"), sandboxed());
        QCOMPARE(r.status, 503);
        QCOMPARE(str(r.object(), "code"), QStringLiteral("sandbox_unavailable"));
        QVERIFY2(str(r.object(), "error").contains(QStringLiteral("apt install bubblewrap")),
                 r.body.constData());
        const HttpResponse plain = rig.createAgent(
            QStringLiteral("plain"), {{QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(plain.status, 201);
        QCOMPARE(plain.object().value(QStringLiteral("sandbox")), QJsonValue());
        // A PATCH asking for one is refused the same way, and changes nothing.
        const HttpResponse patched =
            rig.http.patch(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
                           QJsonObject{{QStringLiteral("sandbox"), kWorkspace}});
        QCOMPARE(patched.status, 503);
        QCOMPARE(rig.agent().value(QStringLiteral("sandbox")), QJsonValue());
        const QJsonObject health = rig.http.get(rig.svc->url(QStringLiteral("/api/health")))
                                       .object()
                                       .value(QStringLiteral("sandbox"))
                                       .toObject();
        QCOMPARE(health.value(QStringLiteral("available")).toBool(), false);
        QCOMPARE(str(health, "default"), QStringLiteral("off"));
        QVERIFY(str(health, "reason").contains(QStringLiteral("bubblewrap")));
    }
};

QTEST_MAIN(TestSandboxAgents)
#include "tst_sandbox_agents.moc"
