// ssh:// services: the monitor reaching a flotillad through `ssh -N -L`, against a
// real sshd on loopback started here (key authentication with keys made here) and the real
// flotillad binary (URL parsing and the command line: tst_monitor_ssh_target): refusals, REST
// and WebSocket events through the tunnel, a killed ssh
// restarted and the session reconnected, a refused key failing without a prompt, ssh stopped on
// close and on destruction, and real CLI turns streamed through the tunnel before and after its
// ssh is killed. A machine without sshd fails here (scripts/install-deps.sh installs it): it
// never skips.

#include "core/MonitorSession.h"
#include "core/SshTunnel.h"
#include "protocol/WireNames.h"
#include "support/AgentRig.h"
#include "support/MonitorFixture.h"
#include "support/SshServer.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <sys/types.h>

using namespace flotilla::test;
using namespace flotilla::monitor;
using flotilla::client::ServiceClient;
namespace m = flotilla::wire::msg;
namespace k = flotilla::wire::key;

namespace {

const QByteArray kToken = QByteArrayLiteral("remote-service-token");

QString name(SshTunnel::State state) {
    return toString(state);
}

QStringList names(const QSignalSpy &spy) {
    QStringList out;
    for (const QList<QVariant> &args : spy)
        out << toString(args.at(0).value<SshTunnel::State>());
    return out;
}

bool processGone(qint64 pid) {
    return ::kill(pid_t(pid), 0) == -1 && errno == ESRCH;
}

} // namespace

