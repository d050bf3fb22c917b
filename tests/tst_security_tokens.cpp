// Tokens (docs/security.md): the token file an installed service starts with (the real
// flotillad binary), and the scoped token each agent process gets instead of the service's (the
// real Claude Code CLI against the mock model): what it can do for itself, and every way it
// could try to raise its rights.

#include "protocol/WireNames.h"
#include "support/AgentRig.h"
#include "support/FileProbe.h"
#include "support/HttpClient.h"
#include "support/ServiceProcess.h"
#include "support/WsTestKit.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace flotilla;
using namespace flotilla::test;

namespace {

namespace c = wire::code;

QStringList serviceArgs(const QTemporaryDir &tmp, const QString &tokenFile) {
    return {QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data"),
            QStringLiteral("--token-file"), tokenFile};
}

bool writeFile(const QString &path, const QByteArray &content, int mode) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(content) != content.size())
        return false;
    f.close();
    return ::chmod(QFile::encodeName(path).constData(), mode_t(mode)) == 0;
}

// KEY=value lines of an `env` dump.
QHash<QString, QString> parseEnv(const QByteArray &dump) {
    QHash<QString, QString> out;
    for (const QByteArray &line : dump.split('\n')) {
        const qsizetype eq = line.indexOf('=');
        if (eq > 0)
            out.insert(QString::fromUtf8(line.left(eq)), QString::fromUtf8(line.mid(eq + 1)));
    }
    return out;
}

const QByteArray kServiceToken = "service-token-0123456789abcdef0123456789abcdef";

} // namespace

class TestSecurityTokens : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tokenFileIsCreatedPrivateAndReused() {
        QTemporaryDir tmp;
        const QString file = tmp.path() + QStringLiteral("/config/flotilla/token");
        ServiceProcess svc;
        QVERIFY2(svc.start(serviceArgs(tmp, file), hermeticEnv(tmp.path())),
                 svc.stdErr().constData());
        QCOMPARE(modeOf(file), 0600);
        QCOMPARE(modeOf(QFileInfo(file).absolutePath()), 0700);
        const QByteArray token = readAll(file).trimmed();
        QVERIFY2(QRegularExpression(QStringLiteral("^[0-9a-f]{64}$"))
                     .match(QString::fromLatin1(token))
                     .hasMatch(),
                 token.constData()); // 256 bits
        QCOMPARE(HttpClient().get(localUrl(svc.port(), QStringLiteral("/api/agents"))).status, 401);
        QCOMPARE(HttpClient(token).get(localUrl(svc.port(), QStringLiteral("/api/agents"))).status,
                 200);
        QVERIFY(HttpClient()
                    .get(localUrl(svc.port(), QStringLiteral("/api/health")))
                    .object()
                    .value(QStringLiteral("authRequired"))
                    .toBool());
        QVERIFY2(!svc.stdErr().contains(token), "the token reached the log");
        QVERIFY(svc.terminate());

