// The monitor's side of hosts (docs/api.md "Hosts"): HostsModel as a unit (a snapshot diffed,
// not reset; a check's latency and versions; the agents counted per host), the agents' Host
// column, and MonitorSession against the real flotillad binary: the hosts loaded on connect and
// kept by host_* events, a host nobody answers for going unreachable with ssh's reason, a check,
// the agents counted on it, and a removal refused while an agent uses it.

#include "core/HostsModel.h"
#include "core/MonitorSession.h"
#include "protocol/HostNames.h"
#include "protocol/WireNames.h"
#include "support/MonitorFixture.h"

#include <QSignalSpy>
#include <QTest>

using namespace flotilla::test;
using namespace flotilla::monitor;
using flotilla::client::RestReply;
namespace k = flotilla::wire::key;
namespace hk = flotilla::wire::host::key;
namespace hs = flotilla::wire::host::state;
namespace hc = flotilla::wire::host::code;

namespace {

QJsonObject hostJson(const QString &name, const QString &state, const QString &error = {}) {
    QJsonObject h{{hk::Name_, name},
                  {hk::Ssh, name == QLatin1String("local") ? QJsonValue() : QJsonValue(name)},
                  {hk::State, state},
                  {hk::Error, error.isEmpty() ? QJsonValue() : QJsonValue(error)},
                  {hk::Agents, 0}};
    return h;
}

QString cell(const HostsModel &m, const QString &name, int column, int role = Qt::DisplayRole) {
    return m.index(m.rowOf(name), column).data(role).toString();
}

} // namespace

class TestMonitorHosts final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void snapshotIsDiffedAndEventsApply() {
        HostsModel m;
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&m, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.applySnapshot({hostJson(QStringLiteral("local"), hs::Local),
                         hostJson(QStringLiteral("box"), hs::Connecting)});
        QCOMPARE(m.names(), QStringList({QStringLiteral("local"), QStringLiteral("box")}));
        QCOMPARE(inserted.count(), 2);
        // Again, unchanged: no signal at all.
        m.applySnapshot({hostJson(QStringLiteral("local"), hs::Local),
                         hostJson(QStringLiteral("box"), hs::Connecting)});
        QCOMPARE(inserted.count() + removed.count() + changed.count(), 2);

