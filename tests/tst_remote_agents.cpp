// Agents on other machines (docs/api.md "Hosts"): a real sshd on 127.0.0.2 serving a separate
// Unix account made here, whose home holds the pinned CLIs (support/RemoteHost.h), and the real
// service in process connecting to it through its own ControlMaster. Hosts' routes and their
// refusals; check's versions, an unreachable host and a host key nobody knows; with both real CLIs
// against the mocks, a remote agent streams a turn, runs a command through its permission hook
// (which reaches flotillad only through the ssh link's forward), and its exec runs as that account
// in that home; no token on any process's command line meanwhile; a host in use cannot go.

#include "protocol/HostNames.h"
#include "support/AgentRig.h"
#include "support/RemoteHost.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <csignal>

using namespace flotilla::test;
namespace hk = flotilla::wire::host::key;

namespace {

// Every process's command line, NULs as spaces.
QList<QByteArray> commandLines() {
    QList<QByteArray> out;
    QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot);
    while (it.hasNext()) {
        QFile f(it.next() + QStringLiteral("/cmdline"));
        if (f.open(QIODevice::ReadOnly))
            out << f.readAll().replace('\0', ' ');
    }
    return out;
}

// The tokens of the agents' header files ("X-Auth-Token: <token>") in the service's data dir
// (`dataDir`/data for a TestService).
QList<QByteArray> agentTokens(const QString &dataDir) {
    QList<QByteArray> out;
    QDirIterator it(dataDir + QStringLiteral("/data/agent-tokens"), QDir::Files);
    while (it.hasNext()) {
        QFile f(it.next());
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = f.readAll();
        const qsizetype colon = text.indexOf(": ");
        if (text.startsWith("X-Auth-Token") && colon > 0)
            out << text.mid(colon + 2).trimmed();
    }
    return out;
}

// The pid of the service's ssh ControlMaster (its control socket is in <data dir>/ssh, and the
// TestService's data dir is `dataDir`/data); 0: none.
qint64 masterPid(const QString &dataDir) {
    const QByteArray socketDir = (dataDir + QStringLiteral("/data/ssh/")).toUtf8();
    QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot);
    while (it.hasNext()) {
        const QString dir = it.next();
        QFile f(dir + QStringLiteral("/cmdline"));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> argv = f.readAll().split('\0');
        if (argv.contains("-M") && argv.contains("ControlMaster=yes") &&
            std::any_of(argv.begin(), argv.end(),
                        [&](const QByteArray &a) { return a.startsWith(socketDir); }))
            return QFileInfo(dir).fileName().toLongLong();
    }
    return 0;
}

} // namespace

class TestRemoteAgents final : public QObject {
    Q_OBJECT

private:
    RemoteHost m_remote;

