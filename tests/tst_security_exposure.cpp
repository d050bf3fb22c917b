// Where tokens and secrets may be seen (docs/security.md): never on a command line,
// never in flotillad's own environment, masked in exec output and in pending permission
// requests; names that are text and not terminal commands; agents kept out of the service's own
// directories; a decision log that one agent's hook cannot flood. Real Claude CLI against the
// mock model, the real flotillad binary where its process is what is looked at.

#include "protocol/PermissionNames.h"
#include "support/AgentRig.h"
#include "support/BossFixtures.h"
#include "support/ExecFixture.h"
#include "support/FileProbe.h"
#include "support/ServiceProcess.h"

#include "base/Logging.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace flotilla;
using namespace flotilla::test;
namespace k = flotilla::wire::key;

namespace {

const QByteArray kServiceToken = "exposure-service-token-0123456789abcdef";

// Every process's command line, NULs as spaces: what any user of the machine can read.
QList<QByteArray> allCommandLines() {
    QList<QByteArray> out;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &pid : pids) {
        if (pid.isEmpty() || !pid.at(0).isDigit())
            continue;
        QByteArray line = readAll(QStringLiteral("/proc/%1/cmdline").arg(pid));
        line.replace('\0', ' ');
        if (!line.isEmpty())
            out << line;
    }
    return out;
}

// The agent token in a header file ("X-Auth-Token: <token>\n").
QByteArray tokenOfHeaderFile(const QString &path) {
    const QByteArray line = readAll(path).trimmed();
    return line.startsWith("X-Auth-Token: ") ? line.mid(14) : QByteArray();
}

QString headerFileOf(AgentRig &rig, const QString &agentId) {
    return rig.svc->config().dataDir + QStringLiteral("/agent-tokens/") + agentId +
           QStringLiteral(".header");
}

QJsonObject importDocument(const QJsonObject &categories) {
    return QJsonObject{{QStringLiteral("version"), 1}, {QStringLiteral("categories"), categories}};
}

QStringList g_logged;
void captureLog(QtMsgType, const QMessageLogContext &, const QString &message) {
    g_logged << message;
}

} // namespace