        // host_updated: the state and ssh's reason, red, the reason as the state's tooltip.
        m.upsert(
            hostJson(QStringLiteral("box"), hs::Unreachable, QStringLiteral("Connection refused")));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::State), QStringLiteral("unreachable"));
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Error),
                 QStringLiteral("Connection refused"));
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::State, Qt::ToolTipRole),
                 QStringLiteral("Connection refused"));
        QVERIFY(m.index(1, HostsModel::State).data(Qt::ForegroundRole).isValid());
        QVERIFY(!m.index(0, HostsModel::State).data(Qt::ForegroundRole).isValid());

        // A snapshot without it (deleted while away) and with a new one.
        m.applySnapshot({hostJson(QStringLiteral("local"), hs::Local),
                         hostJson(QStringLiteral("lab"), hs::Connected)});
        QCOMPARE(m.names(), QStringList({QStringLiteral("local"), QStringLiteral("lab")}));
        m.remove(QStringLiteral("lab")); // host_deleted
        m.remove(QStringLiteral("nobody"));
        QCOMPARE(m.names(), QStringList({QStringLiteral("local")}));
        QCOMPARE(reset.count(), 0);
    }

    void checkShowsLatencyAndVersions() {
        HostsModel m;
        m.applySnapshot({hostJson(QStringLiteral("box"), hs::Connected)});
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Latency), QString()); // never checked
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setCheck(QStringLiteral("box"), {{hk::Reachable, true},
                                           {hk::LatencyMs, 42},
                                           {hk::Home, QStringLiteral("/home/ann")},
                                           {hk::User, QStringLiteral("ann")},
                                           {hk::Claude, QStringLiteral("2.1.3 (Claude Code)")},
                                           {hk::Codex, QJsonValue()},
                                           {hk::Git, QStringLiteral("git version 2.39.2")},
                                           {hk::Error, QJsonValue()}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Latency), QStringLiteral("42 ms"));
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Claude),
                 QStringLiteral("2.1.3 (Claude Code)"));
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Codex), QStringLiteral("missing"));
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Git),
                 QStringLiteral("git version 2.39.2"));
        QCOMPARE(checkSummary(m.check(QStringLiteral("box"))),
                 QStringLiteral("reachable in 42 ms as ann (home /home/ann); claude 2.1.3 (Claude "
                                "Code), codex missing, git git version 2.39.2"));

        // Unreachable: the cell says so, the versions are blank, the summary has ssh's words.
        const QJsonObject down{{hk::Reachable, false},
                               {hk::Error, QStringLiteral("Connection refused")}};
        m.setCheck(QStringLiteral("box"), down);
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Latency),
                 QStringLiteral("unreachable"));
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Claude), QString());
        QCOMPARE(checkSummary(down), QStringLiteral("unreachable: Connection refused"));

        // Another destination: what the check found was somewhere else.
        QJsonObject moved = hostJson(QStringLiteral("box"), hs::Connecting);
        moved.insert(hk::Ssh, QStringLiteral("ann@elsewhere"));
        m.upsert(moved);
        QVERIFY(m.check(QStringLiteral("box")).isEmpty());
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Latency), QString());
    }

    void agentsAreCountedPerHost() {
        HostsModel m;
        QJsonObject box = hostJson(QStringLiteral("box"), hs::Connected);
        box.insert(hk::Agents, 3); // the service's number, until the monitor counts its own
        m.applySnapshot({hostJson(QStringLiteral("local"), hs::Local), box});
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Agents), QStringLiteral("3"));
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setAgentCounts({{QStringLiteral("local"), 2}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(cell(m, QStringLiteral("local"), HostsModel::Agents), QStringLiteral("2"));
        QCOMPARE(cell(m, QStringLiteral("box"), HostsModel::Agents), QStringLiteral("0"));
        m.setAgentCounts({{QStringLiteral("local"), 2}});
        QCOMPARE(changed.count(), 1); // the same counts: silence
    }

    // The Host column: the agent's host, "local" when it has none; agent_updated of the host
    // signals that cell.
    void agentsModelHasAHostColumn() {
        AgentsModel m;
        m.applySnapshot({QJsonObject{{k::Id, QStringLiteral("a")}, {k::Name_, QStringLiteral("a")}},
                         QJsonObject{{k::Id, QStringLiteral("b")},
                                     {k::Name_, QStringLiteral("b")},
                                     {hk::Host, QStringLiteral("box")}}});
        QCOMPARE(m.headerData(AgentsModel::Host, Qt::Horizontal).toString(),
                 QStringLiteral("Host"));
        QCOMPARE(m.index(0, AgentsModel::Host).data().toString(), QStringLiteral("local"));
        QCOMPARE(m.index(1, AgentsModel::Host).data().toString(), QStringLiteral("box"));
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.applyChanges(QStringLiteral("a"), {{hk::Host, QStringLiteral("lab")}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(0, AgentsModel::Host));
        QCOMPARE(m.index(0, AgentsModel::Host).data().toString(), QStringLiteral("lab"));
    }

    void sessionFollowsTheServiceHosts() {
        MonitorService svc;
        // Hosts connect only for a service with a token (docs/security.md "Hosts").
        const QByteArray token = QByteArrayLiteral("monitor-hosts-token");
        QVERIFY(svc.start(0, token));
        MonitorSession s;
        s.client().setInitialBackoffMs(50);
        s.open(svc.endpoint(token));
        HostsModel &hosts = s.hosts();
        QTRY_COMPARE(hosts.names(), QStringList{QStringLiteral("local")});
        QCOMPARE(cell(hosts, QStringLiteral("local"), HostsModel::State), QStringLiteral("local"));

        // Another client adds a host where nothing listens: host_created, then unreachable with
        // ssh's reason (host_updated).
        const HttpResponse created =
            svc.http().post(svc.url(QStringLiteral("/api/hosts")),
                            {{hk::Name_, QStringLiteral("nowhere")},
                             {hk::Ssh, QStringLiteral("nobody@127.0.0.2:1")}});
        QCOMPARE(created.status, 201);
        QTRY_VERIFY(hosts.rowOf(QStringLiteral("nowhere")) == 1);
        QTRY_COMPARE_WITH_TIMEOUT(cell(hosts, QStringLiteral("nowhere"), HostsModel::State),
                                  QStringLiteral("unreachable"), 20000);
        QVERIFY2(cell(hosts, QStringLiteral("nowhere"), HostsModel::Error)
                     .contains(QStringLiteral("refused")),
                 qPrintable(cell(hosts, QStringLiteral("nowhere"), HostsModel::Error)));

        // A check: reachable false, the error, in the model.
        const RestReply check =
            waitReply([&](auto cb) { s.checkHost(QStringLiteral("nowhere"), cb); }, 30000);
        QCOMPARE(check.status, 200);
        QVERIFY(!hosts.check(QStringLiteral("nowhere")).value(hk::Reachable).toBool(true));
        QCOMPARE(cell(hosts, QStringLiteral("nowhere"), HostsModel::Latency),
                 QStringLiteral("unreachable"));

        // An agent there (its cwd is that machine's, not checked here) is counted on it.
        const HttpResponse agent =
            svc.http().post(svc.url(QStringLiteral("/api/agents")),
                            {{k::Name_, QStringLiteral("far")},
                             {hk::Host, QStringLiteral("nowhere")},
                             {QStringLiteral("cwd"), QStringLiteral("/srv/anywhere")}});
        QCOMPARE(agent.status, 201);
        const QString id = agent.object().value(k::Id).toString();
        QTRY_COMPARE(cell(hosts, QStringLiteral("nowhere"), HostsModel::Agents),
                     QStringLiteral("1"));
        QCOMPARE(s.agents().index(s.agents().rowOf(id), AgentsModel::Host).data().toString(),
                 QStringLiteral("nowhere"));

        // Removal: refused while the agent is there (the refusal names it), then done.
        RestReply removed =
            waitReply([&](auto cb) { s.deleteHost(QStringLiteral("nowhere"), cb); });
        QCOMPARE(removed.status, 409);
        QCOMPARE(removed.code, QString(hc::HostInUse));
        QVERIFY2(removed.error.contains(QStringLiteral("far")), qPrintable(removed.error));
        QVERIFY(hosts.rowOf(QStringLiteral("nowhere")) >= 0);
        QVERIFY(svc.deleteAgent(id));
        QTRY_COMPARE(cell(hosts, QStringLiteral("nowhere"), HostsModel::Agents),
                     QStringLiteral("0"));
        removed = waitReply([&](auto cb) { s.deleteHost(QStringLiteral("nowhere"), cb); });
        QCOMPARE(removed.status, 204);
        QCOMPARE(hosts.names(), QStringList{QStringLiteral("local")});

        // Added through the session: its row at once, one row although the event brings it too.
        const RestReply added = waitReply([&](auto cb) {
            s.createHost({{hk::Name_, QStringLiteral("again")},
                          {hk::Ssh, QStringLiteral("nobody@127.0.0.2:1")}},
                         cb);
        });
        QCOMPARE(added.status, 201);
        QCOMPARE(hosts.rowOf(QStringLiteral("again")), 1);
        QTRY_COMPARE_WITH_TIMEOUT(cell(hosts, QStringLiteral("again"), HostsModel::State),
                                  QStringLiteral("unreachable"), 20000);
        QCOMPARE(hosts.rowCount(), 2);
        // Another client removes it: host_deleted.
        QCOMPARE(svc.http().del(svc.url(QStringLiteral("/api/hosts/again"))).status, 204);
        QTRY_COMPARE(hosts.names(), QStringList{QStringLiteral("local")});
    }
};

QTEST_GUILESS_MAIN(TestMonitorHosts)
#include "tst_monitor_hosts.moc"