class TestMonitorSsh final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_home;
    SshServer m_sshd;
    MonitorService m_service;

    // The tunnel as the tests run it: only the test's key and known_hosts, short backoff.
    void configure(SshTunnel &tunnel, const QString &key = {}) {
        tunnel.setExtraOptions(m_sshd.clientOptions(key.isEmpty() ? m_sshd.clientKey() : key));
        tunnel.setBackoff(100, 1000);
    }
    // Opens the session on the ssh:// service and waits until its client is connected through
    // the tunnel.
    bool openThroughSsh(MonitorSession &s, const QByteArray &token = kToken) {
        configure(s.tunnel());
        s.client().setInitialBackoffMs(100);
        s.client().setMaxBackoffMs(1000);
        s.open({m_sshd.url(m_service.port()), token});
        return QTest::qWaitFor(
            [&] {
                return s.tunnel().state() == SshTunnel::State::Up &&
                       s.client().state() == flotilla::client::ConnectionState::Connected;
            },
            20000);
    }
    QString diagnostics(MonitorSession &s) {
        return QStringLiteral("tunnel %1 (%2), client %3; sshd log:\n%4")
            .arg(name(s.tunnel().state()), s.tunnel().lastError(), stateName(s.client().state()),
                 QString::fromLocal8Bit(m_sshd.log().right(3000)));
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("HOME", QFile::encodeName(m_home.path()));
        // Missing OpenSSH is a broken machine, not a reason to skip.
        const QString error = m_sshd.start();
        if (!error.isEmpty())
            QFAIL(qPrintable(error));
        QVERIFY(m_service.start(0, kToken));
    }

    void refusalsNeedNoServer() {
        SshTunnel tunnel;
        QSignalSpy states(&tunnel, &SshTunnel::stateChanged);
        tunnel.start(QUrl(QStringLiteral("ssh://-oProxyCommand=touch@h")));
        QCOMPARE(name(tunnel.state()), QStringLiteral("Failed"));
        QVERIFY2(tunnel.lastError().contains(QStringLiteral("'-'")),
                 qPrintable(tunnel.lastError()));
        QCOMPARE(tunnel.processId(), 0);
        // No ssh program: Failed, saying what to install, instead of retrying for ever.
        tunnel.setProgram(QStringLiteral("/nonexistent/ssh"));
        tunnel.start(m_sshd.url(m_service.port()));
        QCOMPARE(name(tunnel.state()), QStringLiteral("Failed"));
        QVERIFY2(tunnel.lastError().contains(QStringLiteral("openssh-client")),
                 qPrintable(tunnel.lastError()));
        // A program that cannot run (not an executable format): Failed too.
        const QString broken = m_home.filePath(QStringLiteral("broken-ssh"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("\x7f"
                   "not an executable\n");
        file.close();
        QVERIFY(file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        tunnel.setProgram(broken);
        tunnel.start(m_sshd.url(m_service.port()));
        QTRY_COMPARE(name(tunnel.state()), QStringLiteral("Failed"));
        QVERIFY2(tunnel.lastError().contains(QStringLiteral("cannot run")),
                 qPrintable(tunnel.lastError()));
        QVERIFY(!names(states).contains(QStringLiteral("Reconnecting")));
    }

    void restAndEventsGoThroughTheTunnel() {
        // A local token file the session must not offer to the remote service: the tunnel's
        // local URL is a loopback one, which would otherwise pick it up.
        QTemporaryDir config;
        QDir().mkpath(config.filePath(QStringLiteral("flotilla")));
        QFile local(config.filePath(QStringLiteral("flotilla/token")));
        QVERIFY(local.open(QIODevice::WriteOnly));
        local.write("this-machines-token\n");
        local.close();
        QVERIFY(local.setPermissions(QFile::ReadOwner | QFile::WriteOwner));

        MonitorSession s(config.path());
        QSignalSpy tunnelStates(&s.tunnel(), &SshTunnel::stateChanged);
        QSignalSpy events(&s.client(), &ServiceClient::eventReceived);
        QVERIFY2(openThroughSsh(s), qPrintable(diagnostics(s)));
        QCOMPARE(names(tunnelStates),
                 (QStringList{QStringLiteral("Starting"), QStringLiteral("Up")}));
        QCOMPARE(s.client().endpoint().baseUrl, s.tunnel().localUrl());
        QCOMPARE(s.client().endpoint().token, kToken);
        QVERIFY(s.tunnel().processId() > 0);

        const auto agents =
            waitReply([&](auto cb) { s.client().get(QStringLiteral("/api/agents"), cb); });
        QCOMPARE(agents.status, 200);
        QVERIFY(agents.body.isArray());

        const QString id = m_service.createAgent(QStringLiteral("through-ssh"));
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY(s.agents().agentIds().contains(id));
        bool created = false;
        for (const QList<QVariant> &e : events)
            created =
                created || (e.at(0).toString() == QLatin1String(m::AgentCreated) &&
                            e.at(1).value<QJsonValue>().toObject().value(k::Id).toString() == id);
        QVERIFY(created);

        // Without a typed token the remote service gets none (and refuses): never the file's.
        s.close();
        s.open({m_sshd.url(m_service.port()), {}});
        QTRY_COMPARE_WITH_TIMEOUT(stateName(s.client().state()), QStringLiteral("AuthFailed"),
                                  20000);
        QVERIFY(s.client().endpoint().token.isEmpty());
    }

    void killedSshIsRestartedAndTheSessionReconnects() {
        MonitorSession s;
        QVERIFY2(openThroughSsh(s), qPrintable(diagnostics(s)));
        const qint64 pid = s.tunnel().processId();
        QVERIFY(pid > 0);
        QSignalSpy tunnelStates(&s.tunnel(), &SshTunnel::stateChanged);
        QSignalSpy clientStates(&s.client(), &ServiceClient::stateChanged);

        QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(names(tunnelStates).contains(QStringLiteral("Reconnecting")),
                                 10000);
        QTRY_COMPARE_WITH_TIMEOUT(name(s.tunnel().state()), QStringLiteral("Up"), 20000);
        QCOMPARE(names(tunnelStates),
                 (QStringList{QStringLiteral("Reconnecting"), QStringLiteral("Up")}));
        QVERIFY(s.tunnel().processId() > 0 && s.tunnel().processId() != pid);
        QTRY_COMPARE_WITH_TIMEOUT(stateName(s.client().state()), QStringLiteral("Connected"),
                                  20000);
        QVERIFY2(clientStates.count() >= 2, "the WebSocket dropped with ssh and came back");

        // Events flow again, through the new ssh.
        const QString id = m_service.createAgent(QStringLiteral("after-restart"));
        QTRY_VERIFY(s.agents().agentIds().contains(id));
    }

    void closeAndDestructionStopSsh() {
        qint64 pid = 0;
        quint16 port = 0;
        {
            MonitorSession s;
            QVERIFY2(openThroughSsh(s), qPrintable(diagnostics(s)));
            pid = s.tunnel().processId();
            port = s.tunnel().localPort();
            s.close();
            QCOMPARE(name(s.tunnel().state()), QStringLiteral("Stopped"));
            QCOMPARE(stateName(s.client().state()), QStringLiteral("Disconnected"));
            QVERIFY2(processGone(pid), "ssh still runs after close()");
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, port);
            QVERIFY(!probe.waitForConnected(2000));

            QVERIFY2(openThroughSsh(s), qPrintable(diagnostics(s)));
            pid = s.tunnel().processId();
        }
        QVERIFY2(processGone(pid), "ssh outlived the session");
    }

    void sharedMasterInTheSshConfigIsNotUsed() {
        // A config that shares connections (ControlMaster auto + ControlPersist) would make
        // `ssh -N -L` hand its forward to a background master and exit at once: nothing left to
        // watch or stop. The tunnel's own options come first, and ssh keeps the first value.
        QTemporaryDir sockets;
        QTemporaryDir configDir;
        const QString config = configDir.filePath(QStringLiteral("ssh_config"));
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QStringLiteral("Host *\n  ControlMaster auto\n  ControlPersist 60\n"
                                  "  ControlPath %1/%C\n")
                       .arg(sockets.path())
                       .toUtf8());
        file.close();
        QStringList options = m_sshd.clientOptions(m_sshd.clientKey());
        options[options.indexOf(QStringLiteral("-F")) + 1] = config;

        MonitorSession s;
        s.tunnel().setExtraOptions(options);
        s.tunnel().setBackoff(100, 1000);
        QSignalSpy tunnelStates(&s.tunnel(), &SshTunnel::stateChanged);
        s.open({m_sshd.url(m_service.port()), kToken});
        QTRY_COMPARE_WITH_TIMEOUT(stateName(s.client().state()), QStringLiteral("Connected"),
                                  20000);
        const qint64 pid = s.tunnel().processId();
        QVERIFY(pid > 0);
        QVERIFY2(
            QDir(sockets.path())
                .isEmpty(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot),
            "a control socket was made");
        const auto agents =
            waitReply([&](auto cb) { s.client().get(QStringLiteral("/api/agents"), cb); });
        QCOMPARE(agents.status, 200);
        QCOMPARE(s.tunnel().processId(), pid);
        QCOMPARE(names(tunnelStates),
                 (QStringList{QStringLiteral("Starting"), QStringLiteral("Up")}));
        s.close();
        QVERIFY2(processGone(pid), "ssh still runs after close()");
    }

    // Connect, stream an agent's output through the tunnel, kill the tunnel, watch it
    // reconnect, and the next reply streams through the new ssh into the session's conversation.
    void agentTurnsStreamThroughTheTunnelAcrossAKilledSsh() {
        AgentRig rig;
        QVERIFY(rig.start());
        MonitorSession s;
        configure(s.tunnel());
        s.client().setInitialBackoffMs(100);
        s.client().setMaxBackoffMs(1000);
        QSignalSpy events(&s.client(), &ServiceClient::eventReceived);
        s.open({m_sshd.url(rig.svc->port()), rig.token});
        QTRY_COMPARE_WITH_TIMEOUT(stateName(s.client().state()), QStringLiteral("Connected"),
                                  20000);
        const TranscriptModel &conversation = s.conversation(rig.agentId);
        // The output chunks of the agent the session received since `from` (an index in events).
        const auto chunks = [&](qsizetype from) {
            QList<QJsonObject> out;
            for (qsizetype i = from; i < events.size(); ++i) {
                const QJsonObject chunk = events.at(i).at(1).value<QJsonValue>().toObject();
                if (events.at(i).at(0).toString() == QLatin1String(m::Output) &&
                    chunk.value(k::AgentId).toString() == rig.agentId)
                    out << chunk;
            }
            return out;
        };
        // The reply the conversation shows, once its turn ended (empty until then).
        const auto finishedReply = [&](const QString &text) {
            for (int row = 0; row < conversation.rowCount(); ++row) {
                const TranscriptEntry &e = conversation.entry(row);
                if (e.kind == TranscriptEntry::Kind::Assistant && !e.streaming &&
                    e.text.contains(text))
                    return e.text;
            }
            return QString();
        };
        const auto send = [&](const QString &message) {
            return waitReply([&](auto cb) { s.sendMessage(rig.agentId, message, cb); }).status;
        };

        rig.mock.queueText(QStringLiteral("Streamed over ssh."), 4);
        QCOMPARE(send(QStringLiteral("hello")), 200);
        QTRY_VERIFY_WITH_TIMEOUT(!finishedReply(QStringLiteral("Streamed over ssh.")).isEmpty(),
                                 60000);
        QVERIFY(!chunks(0).isEmpty());
        QVERIFY(!chunks(0).last().value(k::IsStreaming).toBool(true));
        QTRY_COMPARE_WITH_TIMEOUT(rig.agent().value(k::Status).toString(), QStringLiteral("idle"),
                                  10000);

        // Kill the tunnel: the WebSocket through it drops, ssh comes back, the session with it.
        const qint64 pid = s.tunnel().processId();
        QVERIFY(pid > 0);
        QSignalSpy tunnelStates(&s.tunnel(), &SshTunnel::stateChanged);
        QSignalSpy clientStates(&s.client(), &ServiceClient::stateChanged);
        QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(names(tunnelStates).contains(QStringLiteral("Reconnecting")),
                                 10000);
        QTRY_COMPARE_WITH_TIMEOUT(name(s.tunnel().state()), QStringLiteral("Up"), 20000);
        QCOMPARE(names(tunnelStates),
                 (QStringList{QStringLiteral("Reconnecting"), QStringLiteral("Up")}));
        QVERIFY(s.tunnel().processId() > 0 && s.tunnel().processId() != pid);
        QTRY_VERIFY_WITH_TIMEOUT(clientStates.count() >= 2 &&
                                     s.client().state() ==
                                         flotilla::client::ConnectionState::Connected,
                                 20000);
        QCOMPARE(s.client().endpoint().baseUrl, s.tunnel().localUrl());

        // The next reply streams through the new ssh: several chunks, then the final one, and the
        // conversation shows it whole after the first.
        const qsizetype before = events.size();
        const QString second = QStringLiteral("Second reply, through the restarted tunnel.");
        rig.mock.queueText(second, 4, 150);
        QCOMPARE(send(QStringLiteral("again")), 200);
        QTRY_VERIFY_WITH_TIMEOUT(!finishedReply(second).isEmpty(), 60000);
        const QList<QJsonObject> after = chunks(before);
        QString streamed;
        int deltas = 0;
        for (const QJsonObject &chunk : after) {
            if (chunk.value(k::IsStreaming).toBool() && !chunk.value(k::Text).toString().isEmpty())
                ++deltas;
            streamed += chunk.value(k::Text).toString();
        }
        QVERIFY2(deltas >= 2, qPrintable(QStringLiteral("%1 text chunks").arg(deltas)));
        QVERIFY(!after.last().value(k::IsStreaming).toBool(true));
        QCOMPARE(streamed, second);
        QCOMPARE(finishedReply(second), second);
        QVERIFY(!finishedReply(QStringLiteral("Streamed over ssh.")).isEmpty());
        QCOMPARE(name(s.tunnel().state()), QStringLiteral("Up"));
    }

    // Last: a newer sshd may hold a refused login against the address for a while.
    void refusedKeyFailsWithoutPrompting() {
        MonitorSession s;
        configure(s.tunnel(), m_sshd.strangerKey());
        QSignalSpy tunnelStates(&s.tunnel(), &SshTunnel::stateChanged);
        s.open({m_sshd.url(m_service.port()), kToken});
        // BatchMode: ssh gives up at once instead of waiting for a passphrase or password.
        QTRY_COMPARE_WITH_TIMEOUT(name(s.tunnel().state()), QStringLiteral("Failed"), 20000);
        QVERIFY2(s.tunnel().lastError().contains(QStringLiteral("Permission denied")),
                 qPrintable(s.tunnel().lastError()));
        QVERIFY(s.tunnel().lastError().contains(QStringLiteral("never asks")));
        QCOMPARE(names(tunnelStates),
                 (QStringList{QStringLiteral("Starting"), QStringLiteral("Failed")}));
        QCOMPARE(s.tunnel().processId(), 0);
        QCOMPARE(stateName(s.client().state()), QStringLiteral("Disconnected"));
    }
};

QTEST_GUILESS_MAIN(TestMonitorSsh)
#include "tst_monitor_ssh.moc"