    // The service as hosts need it: the ssh config, and a token (without one no link starts).
    std::function<void(flotilla::ServerConfig &)> useSshConfig(const QString &config) {
        return [config](flotilla::ServerConfig &c) {
            c.sshConfig = config;
            c.authToken = QByteArrayLiteral("remote-service-token-7f3a");
        };
    }
    QJsonObject hostBody(const QString &name) const {
        return {{QStringLiteral("name"), name},
                {QStringLiteral("ssh"), m_remote.destination()},
                {QStringLiteral("claudeBin"), m_remote.claudeBin()},
                {QStringLiteral("codexBin"), m_remote.codexBin()}};
    }
    // How many of the remote account's processes have `text` in their command line (pgrep reads
    // a regular expression).
    int remoteProcesses(const QString &text) const {
        QProcess pgrep;
        pgrep.start(QStringLiteral("pgrep"),
                    {QStringLiteral("-c"), QStringLiteral("-u"), m_remote.user(),
                     QStringLiteral("-f"), QRegularExpression::escape(text)});
        pgrep.waitForFinished(5000);
        return pgrep.readAllStandardOutput().trimmed().toInt();
    }
    // Host "box" (this sshd) added to the rig's service and connected, the CLI's settings there
    // (Codex reads its config.toml) and `dir` made in the remote home: its path there, empty on
    // failure.
    QString connectBox(AgentRig &rig, const QString &dir) {
        if (rig.isCodex() && !m_remote.writeHomeFile(QStringLiteral(".codex/config.toml"),
                                                     rig.openai.configToml().toUtf8()))
            return {};
        if (!m_remote.writeHomeFile(dir + QStringLiteral("/README"), "hi\n") ||
            rig.http.post(rig.svc->url(QStringLiteral("/api/hosts")),
                          hostBody(QStringLiteral("box")))
                    .status != 201 ||
            !QTest::qWaitFor(
                [&] { return state(rig, QStringLiteral("box")) == QLatin1String("connected"); },
                20000))
            return {};
        return m_remote.home() + QLatin1Char('/') + dir;
    }
    static QString state(AgentRig &rig, const QString &host) {
        return rig.http.get(rig.svc->url(QStringLiteral("/api/hosts/") + host))
            .object()
            .value(hk::State)
            .toString();
    }

private Q_SLOTS:
    void initTestCase() {
        const QString error = m_remote.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void hostsRoutesAndRefusals() {
        AgentRig rig(useSshConfig(m_remote.sshConfig()));
        QVERIFY(rig.start());
        const QUrl hosts = rig.svc->url(QStringLiteral("/api/hosts"));
        // "local" is always there, first, and cannot be made, changed or deleted.
        QJsonArray list = rig.http.get(hosts).array();
        QCOMPARE(list.size(), 1);
        QCOMPARE(list.at(0).toObject().value(hk::Name_).toString(), QStringLiteral("local"));
        QCOMPARE(list.at(0).toObject().value(hk::State).toString(), QStringLiteral("local"));
        QCOMPARE(rig.agent().value(hk::Host).toString(), QStringLiteral("local"));
        QCOMPARE(rig.http.post(hosts, hostBody(QStringLiteral("local"))).status, 409);
        QCOMPARE(rig.http.del(rig.svc->url(QStringLiteral("/api/hosts/local"))).status, 422);
        QCOMPARE(rig.http
                     .patch(rig.svc->url(QStringLiteral("/api/hosts/local")),
                            {{QStringLiteral("maxAgents"), 2}})
                     .status,
                 422);
        // Bad bodies.
        QCOMPARE(rig.http.post(hosts, {{QStringLiteral("name"), QStringLiteral("a")}}).status, 400);
        QJsonObject bad = hostBody(QStringLiteral("b"));
        bad.insert(QStringLiteral("ssh"), QStringLiteral("-oProxyCommand=x"));
        HttpResponse r = rig.http.post(hosts, bad);
        QCOMPARE(r.status, 422);
        QCOMPARE(r.object().value(QStringLiteral("code")).toString(),
                 QStringLiteral("invalid_value"));
        bad = hostBody(QStringLiteral("Bad Name"));
        QCOMPARE(rig.http.post(hosts, bad).status, 422);
        bad = hostBody(QStringLiteral("c"));
        bad.insert(QStringLiteral("colour"), QStringLiteral("red"));
        QCOMPARE(rig.http.post(hosts, bad).object().value(QStringLiteral("code")).toString(),
                 QStringLiteral("unknown_field"));
        bad = hostBody(QStringLiteral("d"));
        bad.insert(QStringLiteral("maxAgents"), 0);
        QCOMPARE(rig.http.post(hosts, bad).status, 422);
        bad = hostBody(QStringLiteral("e"));
        bad.insert(QStringLiteral("claudeBin"), QStringLiteral("bin/claude"));
        QCOMPARE(rig.http.post(hosts, bad).status, 422);
        QCOMPARE(rig.http.get(rig.svc->url(QStringLiteral("/api/hosts/nope"))).status, 404);
        QCOMPARE(rig.http.post(rig.svc->url(QStringLiteral("/api/hosts/nope/check")), {}).status,
                 404);
        // An agent on a host nobody defined.
        r = rig.createAgent(QStringLiteral("lost"), {{hk::Host, QStringLiteral("nowhere")}});
        QCOMPARE(r.status, 422);
        QCOMPARE(r.object().value(QStringLiteral("code")).toString(),
                 QStringLiteral("unknown_host"));

        // A good one: created, announced, connected.
        r = rig.http.post(hosts, hostBody(QStringLiteral("box")));
        QCOMPARE(r.status, 201);
        QCOMPARE(r.object().value(hk::Ssh).toString(), m_remote.destination());
        QVERIFY(rig.ws->waitFor(QStringLiteral("host_created")));
        QTRY_COMPARE_WITH_TIMEOUT(state(rig, QStringLiteral("box")), QStringLiteral("connected"),
                                  20000);
        QVERIFY(rig.ws->waitFor(QStringLiteral("host_updated")));
        QCOMPARE(rig.http.post(hosts, hostBody(QStringLiteral("box"))).status, 409);
        // What a remote host cannot do yet is refused, never done locally instead.
        r = rig.createAgent(QStringLiteral("tree"), {{hk::Host, QStringLiteral("box")},
                                                     {QStringLiteral("cwd"), m_remote.home()},
                                                     {QStringLiteral("worktree"), true}});
        QCOMPARE(r.status, 422);
        r = rig.createAgent(QStringLiteral("boxed"),
                            {{hk::Host, QStringLiteral("box")},
                             {QStringLiteral("cwd"), m_remote.home()},
                             {QStringLiteral("sandbox"),
                              QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")}}}});
        QCOMPARE(r.status, 503);
        r = rig.createAgent(QStringLiteral("relative"),
                            {{hk::Host, QStringLiteral("box")},
                             {QStringLiteral("cwd"), QStringLiteral("project")}});
        QCOMPARE(r.status, 422);
        // In use: 409 naming the agent; free again once it is gone.
        r = rig.createAgent(
            QStringLiteral("user-of-box"),
            {{hk::Host, QStringLiteral("box")}, {QStringLiteral("cwd"), m_remote.home()}});
        QCOMPARE(r.status, 201);
        QCOMPARE(r.object().value(hk::Host).toString(), QStringLiteral("box"));
        const QString id = r.object().value(QStringLiteral("id")).toString();
        const QUrl box = rig.svc->url(QStringLiteral("/api/hosts/box"));
        r = rig.http.del(box);
        QCOMPARE(r.status, 409);
        QCOMPARE(r.object().value(QStringLiteral("code")).toString(),
                 QStringLiteral("host_in_use"));
        QVERIFY(r.object()
                    .value(QStringLiteral("error"))
                    .toString()
                    .contains(QStringLiteral("user-of-box")));
        QCOMPARE(rig.http.del(rig.svc->url(QStringLiteral("/api/agents/") + id)).status, 204);
        QCOMPARE(rig.http.del(box).status, 204);
        QVERIFY(rig.ws->waitFor(QStringLiteral("host_deleted")));
        QCOMPARE(rig.http.get(hosts).array().size(), 1);
    }

    // Without a token the forward would open the service to every user of the host: no link.
    void noTokenNoLink() {
        AgentRig rig(
            [config = m_remote.sshConfig()](flotilla::ServerConfig &c) { c.sshConfig = config; });
        QVERIFY(rig.start());
        QVERIFY(rig.token.isEmpty());
        QCOMPARE(
            rig.http
                .post(rig.svc->url(QStringLiteral("/api/hosts")), hostBody(QStringLiteral("box")))
                .status,
            201);
        QTRY_VERIFY_WITH_TIMEOUT(rig.http.get(rig.svc->url(QStringLiteral("/api/hosts/box")))
                                     .object()
                                     .value(hk::Error)
                                     .toString()
                                     .contains(QStringLiteral("without a token")),
                                 10000);
        QCOMPARE(state(rig, QStringLiteral("box")), QStringLiteral("unreachable"));
        QCOMPARE(masterPid(rig.svc->dataDir()), 0);
    }

    void checkReportsTheHost() {
        AgentRig rig(useSshConfig(m_remote.sshConfig()));
        QVERIFY(rig.start());
        QCOMPARE(
            rig.http
                .post(rig.svc->url(QStringLiteral("/api/hosts")), hostBody(QStringLiteral("box")))
                .status,
            201);
        const QJsonObject c =
            rig.http.post(rig.svc->url(QStringLiteral("/api/hosts/box/check")), {}).object();
        QVERIFY2(c.value(hk::Reachable).toBool(), qPrintable(c.value(hk::Error).toString()));
        QVERIFY(c.value(hk::LatencyMs).toInt() >= 0);
        QCOMPARE(c.value(hk::User).toString(), m_remote.user());
        QCOMPARE(c.value(hk::Home).toString(), m_remote.home());
        QVERIFY2(c.value(hk::Claude).toString().contains(QStringLiteral("Claude Code")),
                 qPrintable(c.value(hk::Claude).toString()));
        QVERIFY2(c.value(hk::Codex).toString().contains(QStringLiteral("codex-cli")),
                 qPrintable(c.value(hk::Codex).toString()));
        QVERIFY(c.value(hk::Git).toString().startsWith(QStringLiteral("git version")));
        // The local host answers too, without ssh.
        const QJsonObject local =
            rig.http.post(rig.svc->url(QStringLiteral("/api/hosts/local/check")), {}).object();
        QVERIFY(local.value(hk::Reachable).toBool());
        QCOMPARE(local.value(hk::Home).toString(), QDir::homePath());
    }

    void unreachableHostSaysWhy() {
        AgentRig rig(useSshConfig(m_remote.sshConfig()));
        QVERIFY(rig.start());
        QJsonObject body = hostBody(QStringLiteral("down"));
        body.insert(hk::Ssh,
                    QString(m_remote.user() + QStringLiteral("@127.0.0.2:1"))); // nothing listens
        QCOMPARE(rig.http.post(rig.svc->url(QStringLiteral("/api/hosts")), body).status, 201);
        const QJsonObject c =
            rig.http.post(rig.svc->url(QStringLiteral("/api/hosts/down/check")), {}).object();
        QVERIFY(!c.value(hk::Reachable).toBool());
        QVERIFY2(c.value(hk::Error).toString().contains(QStringLiteral("refused")),
                 qPrintable(c.value(hk::Error).toString()));
        QTRY_COMPARE_WITH_TIMEOUT(state(rig, QStringLiteral("down")), QStringLiteral("unreachable"),
                                  20000);
        // Its agents' messages fail with the reason; nothing runs anywhere else.
        HttpResponse r =
            rig.createAgent(QStringLiteral("waiting"), {{hk::Host, QStringLiteral("down")},
                                                        {QStringLiteral("cwd"), m_remote.home()}});
        QCOMPARE(r.status, 201);
        const QString id = r.object().value(QStringLiteral("id")).toString();
        rig.send(QStringLiteral("hello"), id);
        QTRY_VERIFY_WITH_TIMEOUT(rig.agent(id)
                                     .value(QStringLiteral("lastError"))
                                     .toString()
                                     .contains(QStringLiteral("host unreachable")),
                                 20000);
        QCOMPARE(rig.model().requestCount(), 0);
        r = rig.http.post(
            rig.svc->url(QStringLiteral("/api/exec")),
            {{QStringLiteral("agentId"), id}, {QStringLiteral("command"), QStringLiteral("true")}});
        QCOMPARE(r.status, 503);
        QCOMPARE(r.object().value(QStringLiteral("code")).toString(),
                 QStringLiteral("host_unreachable"));
    }

    void unknownHostKeyIsRefused() {
        // The same sshd under a name whose key known_hosts does not hold.
        QTemporaryDir dir;
        QFile base(m_remote.sshConfig());
        QVERIFY(base.open(QIODevice::ReadOnly));
        const QString config = dir.filePath(QStringLiteral("ssh_config"));
        QFile out(config);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("Host stranger\n  HostName 127.0.0.2\n  HostKeyAlias flotilla-unknown-key\n\n" +
                  base.readAll());
        out.close();
        AgentRig rig(useSshConfig(config));
        QVERIFY(rig.start());
        QJsonObject body = hostBody(QStringLiteral("stranger"));
        body.insert(hk::Ssh,
                    QStringLiteral("%1@stranger:%2").arg(m_remote.user()).arg(m_remote.port()));
        QCOMPARE(rig.http.post(rig.svc->url(QStringLiteral("/api/hosts")), body).status, 201);
        const QJsonObject c =
            rig.http.post(rig.svc->url(QStringLiteral("/api/hosts/stranger/check")), {}).object();
        QVERIFY(!c.value(hk::Reachable).toBool());
        QVERIFY2(c.value(hk::Error).toString().contains(QStringLiteral("Host key verification")),
                 qPrintable(c.value(hk::Error).toString()));
        QTRY_COMPARE_WITH_TIMEOUT(state(rig, QStringLiteral("stranger")),
                                  QStringLiteral("unreachable"), 20000);
        const QJsonObject host =
            rig.http.get(rig.svc->url(QStringLiteral("/api/hosts/stranger"))).object();
        QVERIFY2(host.value(hk::Error).toString().contains(QStringLiteral("known_hosts")),
                 qPrintable(host.value(hk::Error).toString()));
    }

    void remoteAgentWorksThere_data() { addProviderRows(); }
    void remoteAgentWorksThere() {
        QFETCH(QString, provider);
        AgentRig rig(provider, useSshConfig(m_remote.sshConfig()));
        QVERIFY(rig.start());
        const QString project = connectBox(rig, QStringLiteral("project-") + provider);
        QVERIFY(!project.isEmpty());
        HttpResponse r =
            rig.createAgent(QStringLiteral("remote-1"),
                            {{hk::Host, QStringLiteral("box")}, {QStringLiteral("cwd"), project}});
        QCOMPARE(r.status, 201);
        const QString id = r.object().value(QStringLiteral("id")).toString();

        // A command through the CLI's tool: it asks (Claude's hook reaches flotillad through the
        // link's forward; Codex asks over its stdio), the answer goes back, it runs there, and
        // the answer streams.
        rig.model().queueCommand(QStringLiteral("id -un > whoami.txt; pwd >> whoami.txt"));
        rig.model().queueText(QStringLiteral("Ran it over there."));
        rig.send(QStringLiteral("who are you?"), id);
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        const QJsonObject request = rig.ws->last(QStringLiteral("permission_request"))
                                        .value(QStringLiteral("payload"))
                                        .toObject();
        QCOMPARE(request.value(QStringLiteral("agentId")).toString(), id);
        QVERIFY(rig.waitStatus(QStringLiteral("waiting_permission"), 30000, id));
        QVERIFY(!QFile::exists(project + QStringLiteral("/whoami.txt")));
        rig.ws->sendJson(QJsonObject{
            {QStringLiteral("type"), QStringLiteral("permission_response")},
            {QStringLiteral("payload"),
             QJsonObject{{QStringLiteral("requestId"), request.value(QStringLiteral("id"))},
                         {QStringLiteral("approved"), true}}}});
        QVERIFY(rig.waitTurns(1, 90000, id));
        QVERIFY2(rig.streamedText(id).contains(QStringLiteral("Ran it over there.")),
                 qPrintable(rig.streamedText(id) +
                            rig.agent(id).value(QStringLiteral("lastError")).toString()));
        QFile whoami(project + QStringLiteral("/whoami.txt"));
        QVERIFY2(whoami.open(QIODevice::ReadOnly), "the command did not run on the host");
        const QByteArray ran = whoami.readAll();
        QVERIFY2(ran.startsWith(QByteArray(m_remote.user().toUtf8() + "\n")), ran.constData());
        QVERIFY(ran.contains(project.toUtf8()));
        const QList<QByteArray> lines = commandLines();
        QVERIFY(!agentTokens(rig.svc->dataDir()).isEmpty()); // the live process's own
        QVERIFY(!rig.token.isEmpty());
        QList<QByteArray> secrets = agentTokens(rig.svc->dataDir());
        secrets << rig.token;
        for (const QByteArray &secret : std::as_const(secrets)) {
            for (const QByteArray &line : lines)
                QVERIFY2(secret.isEmpty() || !line.contains(secret),
                         qPrintable(QStringLiteral("a token on a command line: ") +
                                    QString::fromUtf8(line.left(200))));
        }

        // The next message resumes the same session there.
        const int before = rig.model().requestCount();
        rig.model().queueText(QStringLiteral("Second turn."));
        rig.send(QStringLiteral("again"), id);
        QVERIFY(rig.waitTurns(2, 90000, id));
        QVERIFY(rig.model()
                    .conversationOf(rig.model().requestCount() - 1)
                    .contains(QStringLiteral("who are you?")));
        QVERIFY(rig.model().requestCount() > before);

        // Its history, search and sessions read that host's session files (a copy this machine
        // keeps, brought up to date on each request).
        const QString base = QStringLiteral("/api/agents/%1/").arg(id);
        r = rig.http.get(rig.svc->url(base + QStringLiteral("history?limit=50")));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("sessionId")).toString(),
                 rig.agent(id).value(QStringLiteral("sessionId")).toString());
        QVERIFY2(r.body.contains("who are you?") && r.body.contains("Second turn."),
                 r.body.left(2000).constData());
        r = rig.http.get(rig.svc->url(base + QStringLiteral("search?q=Ran%20it%20over")));
        QCOMPARE(r.status, 200);
        QVERIFY2(r.body.contains("Ran it over there."), r.body.left(2000).constData());
        r = rig.http.get(rig.svc->url(base + QStringLiteral("sessions")));
        QCOMPARE(r.status, 200);
        QVERIFY(
            r.body.contains(rig.agent(id).value(QStringLiteral("sessionId")).toString().toUtf8()));
        // A third turn there: the next page shows it (only the new bytes were fetched).
        rig.model().queueText(QStringLiteral("Third turn."));
        rig.send(QStringLiteral("once more"), id);
        QVERIFY(rig.waitTurns(3, 90000, id));
        QTRY_VERIFY_WITH_TIMEOUT(
            rig.http.get(rig.svc->url(base + QStringLiteral("history?limit=50")))
                .body.contains("Third turn."),
            20000);

        // exec of that agent runs there, as that account, in that home.
        r = rig.http.post(
            rig.svc->url(QStringLiteral("/api/exec")),
            {{QStringLiteral("agentId"), id},
             {QStringLiteral("command"),
              QStringLiteral("id -un; echo \"$HOME\"; pwd; printf 'a\\nb' | wc -l")}});
        QCOMPARE(r.status, 200);
        const QString output = r.object().value(QStringLiteral("output")).toString();
        QCOMPARE(output,
                 QStringLiteral("%1\n%2\n%3\n1\n").arg(m_remote.user(), m_remote.home(), project));

        // A working directory that host does not have: the turn fails and says so.
        r = rig.createAgent(QStringLiteral("remote-lost"),
                            {{hk::Host, QStringLiteral("box")},
                             {QStringLiteral("cwd"), QStringLiteral("/nonexistent/flotilla-dir")}});
        QCOMPARE(r.status, 201);
        const QString lost = r.object().value(QStringLiteral("id")).toString();
        rig.send(QStringLiteral("hello?"), lost);
        QVERIFY(rig.waitStatus(QStringLiteral("error"), 30000, lost));
        const QString why = rig.agent(lost).value(QStringLiteral("lastError")).toString();
        QVERIFY2(why.contains(QStringLiteral("no directory /nonexistent/flotilla-dir")),
                 qPrintable(why));
    }

    // Stopping a remote agent mid-command ends the command there (its group gets the signal over
    // the link, not just an EOF), and so does an exec task's timeout.
    void stopEndsTheCommandThere() {
        AgentRig rig(useSshConfig(m_remote.sshConfig()));
        QVERIFY(rig.start());
        const QString project = connectBox(rig, QStringLiteral("stop"));
        QVERIFY(!project.isEmpty());
        HttpResponse r =
            rig.createAgent(QStringLiteral("remote-stop"),
                            {{hk::Host, QStringLiteral("box")},
                             {QStringLiteral("cwd"), project},
                             {QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(r.status, 201);
        const QString id = r.object().value(QStringLiteral("id")).toString();
        // (Claude Code refuses a standalone `sleep`; a long-running program is what matters.)
        const QString marker = QStringLiteral("time.sleep(307)");
        rig.model().queueCommand(QStringLiteral("python3 -c 'import time; time.sleep(307)'"));
        rig.model().queueText(QStringLiteral("never"));
        rig.send(QStringLiteral("wait a while"), id);
        QTRY_VERIFY2_WITH_TIMEOUT(remoteProcesses(marker) > 0,
                                  qPrintable(QStringLiteral("requests %1, output: %2")
                                                 .arg(rig.model().requestCount())
                                                 .arg(rig.streamedText(id))),
                                  60000);
        r = rig.http.post(rig.svc->url(QStringLiteral("/api/agents/bulk/stop")),
                          {{QStringLiteral("agentIds"), QJsonArray{id}}});
        QCOMPARE(r.status, 200);
        QVERIFY(rig.waitStatus(QStringLiteral("stopped"), 30000, id));
        QTRY_COMPARE_WITH_TIMEOUT(remoteProcesses(marker), 0, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(remoteProcesses(QStringLiteral("claude")), 0, 20000);

        const QString execMarker = QStringLiteral("sleep 308");
        r = rig.http.post(rig.svc->url(QStringLiteral("/api/exec")),
                          {{QStringLiteral("agentId"), id},
                           {QStringLiteral("command"), execMarker},
                           {QStringLiteral("timeoutMs"), 1500}});
        QCOMPARE(r.status, 200);
        QVERIFY(r.object().value(QStringLiteral("timedOut")).toBool());
        QTRY_COMPARE_WITH_TIMEOUT(remoteProcesses(execMarker), 0, 20000);
    }

    // The link dies mid-turn: the turn fails as "host unreachable", the link comes back by
    // itself, and the next message resumes the same session on that host.
    void droppedLinkCostsAReconnect_data() { addProviderRows(); }
    void droppedLinkCostsAReconnect() {
        QFETCH(QString, provider);
        AgentRig rig(provider, useSshConfig(m_remote.sshConfig()));
        QVERIFY(rig.start());
        const QString project = connectBox(rig, QStringLiteral("drop-") + provider);
        QVERIFY(!project.isEmpty());
        HttpResponse r =
            rig.createAgent(QStringLiteral("remote-drop"),
                            {{hk::Host, QStringLiteral("box")}, {QStringLiteral("cwd"), project}});
        QCOMPARE(r.status, 201);
        const QString id = r.object().value(QStringLiteral("id")).toString();
        rig.model().queueText(QStringLiteral("First answer."));
        rig.send(QStringLiteral("remember the word heron"), id);
        QVERIFY(rig.waitTurns(1, 90000, id));
        const QString session = rig.agent(id).value(QStringLiteral("sessionId")).toString();
        QVERIFY(!session.isEmpty());

        const int requests = rig.model().requestCount();
        rig.model().queueHang();
        rig.send(QStringLiteral("now wait"), id);
        QTRY_VERIFY_WITH_TIMEOUT(rig.model().requestCount() > requests, 30000);
        const qint64 master = masterPid(rig.svc->dataDir());
        QVERIFY(master > 0);
        QCOMPARE(::kill(pid_t(master), SIGKILL), 0);
        QVERIFY(rig.waitStatus(QStringLiteral("error"), 30000, id));
        const QString lastError = rig.agent(id).value(QStringLiteral("lastError")).toString();
        QVERIFY2(lastError.contains(QStringLiteral("host unreachable")), qPrintable(lastError));
        QTRY_COMPARE_WITH_TIMEOUT(state(rig, QStringLiteral("box")), QStringLiteral("connected"),
                                  20000);
        QVERIFY(masterPid(rig.svc->dataDir()) != master);

        rig.model().clearQueue();
        rig.model().queueText(QStringLiteral("Still the same conversation."));
        rig.send(QStringLiteral("which word?"), id);
        QTRY_VERIFY_WITH_TIMEOUT(
            rig.streamedText(id).contains(QStringLiteral("Still the same conversation.")), 90000);
        QCOMPARE(rig.agent(id).value(QStringLiteral("sessionId")).toString(), session);
        QVERIFY(rig.model()
                    .conversationOf(rig.model().requestCount() - 1)
                    .contains(QStringLiteral("heron")));
    }
};

QTEST_GUILESS_MAIN(TestRemoteAgents)
#include "tst_remote_agents.moc"
