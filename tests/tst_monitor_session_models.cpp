// The monitor's models as pure units: AgentsModel (snapshot diffing, per-cell dataChanged), the
// list models and the reconnection backoff. No service needed. (The conversation's model is
// tst_monitor_transcript.)

#include "client/ServiceClient.h"
#include "core/AgentsModel.h"
#include "core/ListModels.h"
#include "protocol/ExecNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/WireNames.h"

#include <QSignalSpy>
#include <QTest>

using namespace flotilla::monitor;
namespace k = flotilla::wire::key;

namespace {

QJsonObject agentJson(const QString &id, const QString &name, const QString &status = {}) {
    return {{k::Id, id},
            {k::Name_, name},
            {k::Class, QStringLiteral("builder")},
            {k::Status, status.isEmpty() ? QStringLiteral("idle") : status},
            {k::CurrentTool, QString()},
            {k::ContextUsed, 0},
            {k::ContextLimit, 200000},
            {k::TokensUsed, 0}};
}

} // namespace

class TestMonitorModels final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void snapshotIsDiffedNotReset() {
        AgentsModel m;
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&m, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.applySnapshot({agentJson(QStringLiteral("a"), QStringLiteral("alpha")),
                         agentJson(QStringLiteral("b"), QStringLiteral("beta")),
                         agentJson(QStringLiteral("c"), QStringLiteral("gamma"))});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(inserted.count(), 1);
        // The same snapshot again (a reconnect with nothing new): not a single signal.
        m.applySnapshot({agentJson(QStringLiteral("a"), QStringLiteral("alpha")),
                         agentJson(QStringLiteral("b"), QStringLiteral("beta")),
                         agentJson(QStringLiteral("c"), QStringLiteral("gamma"))});
        QCOMPARE(inserted.count() + removed.count() + changed.count(), 1);
        // b gone, c working, d new.
        m.applySnapshot(
            {agentJson(QStringLiteral("a"), QStringLiteral("alpha")),
             agentJson(QStringLiteral("c"), QStringLiteral("gamma"), QStringLiteral("working")),
             agentJson(QStringLiteral("d"), QStringLiteral("delta"))});
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(changed.count(), 1);
        const QModelIndex tl = changed.at(0).at(0).toModelIndex();
        const QModelIndex br = changed.at(0).at(1).toModelIndex();
        QCOMPARE(tl.row(), m.rowOf(QStringLiteral("c")));
        QCOMPARE(tl.column(), int(AgentsModel::Status));
        QCOMPARE(br.column(), int(AgentsModel::Status));
        QCOMPARE(m.agentIds(),
                 QStringList({QStringLiteral("a"), QStringLiteral("c"), QStringLiteral("d")}));
        QCOMPARE(m.rowOf(QStringLiteral("d")), 2);
    }

    void updatesSignalOnlyTheAffectedCells() {
        AgentsModel m;
        m.applySnapshot({agentJson(QStringLiteral("a"), QStringLiteral("alpha")),
                         agentJson(QStringLiteral("b"), QStringLiteral("beta"))});
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.applyChanges(QStringLiteral("b"), {{k::Id, QStringLiteral("b")},
                                             {k::Name_, QStringLiteral("beta")},
                                             {k::CurrentTool, QStringLiteral("Bash")}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(1, AgentsModel::CurrentTool));
        QCOMPARE(changed.at(0).at(1).toModelIndex(), m.index(1, AgentsModel::CurrentTool));
        QCOMPARE(m.index(1, AgentsModel::CurrentTool).data().toString(), QStringLiteral("Bash"));

        changed.clear();
        m.setContext(QStringLiteral("a"), 50000, 200000);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(0, AgentsModel::Context));
        QCOMPARE(m.index(0, 0).data(AgentsModel::ContextFractionRole).toDouble(), 0.25);
        QCOMPARE(m.index(0, AgentsModel::Context).data().toString(),
                 QStringLiteral("50k / 200k (25%)"));

        changed.clear(); // an invisible key: one signal, for the JSON role only
        m.applyChanges(QStringLiteral("a"), {{k::TokensUsed, 99}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(2).value<QList<int>>(), QList<int>{AgentsModel::AgentJsonRole});

        changed.clear(); // nothing new: silence; unknown agent: ignored
        m.applyChanges(QStringLiteral("a"), {{k::TokensUsed, 99}});
        m.applyChanges(QStringLiteral("zzz"), {{k::Status, QStringLiteral("error")}});
        QCOMPARE(changed.count(), 0);

        // Which CLI runs an agent, and its model, has a column of its own.
        changed.clear();
        m.applyChanges(QStringLiteral("a"), {{k::Provider, QStringLiteral("codex")},
                                             {k::Model, QStringLiteral("gpt-5-codex")}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(0, AgentsModel::Provider));
        QCOMPARE(m.index(0, AgentsModel::Provider).data().toString(),
                 QStringLiteral("codex \u00b7 gpt-5-codex"));
        QCOMPARE(m.headerData(AgentsModel::Provider, Qt::Horizontal).toString(),
                 QStringLiteral("Provider"));

        // A sandbox set (or changed by PATCH) marks the name: its badge role and tooltip. Without
        // one of its own, an ask agent has none by default, and its tooltip says so.
        namespace sbk = flotilla::wire::sandbox::key;
        QVERIFY(!m.index(0, AgentsModel::Name).data(AgentsModel::SandboxedRole).toBool());
        QVERIFY(m.index(0, AgentsModel::Name)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("No sandbox (the default for ask agents)")));
        changed.clear();
        m.applyChanges(
            QStringLiteral("a"),
            {{sbk::Sandbox, QJsonObject{{sbk::Mode, flotilla::wire::sandbox::mode::Workspace},
                                        {sbk::Network, flotilla::wire::sandbox::network::Full}}}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(0, AgentsModel::Name));
        QCOMPARE(changed.at(0).at(1).toModelIndex(), m.index(0, AgentsModel::Name));
        QVERIFY(m.index(0, AgentsModel::Name).data(AgentsModel::SandboxedRole).toBool());
        QVERIFY(m.index(0, AgentsModel::Name)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("Sandbox workspace: ")));
        m.applyChanges(QStringLiteral("a"), {{sbk::Sandbox, QJsonValue()}});
        QVERIFY(!m.index(0, AgentsModel::Name).data(AgentsModel::SandboxedRole).toBool());

        // An auto agent without one gets the service's default: nothing while it is not known;
        // when it becomes known, every name is signalled.
        changed.clear();
        m.applyChanges(QStringLiteral("a"), {{k::PermissionMode, QStringLiteral("auto")}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(0, AgentsModel::Name));
        QVERIFY(!m.index(0, AgentsModel::Name).data(Qt::ToolTipRole).isValid());
        changed.clear();
        m.setSandboxDefault(QString(flotilla::wire::sandbox::mode::Workspace));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(0, AgentsModel::Name));
        QCOMPARE(changed.at(0).at(1).toModelIndex(), m.index(1, AgentsModel::Name));
        QVERIFY(m.index(0, AgentsModel::Name).data(AgentsModel::SandboxedRole).toBool());
        QVERIFY(m.index(0, AgentsModel::Name)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("Sandbox workspace (the service's default")));
        QVERIFY(!m.index(1, AgentsModel::Name).data(AgentsModel::SandboxedRole).toBool()); // ask
        m.setSandboxDefault(QString(flotilla::wire::sandbox::mode::Workspace)); // the same
        QCOMPARE(changed.count(), 1);

        m.remove(QStringLiteral("a"));
        QCOMPARE(m.rowOf(QStringLiteral("b")), 0);
        QCOMPARE(m.agentIdAt(0), QStringLiteral("b"));
        QCOMPARE(m.rowOf(QStringLiteral("a")), -1);
    }

    void listModelKeepsTheNewest() {
        JsonListModel m(QStringLiteral("id"), 3);
        for (int i = 0; i < 5; ++i)
            m.prepend({{k::Id, QString::number(i)}, {k::Title, QStringLiteral("t%1").arg(i)}});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.item(0).value(k::Id).toString(), QStringLiteral("4"));
        QCOMPARE(m.rowOf(QStringLiteral("1")), -1);
        // A replayed item merges instead of duplicating.
        m.prepend({{k::Id, QStringLiteral("3")}, {k::Message, QStringLiteral("again")}});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.itemById(QStringLiteral("3")).value(k::Message).toString(),
                 QStringLiteral("again"));
        QCOMPARE(m.index(0).data(JsonListModel::IdRole).toString(), QStringLiteral("4"));
        m.remove(QStringLiteral("4"));
        QCOMPARE(m.rowCount(), 2);
    }

    void tasksKeepTheirOutputTail() {
        namespace ek = flotilla::wire::exec::key;
        TasksModel m;
        m.prepend({{ek::TaskId, QStringLiteral("t1")},
                   {k::AgentName, QStringLiteral("alpha")},
                   {ek::Command, QStringLiteral("make")},
                   {TasksModel::DoneKey, false}});
        QVERIFY(m.index(0).data().toString().contains(QStringLiteral("running")));
        const QString chunk(40 * 1024, QLatin1Char('x'));
        m.appendOutput(QStringLiteral("t1"), chunk);
        m.appendOutput(QStringLiteral("t1"), chunk + QStringLiteral("END"));
        const QString out = m.itemById(QStringLiteral("t1")).value(ek::Output).toString();
        QCOMPARE(out.size(), 64 * 1024);
        QVERIFY(out.endsWith(QStringLiteral("END")));
        m.update(QStringLiteral("t1"), {{TasksModel::DoneKey, true}, {ek::ExitCode, 2}});
        QVERIFY(m.index(0).data().toString().contains(QStringLiteral("exit 2")));
    }

    void backoffGrowsToTheCapWithJitter() {
        using flotilla::client::backoffDelayMs;
        QCOMPARE(backoffDelayMs(1, 500, 30000, 0.5), 500);
        QCOMPARE(backoffDelayMs(2, 500, 30000, 0.5), 1000);
        QCOMPARE(backoffDelayMs(3, 500, 30000, 0.5), 2000);
        QCOMPARE(backoffDelayMs(20, 500, 30000, 0.5), 30000);
        QCOMPARE(backoffDelayMs(1000, 500, 30000, 0.5), 30000);
        QCOMPARE(backoffDelayMs(1, 500, 30000, 0.0), 400);
        QCOMPARE(backoffDelayMs(20, 500, 30000, 1.0), 36000);
    }
};

QTEST_GUILESS_MAIN(TestMonitorModels)
#include "tst_monitor_session_models.moc"
