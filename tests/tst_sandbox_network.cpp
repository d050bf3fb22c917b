// Agents in a sandbox with network "allowlist", with both real CLIs against the scripted models:
// their own network namespace, whose only way out is flotillad's egress proxy
// (engine/sandbox/EgressProxy, tst_egress_proxy). The model on loopback and an allowed host are
// reached; a loopback port not on the list is refused, reported as sandbox_blocked and kept in the
// decision log. The workspace sandbox itself is tst_sandbox_agents.

#include "support/AgentRig.h"
#include "support/BossFixtures.h"
#include "support/SandboxFixtures.h"

#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <algorithm>

using namespace flotilla;
using namespace flotilla::test;

namespace {

// A loopback HTTP server that answers every request "upstream-ok" and counts connections.
class Upstream final {
public:
    bool start() {
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                ++m_connections;
                QObject::connect(s, &QTcpSocket::readyRead, s, [s] {
                    if (!s->readAll().contains("\r\n\r\n"))
                        return;
                    s->write("HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\n"
                             "upstream-ok");
                    s->disconnectFromHost();
                });
                QObject::connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
            }
        });
        return m_server.listen(QHostAddress::LocalHost, 0);
    }
    quint16 port() const { return m_server.serverPort(); }
    int connections() const { return m_connections; }

private:
    QTcpServer m_server;
    int m_connections = 0;
};

} // namespace

class TestSandboxNetwork final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("bwrap")).isEmpty() &&
                     !QStandardPaths::findExecutable(QStringLiteral("socat")).isEmpty(),
                 "bwrap or socat not on PATH: run scripts/install-deps.sh");
    }

    // Network "allowlist": the agent's own network namespace; out only through flotillad's egress
    // proxy. The model (a loopback mock) and an allowed host are reached; a loopback port not on
    // the list is refused, reported as sandbox_blocked and kept in the decision log.
    void allowlistReachesOnlyWhatItMay_data() { addProviderRows(); }
    void allowlistReachesOnlyWhatItMay() {
        QFETCH(QString, provider);
        Upstream allowed;
        Upstream forbidden;
        QVERIFY(allowed.start() && forbidden.start());
        AgentRig rig(provider);
        QVERIFY(rig.start());
        QJsonObject box{{QStringLiteral("mode"), QStringLiteral("workspace")}};
        box.insert(QStringLiteral("network"), QStringLiteral("allowlist"));
        box.insert(QStringLiteral("allowHosts"),
                   QJsonArray{QStringLiteral("127.0.0.1:%1").arg(allowed.port())});
        const HttpResponse created = rig.createAgent(QStringLiteral("fenced"), sandboxed(box));
        QCOMPARE(created.status, 201);
        const QString id = str(created.object(), "id");
        rig.model().queueCommand(
            QStringLiteral("curl -s -m 10 http://127.0.0.1:%1/ok; echo; curl -s -m 10 -o "
                           "/dev/null -w 'forbidden=%{http_code}' http://127.0.0.1:%2/; echo")
                .arg(allowed.port())
                .arg(forbidden.port()));
        rig.model().queueText(QStringLiteral("Done."));
        QCOMPARE(rig.send(QStringLiteral("reach out"), id).status, 200);
        QVERIFY(rig.waitTurns(1, 60000, id)); // the model was reached, through the proxy
        const QString out = lastToolOutput(rig, id);
        QVERIFY2(out.contains(QStringLiteral("upstream-ok")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("forbidden=403")), qPrintable(out));
        QCOMPARE(forbidden.connections(), 0);
        QVERIFY(allowed.connections() >= 1);

        // Codex's own start-up tries GitHub (its plugin sync): refused and reported the same way.
        const auto blockedPort = [&] {
            for (const QJsonObject &b : payloads(*rig.ws, "sandbox_blocked")) {
                if (str(b, "agentId") == id && str(b, "host") == QLatin1String("127.0.0.1") &&
                    b.value(QStringLiteral("port")).toInt() == int(forbidden.port()))
                    return true;
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(blockedPort(), 10000);
        const QJsonArray log =
            rig.http.get(rig.svc->url(QStringLiteral("/api/permission-decisions?agentId=") + id))
                .object()
                .value(QStringLiteral("decisions"))
                .toArray();
        QVERIFY(std::any_of(log.begin(), log.end(), [&](const QJsonValue &v) {
            const QJsonObject d = v.toObject();
            return str(d, "tool") == QLatin1String("network") &&
                   str(d, "by") == QLatin1String("sandbox") &&
                   str(d, "decision") == QLatin1String("deny");
        }));
    }
};

QTEST_MAIN(TestSandboxNetwork)
#include "tst_sandbox_network.moc"