class TestSecurityExposure : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A Claude agent in ask mode with its hook's curl held open by a pending request: no
    // process of the machine shows the agent's token or the service's in its argv; the hook
    // still authenticates (the grant reaches the CLI), and the header file is private and goes
    // with the process.
    void noTokenOnAnyCommandLine() {
        AgentRig rig([](ServerConfig &c) { c.authToken = kServiceToken; });
        QVERIFY(rig.start());
        rig.model().queueCommand(QStringLiteral("touch granted.txt"));
        rig.model().queueText(QStringLiteral("done"));
        QCOMPARE(rig.send(QStringLiteral("make the file")).status, 200);
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));

        const QString headerFile = headerFileOf(rig, rig.agentId);
        const QByteArray agentToken = tokenOfHeaderFile(headerFile);
        QVERIFY2(agentToken.startsWith(QByteArray("flotilla-agent." + rig.agentId.toUtf8() + '.')),
                 readAll(headerFile).constData());
        QCOMPARE(modeOf(headerFile), 0600);
        QCOMPARE(modeOf(QFileInfo(headerFile).absolutePath()), 0700);

        const QList<QByteArray> lines = allCommandLines();
        bool hookSeen = false;
        for (const QByteArray &line : lines) {
            QVERIFY2(!line.contains(agentToken), line.constData());
            QVERIFY2(!line.contains(kServiceToken), line.constData());
            hookSeen = hookSeen || (line.contains("permission-check") && line.startsWith("curl"));
        }
        QVERIFY2(hookSeen, "the hook's curl is not running: the scan proved nothing");

        const QJsonObject request = rig.ws->last(QStringLiteral("permission_request"))
                                        .value(QStringLiteral("payload"))
                                        .toObject();
        rig.ws->sendJson(QJsonObject{
            {QStringLiteral("type"), QStringLiteral("permission_response")},
            {QStringLiteral("payload"),
             QJsonObject{{QStringLiteral("permissionId"), request.value(QStringLiteral("id"))},
                         {QStringLiteral("granted"), true}}}});
        QVERIFY(rig.waitTurns(1, 60000));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/granted.txt")));

        // The process ends (stop): its token is revoked and its file removed.
        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/stop"),
                          QJsonObject{{QStringLiteral("agentIds"), QJsonArray{rig.agentId}}})
                     .status,
                 200);
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(headerFile), 10000);
        QCOMPARE(HttpClient(agentToken)
                     .get(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId))
                     .status,
                 401);
    }

    // Started with AUTH_TOKEN in its environment, flotillad wipes it: /proc/<pid>/environ does
    // not show it, nor does an exec command that prints its parent's environment; a command
    // that prints the token itself gets it masked.
    void serviceEnvironmentHoldsNoToken() {
        QTemporaryDir tmp;
        QProcessEnvironment env = hermeticEnv(tmp.path());
        env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromLatin1(kServiceToken));
        ServiceProcess svc;
        QVERIFY2(
            svc.start({QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data")}, env),
            svc.stdErr().constData());
        const QByteArray shown = readAll(QStringLiteral("/proc/%1/environ").arg(svc.pid()));
        QVERIFY2(!shown.isEmpty() || ::geteuid() != 0, "root could not read the environment");
        QVERIFY(!shown.contains(kServiceToken));

        HttpClient http(kServiceToken);
        const QString work = tmp.path() + QStringLiteral("/work");
        QVERIFY(QDir().mkpath(work));
        const HttpResponse agent = http.post(
            localUrl(svc.port(), QStringLiteral("/api/agents")),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("looker")}, {k::Cwd, work}});
        QCOMPARE(agent.status, 201);
        const QString agentId = agent.object().value(k::Id).toString();
        auto exec = [&](const QString &command) {
            const HttpResponse r = http.post(
                localUrl(svc.port(), QStringLiteral("/api/exec")),
                QJsonObject{{QStringLiteral("agentId"), agentId}, {xk::Command, command}});
            return r.object().value(xk::Output).toString().toUtf8();
        };
        // The wrapper shell's parent is flotillad.
        const QByteArray parentEnv = exec(QStringLiteral(
            "tr '\\0' '\\n' < /proc/$PPID/environ 2>&1 | grep -a AUTH_TOKEN; echo end"));
        QVERIFY2(parentEnv.contains("end"), parentEnv.constData());
        QVERIFY2(!parentEnv.contains(kServiceToken), parentEnv.constData());
        const QByteArray echoed =
            exec(QStringLiteral("echo ") + QString::fromLatin1(kServiceToken));
        QVERIFY2(echoed.contains("***") && !echoed.contains(kServiceToken), echoed.constData());
        QVERIFY(svc.terminate());
    }

    // For another process of the same (non-root) user, flotillad is not dumpable: its environ
    // and memory cannot be read, although the user owns it.
    void sameUserCannotReadTheServiceProcess() {
        if (::geteuid() != 0)
            QSKIP("needs root to run the service as another user (runuser); CI runs as root");
        QTemporaryDir tmp;
        QVERIFY(
            QFile::setPermissions(tmp.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                  QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                                  QFileDevice::WriteOther | QFileDevice::ExeOther));
        QProcessEnvironment env = hermeticEnv(tmp.path());
        env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromLatin1(kServiceToken));
        ServiceProcess svc;
        svc.setRunAs(QStringLiteral("nobody"));
        QVERIFY2(
            svc.start({QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data")}, env),
            svc.stdErr().constData());
        const qint64 pid = svc.servicePid();
        QVERIFY(pid > 0);
        QProcess reader;
        reader.start(QStringLiteral("runuser"),
                     {QStringLiteral("-u"), QStringLiteral("nobody"), QStringLiteral("--"),
                      QStringLiteral("cat"), QStringLiteral("/proc/%1/environ").arg(pid)});
        QVERIFY(reader.waitForFinished(10000));
        QVERIFY2(reader.exitCode() != 0, reader.readAllStandardOutput().constData());
        QVERIFY2(reader.readAllStandardError().contains("Permission denied"), "not refused");
        // A process of its own user that is dumpable, for contrast: readable.
        QProcess own;
        own.start(QStringLiteral("runuser"),
                  {QStringLiteral("-u"), QStringLiteral("nobody"), QStringLiteral("--"),
                   QStringLiteral("sh"), QStringLiteral("-c"),
                   QStringLiteral("cat /proc/$$/environ > /dev/null && echo readable")});
        QVERIFY(own.waitForFinished(10000));
        QCOMPARE(own.readAllStandardOutput().trimmed(), QByteArray("readable"));
        QVERIFY(svc.terminate());
    }

    // An agent's live token is masked in exec output like a secret.
    void execMasksAgentTokens() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("hello"));
        QCOMPARE(rig.send(QStringLiteral("hi")).status, 200);
        QVERIFY(rig.waitTurns(1, 60000));
        const QString headerFile = headerFileOf(rig, rig.agentId);
        const QByteArray token = tokenOfHeaderFile(headerFile);
        QVERIFY(!token.isEmpty());
        const HttpResponse r =
            rig.post(QStringLiteral("/api/exec"),
                     QJsonObject{{QStringLiteral("agentId"), rig.agentId},
                                 {xk::Command, QStringLiteral("cat '%1'").arg(headerFile)}});
        QCOMPARE(r.status, 200);
        const QString output = r.object().value(xk::Output).toString();
        QVERIFY2(output.startsWith(QStringLiteral("X-Auth-Token: flotilla-agent.")),
                 qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("***")), qPrintable(output));
        QVERIFY2(!output.contains(QString::fromLatin1(token.mid(token.lastIndexOf('.') + 1))),
                 qPrintable(output));
    }

    // Control characters, DEL, C1 and lone surrogates in names: 422 at every door.
    void controlCharactersInNamesAreRefused_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QByteArray>("body");
        const QByteArray cwd = "\"cwd\":\"$WORK\"";
        QTest::newRow("agent ESC") << QStringLiteral("/api/agents")
                                   << QByteArray("{\"name\":\"a\\u001b[2Jb\"," + cwd + "}");
        QTest::newRow("agent NUL")
            << QStringLiteral("/api/agents") << QByteArray("{\"name\":\"a\\u0000b\"," + cwd + "}");
        QTest::newRow("agent newline")
            << QStringLiteral("/api/agents") << QByteArray("{\"name\":\"a\\nb\"," + cwd + "}");
        QTest::newRow("agent DEL")
            << QStringLiteral("/api/agents") << QByteArray("{\"name\":\"a\\u007fb\"," + cwd + "}");
        QTest::newRow("agent C1 CSI")
            << QStringLiteral("/api/agents") << QByteArray("{\"name\":\"a\\u009bb\"," + cwd + "}");
        QTest::newRow("agent lone surrogate")
            << QStringLiteral("/api/agents") << QByteArray("{\"name\":\"a\\ud800b\"," + cwd + "}");
        QTest::newRow("area") << QStringLiteral("/api/areas")
                              << QByteArray("{\"name\":\"x\\u0007y\"}");
        QTest::newRow("channel") << QStringLiteral("/api/notification-channels")
                                 << QByteArray("{\"url\":\"http://127.0.0.1:9/h\",\"name\":"
                                               "\"c\\u001b]0;t\\u0007\"}");
        QTest::newRow("import agent")
            << QStringLiteral("/api/config/import")
            << QByteArray("{\"version\":1,\"categories\":{\"agents\":[{\"name\":\"i\\u001bm\"," +
                          cwd + "}]}}");
        QTest::newRow("import area") << QStringLiteral("/api/config/import")
                                     << QByteArray("{\"version\":1,\"categories\":{\"areas\":[{"
                                                   "\"name\":\"z\\u0085z\"}]}}");
    }
    void controlCharactersInNamesAreRefused() {
        QFETCH(QString, path);
        QFETCH(QByteArray, body);
        TestService svc;
        QVERIFY(svc.start());
        body.replace("$WORK", svc.workDir().toUtf8());
        HttpClient http;
        const HttpResponse r = http.send("POST", svc.url(path), body);
        QCOMPARE(r.status, 422);
        QVERIFY2(r.body.contains("control characters"), r.body.constData());
        // Nothing was made.
        QCOMPARE(http.get(svc.url(QStringLiteral("/api/agents"))).array().size(), 0);
        QCOMPARE(http.get(svc.url(QStringLiteral("/api/areas"))).array().size(), 0);
    }

    // The service's data, worktrees and config directories are no agent's cwd (422), whatever
    // the spelling (a symlink, "..").
    void cwdInServiceDirectoriesIsRefused_data() {
        QTest::addColumn<QString>("where");
        QTest::addColumn<bool>("viaImport");
        QTest::newRow("data dir") << QStringLiteral("$DATA") << false;
        QTest::newRow("inside the data dir") << QStringLiteral("$DATA/agent-tokens") << false;
        QTest::newRow("data dir through ..") << QStringLiteral("$DATA/agent-tokens/..") << false;
        QTest::newRow("data dir through a symlink") << QStringLiteral("$LINK") << false;
        QTest::newRow("worktrees dir") << QStringLiteral("$WORKTREES") << false;
        QTest::newRow("config dir") << QStringLiteral("$CONFIG") << false;
        QTest::newRow("import into the data dir") << QStringLiteral("$DATA") << true;
    }
    void cwdInServiceDirectoriesIsRefused() {
        QFETCH(QString, where);
        QFETCH(bool, viaImport);
        QTemporaryDir config;
        TestService svc([&](ServerConfig &c) {
            c.configDir = config.path();
            c.worktreesDir = c.dataDir + QStringLiteral("-wt");
            QDir().mkpath(c.worktreesDir);
        });
        QVERIFY(svc.start());
        const QString link = svc.workDir() + QStringLiteral("/link");
        QVERIFY(QFile::link(svc.config().dataDir, link));
        where.replace(QStringLiteral("$DATA"), svc.config().dataDir)
            .replace(QStringLiteral("$LINK"), link)
            .replace(QStringLiteral("$WORKTREES"), svc.config().worktreesDir)
            .replace(QStringLiteral("$CONFIG"), config.path());
        QVERIFY(QFileInfo(where).isDir());
        HttpClient http;
        const QJsonObject agent{{QStringLiteral("name"), QStringLiteral("intruder")},
                                {k::Cwd, where}};
        const HttpResponse r =
            viaImport ? http.post(svc.url(QStringLiteral("/api/config/import")),
                                  importDocument({{QStringLiteral("agents"), QJsonArray{agent}}}))
                      : http.post(svc.url(QStringLiteral("/api/agents")), agent);
        QCOMPARE(r.status, 422);
        QVERIFY2(r.body.contains("belongs to flotillad"), r.body.constData());
        QCOMPARE(http.get(svc.url(QStringLiteral("/api/agents"))).array().size(), 0);
        // Beside it, a normal project is fine.
        QCOMPARE(http.post(svc.url(QStringLiteral("/api/agents")),
                           QJsonObject{{QStringLiteral("name"), QStringLiteral("fine")},
                                       {k::Cwd, svc.workDir()}})
                     .status,
                 201);
    }

    // A boss's spawn block goes through the same doors: a name with an escape sequence and a
    // cwd in the data directory are refused, the boss is told why.
    void spawnBlocksAreCheckedToo() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        const QJsonArray spawns{
            QJsonObject{{QStringLiteral("name"), QStringLiteral("evil\u001b[2J")}},
            QJsonObject{{QStringLiteral("name"), QStringLiteral("in-data")},
                        {k::Cwd, rig.svc->config().dataDir}}};
        rig.mock.queueText(fenced("spawn", json(spawns)) + QStringLiteral("Spawned."));
        sendCommand(rig, bossId, QStringLiteral("Get helpers"));
        QVERIFY(rig.waitTurns(1, 60000, bossId));
        const QString said = rig.streamedText(bossId);
        QVERIFY2(said.contains(QStringLiteral("control characters")), qPrintable(said));
        QVERIFY2(said.contains(QStringLiteral("belongs to flotillad")), qPrintable(said));
        QCOMPARE(rig.ws->countOf(QStringLiteral("boss_spawned_agent")), 0);
    }

    // What the log prints from a request is escaped: an escape sequence in a command reaches the
    // journal as text.
    void logEscapesControlCharacters() {
        QCOMPARE(escapeForLog(QStringLiteral("a\u001b[31mb\nc\u009b")),
                 QStringLiteral("a\\x1b[31mb\\nc\\x9b"));
        const QtMessageHandler previous = qInstallMessageHandler(captureLog);
        installSecretSafeLogging(); // escapes, then hands on to captureLog
        ExecFixture f;
        QVERIFY(f.start());
        QCOMPARE(f.exec(QStringLiteral("true # \u001b]0;owned\u0007")).status, 200);
        qInstallMessageHandler(previous);
        const QStringList lines = g_logged.filter(QStringLiteral("runs:"));
        QVERIFY2(!lines.isEmpty(), qPrintable(g_logged.join(QLatin1Char('\n'))));
        QVERIFY2(lines.last().contains(QStringLiteral("\\x1b]0;owned\\x07")),
                 qPrintable(lines.last()));
        QVERIFY(!lines.last().contains(QChar(0x1b)));
    }

    // Calls of one agent's hook that a rule answers are logged up to a budget; past it they are
    // counted, and the real history of other agents stays in the log.
    void decisionLogIsNotFloodedByOneHook() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString other = createAgent(rig, QStringLiteral("other"));
        QVERIFY(!other.isEmpty());
        QCOMPARE(rig.post(QStringLiteral("/api/permission-rules"),
                          QJsonObject{{QStringLiteral("decision"), QStringLiteral("deny")},
                                      {QStringLiteral("tool"), QStringLiteral("Bash")},
                                      {QStringLiteral("pattern"), QStringLiteral("rm")}})
                     .status,
                 201);
        auto hookCall = [&](const QString &agentId) {
            return rig.post(
                QStringLiteral("/api/agents/%1/permission-check").arg(agentId),
                QJsonObject{{QStringLiteral("hook_event_name"), QStringLiteral("PreToolUse")},
                            {QStringLiteral("tool_name"), QStringLiteral("Bash")},
                            {QStringLiteral("tool_input"),
                             QJsonObject{{QStringLiteral("command"), QStringLiteral("rm -rf x")}}},
                            {QStringLiteral("tool_use_id"), QStringLiteral("t")}});
        };
        QCOMPARE(hookCall(other).status, 200); // the real history
        int calls = 0;
        QElapsedTimer flooding;
        flooding.start();
        for (; calls < 300; ++calls)
            QCOMPARE(hookCall(rig.agentId).status, 200); // each still gets its answer
        const qint64 floodMs = flooding.elapsed();
        auto decisions = [&](const QString &agentId) {
            return rig.http
                .get(rig.svc->url(QStringLiteral("/api/permission-decisions?limit=1000&agentId=") +
                                  agentId))
                .object()
                .value(QStringLiteral("decisions"))
                .toArray();
        };
        // The budget: 60 at once and one a second (how long the flood took depends on the build:
        // a sanitizer build is several times slower).
        const QJsonArray flood = decisions(rig.agentId);
        QVERIFY2(flood.size() <= 60 + floodMs / 1000 + 1 && flood.size() < calls,
                 qPrintable(QStringLiteral("%1 logged in %2 ms").arg(flood.size()).arg(floodMs)));
        QCOMPARE(flood.at(0).toObject().value(QStringLiteral("via")).toString(),
                 QStringLiteral("hook"));
        QCOMPARE(decisions(other).size(), 1);
        // Once the budget refills, the next entry says how many were not logged: every call is
        // either an entry or counted in the `suppressed` of the entry after it.
        QVERIFY(QTest::qWaitFor(
            [&] {
                hookCall(rig.agentId);
                ++calls;
                return decisions(rig.agentId).size() > flood.size();
            },
            5000));
        int accounted = 0;
        for (const QJsonValue &d : decisions(rig.agentId))
            accounted += 1 + d.toObject().value(QStringLiteral("suppressed")).toInt();
        QCOMPARE(accounted, calls);
        QVERIFY(
            decisions(rig.agentId).at(0).toObject().value(QStringLiteral("suppressed")).toInt() >
            0);
    }

    // A pending request shows its input with secrets and tokens masked, to the WebSocket and on
    // GET /api/permission-requests; the CLI's answer is unaffected.
    void pendingRequestsMaskSecrets() {
        AgentRig rig([](ServerConfig &c) { c.authToken = kServiceToken; });
        QVERIFY(rig.start());
        QCOMPARE(rig.http
                     .send("PUT", rig.svc->url(QStringLiteral("/api/secrets/DEPLOY_KEY")),
                           R"({"value":"hunter2-secret"})")
                     .status,
                 201);
        // A hook call held open: written on a raw socket, answered later.
        QTcpSocket hook;
        QVERIFY(connectRaw(hook, rig.svc->port()));
        const QByteArray body =
            QJsonDocument(
                QJsonObject{
                    {QStringLiteral("hook_event_name"), QStringLiteral("PermissionRequest")},
                    {QStringLiteral("tool_name"), QStringLiteral("Bash")},
                    {QStringLiteral("tool_input"),
                     QJsonObject{{QStringLiteral("command"),
                                  QString(QStringLiteral("deploy --key hunter2-secret --token ") +
                                          QString::fromLatin1(kServiceToken))}}}})
                .toJson(QJsonDocument::Compact);
        hook.write("POST /api/agents/" + rig.agentId.toUtf8() +
                   "/permission-check HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Auth-Token: " +
                   kServiceToken + "\r\nContent-Type: application/json\r\nContent-Length: " +
                   QByteArray::number(body.size()) + "\r\n\r\n" + body);
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 10000));
        const QByteArray event = QJsonDocument(rig.ws->last(QStringLiteral("permission_request")))
                                     .toJson(QJsonDocument::Compact);
        QVERIFY2(event.contains("deploy --key *** --token ***"), event.constData());
        const HttpResponse pending =
            rig.http.get(rig.svc->url(QStringLiteral("/api/permission-requests")));
        QCOMPARE(pending.status, 200);
        QVERIFY2(!pending.body.contains("hunter2-secret") && !pending.body.contains(kServiceToken),
                 pending.body.constData());
        QVERIFY(pending.body.contains("deploy --key ***"));
    }
};

QTEST_GUILESS_MAIN(TestSecurityExposure)
#include "tst_security_exposure.moc"