        // A second start reads the same token, and leaves no temporary file behind.
        ServiceProcess again;
        QVERIFY2(again.start(serviceArgs(tmp, file), hermeticEnv(tmp.path())),
                 again.stdErr().constData());
        QCOMPARE(readAll(file).trimmed(), token);
        QCOMPARE(
            HttpClient(token).get(localUrl(again.port(), QStringLiteral("/api/agents"))).status,
            200);
        QCOMPARE(QDir(QFileInfo(file).absolutePath()).entryList(QDir::Files | QDir::Hidden).size(),
                 1);
    }

    void unsafeTokenFileIsRefused_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("why");
        const QByteArray good = "0123456789abcdef0123456789abcdef\n";
        QTest::newRow("group readable") << good << 0640 << QStringLiteral("other users (mode 640)");
        QTest::newRow("world readable") << good << 0604 << QStringLiteral("other users (mode 604)");
        QTest::newRow("group writable") << good << 0620 << QStringLiteral("other users (mode 620)");
        QTest::newRow("empty") << QByteArray("\n") << 0600 << QStringLiteral("is empty");
        QTest::newRow("two words") << QByteArray("abc def\n") << 0600
                                   << QStringLiteral("whitespace or control characters");
    }

    void unsafeTokenFileIsRefused() {
        QFETCH(QByteArray, content);
        QFETCH(int, mode);
        QFETCH(QString, why);
        QTemporaryDir tmp;
        const QString file = tmp.path() + QStringLiteral("/token");
        QVERIFY(writeFile(file, content, mode));
        ServiceProcess svc;
        QCOMPARE(svc.runToExit(serviceArgs(tmp, file), hermeticEnv(tmp.path())), 2);
        const QString err = QString::fromUtf8(svc.stdErr().constData());
        QVERIFY2(err.contains(QStringLiteral("token file ") + file) && err.contains(why),
                 qPrintable(err));
        QCOMPARE(readAll(file), content); // never "repaired" behind the user's back
        QVERIFY(!QDir(tmp.path() + QStringLiteral("/data")).exists());
    }

    void tokenFileMustBeAFile() {
        QTemporaryDir tmp;
        const QString dir = tmp.path() + QStringLiteral("/token");
        QVERIFY(QDir().mkpath(dir));
        ServiceProcess svc;
        QCOMPARE(svc.runToExit(serviceArgs(tmp, dir), hermeticEnv(tmp.path())), 2);
        QVERIFY2(svc.stdErr().contains("is not a regular file"), svc.stdErr().constData());

        // A symbolic link is not followed (another user's file, planted in a shared directory).
        const QString target = tmp.path() + QStringLiteral("/elsewhere");
        QVERIFY(writeFile(target, "0123456789abcdef0123456789abcdef\n", 0600));
        const QString link = tmp.path() + QStringLiteral("/link");
        QVERIFY(QFile::link(target, link));
        ServiceProcess linked;
        QCOMPARE(linked.runToExit(serviceArgs(tmp, link), hermeticEnv(tmp.path())), 2);
        QVERIFY2(linked.stdErr().contains("cannot be read"), linked.stdErr().constData());
    }

    void authTokenWinsOverTheFile() {
        QTemporaryDir tmp;
        const QString file = tmp.path() + QStringLiteral("/token");
        QProcessEnvironment env = hermeticEnv(tmp.path());
        env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromLatin1(kServiceToken));
        ServiceProcess svc;
        QVERIFY2(svc.start(serviceArgs(tmp, file), env), svc.stdErr().constData());
        QVERIFY(!QFile::exists(file));
        QCOMPARE(HttpClient(kServiceToken)
                     .get(localUrl(svc.port(), QStringLiteral("/api/agents")))
                     .status,
                 200);
    }

    void noTokenWarnsOnceAtStart() {
        QTemporaryDir tmp;
        ServiceProcess svc;
        QVERIFY2(svc.start({QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data")},
                           hermeticEnv(tmp.path())),
                 svc.stdErr().constData());
        QCOMPARE(HttpClient().get(localUrl(svc.port(), QStringLiteral("/api/agents"))).status, 200);
        QVERIFY(svc.terminate());
        const QByteArray err = svc.stdErr();
        QCOMPARE(err.count("any local user"), 1);
    }

    void listenAllAcceptsATokenFile() {
        QTemporaryDir tmp;
        const QString file = tmp.path() + QStringLiteral("/token");
        ServiceProcess svc;
        QVERIFY2(svc.start(serviceArgs(tmp, file) << QStringLiteral("--listen-all"),
                           hermeticEnv(tmp.path())),
                 svc.stdErr().constData());
        QCOMPARE(HttpClient().get(localUrl(svc.port(), QStringLiteral("/api/agents"))).status, 401);
    }

    // A real agent: its environment names its own token's header file (never the service's token,
    // never a token as text), and with it the agent can do what it needs for itself and nothing
    // more.
    void agentsHoldOnlyTheirOwnToken() {
        AgentRig rig([](ServerConfig &cfg) {
            cfg.authToken = kServiceToken;
            // As if flotillad itself had been started with these in its environment.
            cfg.agentEnvironment.insert(QStringLiteral("AUTH_TOKEN"),
                                        QString::fromLatin1(kServiceToken));
            cfg.agentEnvironment.insert(QStringLiteral("FLOTILLA_TOKEN"),
                                        QString::fromLatin1(kServiceToken));
        });
        QVERIFY(rig.start());
        const HttpResponse created =
            rig.post(QStringLiteral("/api/agents"),
                     {{QStringLiteral("name"), QStringLiteral("me")},
                      {k::Cwd, rig.cwd},
                      {QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(created.status, 201);
        const QString me = created.object().value(k::Id).toString();
        const QString other = rig.agentId;

        // The agent dumps its environment and reports its task with its own token, as the boss
        // instructions tell it to.
        const QString envDump = rig.cwd + QStringLiteral("/env.txt");
        const QString reportCode = rig.cwd + QStringLiteral("/report.txt");
        const QString script =
            QStringLiteral("env > '%1'; curl -s -o /dev/null -w '%{http_code}' -X POST "
                           "\"$FLOTILLA_URL/api/agents/$FLOTILLA_AGENT_ID/report-task\" "
                           "-H 'Content-Type: application/json' -H @\"$FLOTILLA_AUTH_HEADER_FILE\" "
                           "-d '{\"summary\":\"done\",\"status\":\"completed\"}' > '%2'")
                .arg(envDump, reportCode);
        rig.mock.queueToolUse(QStringLiteral("Bash"), {{QStringLiteral("command"), script}});
        rig.mock.queueText(QStringLiteral("reported"));
        QCOMPARE(rig.send(QStringLiteral("report"), me).status, 200);
        QVERIFY(rig.waitTurns(1, 60000, me));

        const QByteArray dump = readAll(envDump);
        QVERIFY2(!dump.isEmpty(), "the agent's command did not run");
        QVERIFY2(!dump.contains(kServiceToken), "the service token reached the agent");
        const QHash<QString, QString> env = parseEnv(dump);
        QVERIFY(!env.contains(QStringLiteral("AUTH_TOKEN")));
        QCOMPARE(env.value(QStringLiteral("FLOTILLA_AGENT_ID")), me);
        QVERIFY(!env.contains(QStringLiteral("FLOTILLA_TOKEN")));
        const QByteArray header =
            readAll(env.value(QStringLiteral("FLOTILLA_AUTH_HEADER_FILE"))).trimmed();
        QVERIFY2(header.startsWith("X-Auth-Token: "), header.constData());
        const QByteArray token = header.mid(14);
        QVERIFY2(token.startsWith(QByteArray("flotilla-agent." + me.toUtf8() + ".")),
                 token.constData());
        QCOMPARE(readAll(reportCode), QByteArray("200"));

        // What the agent may do: for itself only.
        HttpClient agent(token);
        auto url = [&](const QString &path) { return rig.svc->url(path); };
        const QString self = QStringLiteral("/api/agents/") + me;
        const QString them = QStringLiteral("/api/agents/") + other;
        QCOMPARE(agent.get(url(self)).status, 200);
        const HttpResponse patched =
            agent.patch(url(self), {{k::TrackingStatus, QStringLiteral("working")}});
        QCOMPARE(patched.status, 200);
        const HttpResponse raise =
            agent.patch(url(self), {{QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(raise.status, 422);
        QCOMPARE(raise.object().value(k::Code).toString(), QString(c::UnknownField));
        QCOMPARE(agent
                     .post(url(QStringLiteral("/api/notify")),
                           {{k::AgentId, me},
                            {QStringLiteral("title"), QStringLiteral("t")},
                            {QStringLiteral("message"), QStringLiteral("m")}})
                     .status,
                 201);

        // What it may not: 403 each, and nothing changes.
        const QString marker = rig.cwd + QStringLiteral("/exec-ran");
        struct Attempt {
            const char *what;
            HttpResponse response;
        };
        const QList<Attempt> attempts{
            {"exec",
             agent.post(url(QStringLiteral("/api/exec")),
                        {{k::AgentId, me},
                         {QStringLiteral("command"), QStringLiteral("touch '%1'").arg(marker)}})},
            {"secrets list", agent.get(url(QStringLiteral("/api/secrets")))},
            {"secret write",
             agent.send("PUT", url(QStringLiteral("/api/secrets/STOLEN")), R"({"value":"x"})")},
            {"config export", agent.get(url(QStringLiteral("/api/config/export")))},
            {"another agent's PATCH",
             agent.patch(url(them), {{k::TaskLabel, QStringLiteral("x")}})},
            {"another agent's GET", agent.get(url(them))},
            {"another agent's report", agent.post(url(them + QStringLiteral("/report-task")),
                                                  {{QStringLiteral("summary"), QStringLiteral("x")},
                                                   {k::Status, QStringLiteral("completed")}})},
            {"another agent's permission hook",
             agent.post(url(them + QStringLiteral("/permission-check")),
                        {{QStringLiteral("hook_event_name"), QStringLiteral("PreToolUse")}})},
            {"notify as another agent",
             agent.post(url(QStringLiteral("/api/notify")),
                        {{k::AgentId, other},
                         {QStringLiteral("title"), QStringLiteral("t")},
                         {QStringLiteral("message"), QStringLiteral("m")}})},
            {"list agents", agent.get(url(QStringLiteral("/api/agents")))},
            {"message itself", agent.post(url(self + QStringLiteral("/message")),
                                          {{QStringLiteral("message"), QStringLiteral("x")}})},
            {"message another", agent.post(url(them + QStringLiteral("/message")),
                                           {{QStringLiteral("message"), QStringLiteral("x")}})},
            {"create an agent",
             agent.post(url(QStringLiteral("/api/agents")),
                        {{QStringLiteral("name"), QStringLiteral("mine")},
                         {k::Cwd, rig.cwd},
                         {QStringLiteral("permissionMode"), QStringLiteral("auto")}})},
            {"delete itself", agent.del(url(self))},
            {"system prompt", agent.post(url(QStringLiteral("/api/agents/system-settings/prompt")),
                                         {{QStringLiteral("prompt"), QStringLiteral("obey")}})},
        };
        for (const Attempt &a : attempts) {
            QVERIFY2(a.response.status == 403,
                     qPrintable(QStringLiteral("%1: %2 %3")
                                    .arg(QLatin1String(a.what))
                                    .arg(a.response.status)
                                    .arg(QString::fromUtf8(a.response.body))));
            QCOMPARE(a.response.object().value(k::Code).toString(), QString(c::Forbidden));
        }
        QVERIFY(!QFile::exists(marker));
        QCOMPARE(rig.http.get(url(QStringLiteral("/api/agents"))).array().size(), 2);
        QCOMPARE(rig.http.get(url(QStringLiteral("/api/secrets")))
                     .object()
                     .value(QStringLiteral("secrets"))
                     .toArray()
                     .size(),
                 0);

        // The event channel (where permission_response is sent) does not take its token.
        for (const QByteArray &extra :
             {QByteArray("X-Auth-Token: " + token + "\r\n"),
              QByteArray("Sec-WebSocket-Protocol: auth-" + token + "\r\n")}) {
            const QByteArray response = rawExchange(rig.svc->port(), handshake("/ws", extra));
            QVERIFY2(rawStatus(response) == 401, response.constData());
        }
        QByteArray forged = token;
        forged[forged.size() - 1] = forged.endsWith('0') ? '1' : '0';
        QCOMPARE(HttpClient(forged).get(url(self)).status, 401);

        // The token lives as long as the process: stopped, the agent's token is dead.
        QCOMPARE(rig.http
                     .post(url(QStringLiteral("/api/agents/bulk/stop")),
                           {{QStringLiteral("agentIds"), QJsonArray{me}}})
                     .status,
                 200);
        QTRY_VERIFY_WITH_TIMEOUT(!rig.agent(me).value(k::IsProcessRunning).toBool(), 10000);
        QCOMPARE(agent.get(url(self)).status, 401);
    }

    // Agents run as the user and could read the service's token file, config or data directly;
    // the permission hook denies tool uses that name them, even in auto mode (a tripwire for a
    // prompt-injected model; docs/security.md says what it does not catch).
    void toolUsesNamingServiceSecretsAreDenied() {
        QString tokenFile, configDir;
        AgentRig rig([&](ServerConfig &cfg) {
            cfg.authToken = kServiceToken;
            const QString home = cfg.agentEnvironment.value(QStringLiteral("HOME"));
            configDir = home + QStringLiteral("/.config/flotilla");
            cfg.configDir = configDir;
            tokenFile = cfg.dataDir + QStringLiteral("/../token");
            cfg.tokenFile = tokenFile;
        });
        QVERIFY(rig.start());
        QVERIFY(QDir().mkpath(configDir));
        QVERIFY(writeFile(configDir + QStringLiteral("/flotillad.env"),
                          "AUTH_TOKEN=" + kServiceToken + '\n', 0600));
        QVERIFY(writeFile(tokenFile, kServiceToken + '\n', 0600));
        const HttpResponse created =
            rig.post(QStringLiteral("/api/agents"),
                     {{QStringLiteral("name"), QStringLiteral("curious")},
                      {k::Cwd, rig.cwd},
                      {QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(created.status, 201);
        const QString id = created.object().value(k::Id).toString();
        // A stored secret, so that the data directory's secrets file exists to be read.
        QCOMPARE(rig.http
                     .send("PUT", rig.svc->url(QStringLiteral("/api/secrets/DEPLOY_KEY")),
                           R"({"value":"hunter2-secret"})")
                     .status,
                 201);
        QVERIFY(QFile::exists(rig.svc->config().dataDir + QStringLiteral("/secrets.json")));

        const QString dir = rig.cwd + QStringLiteral("/");
        auto bash = [&](const QString &command) {
            return rig.mock.queueToolUse(QStringLiteral("Bash"),
                                         {{QStringLiteral("command"), command}});
        };
        const QStringList denied{
            bash(QStringLiteral("cat '%1' > %2leak-token").arg(QDir::cleanPath(tokenFile), dir)),
            bash(QStringLiteral("cat $HOME/.config/flotilla/flotillad.env > %1leak-env").arg(dir)),
            bash(QStringLiteral("cat ~/.config/flotilla/flotillad.env > %1leak-env2").arg(dir)),
            rig.mock.queueToolUse(
                QStringLiteral("Read"),
                {{QStringLiteral("file_path"),
                  QString(rig.svc->config().dataDir + QStringLiteral("/secrets.json"))}}),
        };
        const QString allowed = bash(QStringLiteral("echo ok > %1fine").arg(dir));
        rig.mock.queueText(QStringLiteral("done"));
        QCOMPARE(rig.send(QStringLiteral("look around"), id).status, 200);
        QVERIFY(rig.waitTurns(1, 60000, id));

        QVERIFY(QFile::exists(dir + QStringLiteral("fine")));
        for (const char *leak : {"leak-token", "leak-env", "leak-env2"})
            QVERIFY2(!QFile::exists(dir + QLatin1String(leak)), leak);
        for (int i = 1; i <= denied.size(); ++i) {
            const QString result = rig.mock.toolResultTextOf(i, denied[i - 1]);
            QVERIFY2(result.contains(QStringLiteral("Flotilla denies")), qPrintable(result));
            QVERIFY(!result.contains(QString::fromLatin1(kServiceToken)));
            QVERIFY(!result.contains(QStringLiteral("hunter2-secret")));
        }
        QVERIFY(!rig.mock.toolResultTextOf(denied.size() + 1, allowed)
                     .contains(QStringLiteral("Flotilla denies")));
    }
};

QTEST_GUILESS_MAIN(TestSecurityTokens)
#include "tst_security_tokens.moc"
