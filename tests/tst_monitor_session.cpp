// MonitorSession against the real flotillad binary: the models follow the service through the
// WebSocket (snapshot, create/update/delete as row insert/dataChanged/remove), a restart on the
// same port resynchronises without a model reset, a wrong token ends in AuthFailed, and the
// window's REST actions (bulk stop/delete, clear context, system prompt, notifications, exec
// tasks and kill) reach the service and come back through the models.

#include "core/MonitorSession.h"
#include "protocol/ExecNames.h"
#include "protocol/WireNames.h"
#include "support/MonitorFixture.h"

#include <QSignalSpy>
#include <QTest>

using namespace flotilla::test;
using namespace flotilla::monitor;
using flotilla::client::ConnectionState;
using flotilla::client::RestReply;
namespace k = flotilla::wire::key;
namespace ek = flotilla::wire::exec::key;

namespace {

QStringList sorted(QStringList l) {
    l.sort();
    return l;
}

// Opens a session on `svc` with quick reconnection and waits for its first snapshot.
bool openSession(MonitorSession &s, MonitorService &svc) {
    s.client().setInitialBackoffMs(50);
    s.client().setMaxBackoffMs(300);
    QSignalSpy resynced(&s, &MonitorSession::resynced);
    s.open(svc.endpoint());
    return QTest::qWaitFor([&] { return !resynced.isEmpty(); }, 10000);
}

} // namespace

class TestMonitorSession final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void modelsFollowTheService() {
        MonitorService svc;
        QVERIFY(svc.start());
        const QString a = svc.createAgent(QStringLiteral("alpha"));
        const QString b = svc.createAgent(QStringLiteral("beta"));
        MonitorSession s;
        QVERIFY(openSession(s, svc));
        AgentsModel &agents = s.agents();
        QCOMPARE(agents.agentIds(), QStringList({a, b})); // creation order
        QCOMPARE(agents.index(0, AgentsModel::Name).data().toString(), QStringLiteral("alpha"));

        QSignalSpy inserted(&agents, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&agents, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&agents, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&agents, &QAbstractItemModel::modelReset);

        // Created through the session: one row, although both the answer and the event bring it.
        const RestReply created = waitReply([&](auto cb) {
            s.createAgent({{k::Name_, QStringLiteral("gamma")}, {k::Cwd, svc.workDir()}}, cb);
        });
        QCOMPARE(created.status, 201);
        const QString c = created.body.object().value(k::Id).toString();
        QTRY_COMPARE(agents.rowCount(), 3);
        QCOMPARE(inserted.count(), 1);

        // Changed by another client: only the cells showing the change.
        changed.clear();
        QCOMPARE(svc.http()
                     .patch(svc.url(QStringLiteral("/api/agents/") + b),
                            {{k::TaskLabel, QStringLiteral("write docs")}})
                     .status,
                 200);
        QTRY_COMPARE(agents.index(agents.rowOf(b), AgentsModel::Task).data().toString(),
                     QStringLiteral("write docs"));
        QVERIFY(!changed.isEmpty());
        for (const QList<QVariant> &signal : std::as_const(changed)) {
            QCOMPARE(signal.at(0).toModelIndex().row(), agents.rowOf(b));
            // Invisible fields (lastActivity) only touch the JSON role; nothing to repaint.
            if (signal.at(2).value<QList<int>>() == QList<int>{AgentsModel::AgentJsonRole})
                continue;
            QCOMPARE(signal.at(0).toModelIndex().column(), int(AgentsModel::Task));
            QCOMPARE(signal.at(1).toModelIndex().column(), int(AgentsModel::Task));
        }

        // Deleted by another client, and in bulk through the session.
        QVERIFY(svc.deleteAgent(a));
        QTRY_COMPARE(agents.rowOf(a), -1);
        const RestReply bulk = waitReply([&](auto cb) {
            s.deleteAgents({c, QStringLiteral("nope")}, cb);
        });
        QCOMPARE(bulk.status, 200);
        QTRY_COMPARE(agents.agentIds(), QStringList({b}));
        QCOMPARE(removed.count(), 2);
        QCOMPARE(reset.count(), 0);
    }

    // The service goes away; while the monitor is disconnected an agent is created and another
    // deleted (by the same service on another port); the service comes back on the first port.
    void restartResynchronisesWithoutReset() {
        MonitorService svc;
        QVERIFY(svc.start());
        const quint16 port = svc.port();
        const QString keep = svc.createAgent(QStringLiteral("keep"));
        const QString gone = svc.createAgent(QStringLiteral("gone"));
        MonitorSession s;
        QVERIFY(openSession(s, svc));
        QCOMPARE(s.agents().rowCount(), 2);
        QSignalSpy states(&s, &MonitorSession::stateChanged);
        QSignalSpy resynced(&s, &MonitorSession::resynced);
        QSignalSpy reset(&s.agents(), &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&s.agents(), &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&s.agents(), &QAbstractItemModel::rowsRemoved);

        QVERIFY(svc.stop());
        QTRY_COMPARE(stateName(s.client().state()), stateName(ConnectionState::Reconnecting));
        QVERIFY(svc.start()); // another port: the monitor keeps knocking on the old one
        QVERIFY(svc.port() != port);
        const QString added = svc.createAgent(QStringLiteral("added"));
        QVERIFY(svc.deleteAgent(gone));
        QVERIFY(svc.stop());
        QCOMPARE(s.agents().rowCount(), 2); // it has not seen any of that

        QVERIFY(svc.start(port));
        QTRY_COMPARE(stateName(s.client().state()), stateName(ConnectionState::Connected));
        QTRY_COMPARE(resynced.count(), 1);
        QCOMPARE(sorted(s.agents().agentIds()), sorted({keep, added}));
        QCOMPARE(reset.count(), 0);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(stateName(states.constLast().at(0).value<ConnectionState>()),
                 stateName(ConnectionState::Connected));
    }

    // request_sync brings a fresh snapshot: applied as a diff, so nothing moves in the views.
    void requestedSyncChangesNothingVisible() {
        MonitorService svc;
        QVERIFY(svc.start());
        svc.createAgent(QStringLiteral("alpha"));
        MonitorSession s;
        QVERIFY(openSession(s, svc));
        QSignalSpy resynced(&s, &MonitorSession::resynced);
        QSignalSpy reset(&s.agents(), &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&s.agents(), &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&s.agents(), &QAbstractItemModel::rowsRemoved);
        s.requestSync();
        QTRY_COMPARE(resynced.count(), 1);
        QCOMPARE(reset.count() + inserted.count() + removed.count(), 0);

        // Closing keeps the last known state on screen and stops reconnecting.
        s.close();
        QCOMPARE(stateName(s.client().state()), stateName(ConnectionState::Disconnected));
        QCOMPARE(s.agents().rowCount(), 1);
        QCOMPARE(s.client().nextRetryInMs(), -1);
    }

    void wrongTokenEndsInAuthFailed() {
        MonitorService svc;
        QVERIFY(svc.start(0, "the-token"));
        MonitorSession s;
        s.client().setInitialBackoffMs(20);
        QSignalSpy states(&s, &MonitorSession::stateChanged);
        s.open(svc.endpoint("not-the-token"));
        QTRY_COMPARE(stateName(s.client().state()), stateName(ConnectionState::AuthFailed));
        QTest::qWait(200);
        QCOMPARE(states.count(), 2); // Connecting, AuthFailed: no retry loop
        QCOMPARE(s.agents().rowCount(), 0);
    }

    void restActions() {
        MonitorService svc;
        QVERIFY(svc.start());
        const QString a = svc.createAgent(QStringLiteral("alpha"));
        MonitorSession s;
        QSignalSpy failed(&s, &MonitorSession::actionFailed);
        QVERIFY(openSession(s, svc));

        RestReply r = waitReply([&](auto cb) { s.stopAgents({a, QStringLiteral("nope")}, cb); });
        QCOMPARE(r.status, 200);
        QVERIFY(r.body.object().value(k::Succeeded).toArray().contains(a));
        QCOMPARE(failed.count(), 1); // the unknown id, named
        QVERIFY(failed.at(0).at(1).toString().startsWith(QStringLiteral("nope")));

        r = waitReply([&](auto cb) { s.clearContext({a}, cb); });
        QCOMPARE(r.status, 200);
        TranscriptModel &out = s.conversation(a);
        QCOMPARE(out.index(out.rowCount() - 1).data().toString(),
                 QStringLiteral("[context cleared]"));

        QSignalSpy prompt(&s, &MonitorSession::systemPromptChanged);
        r = waitReply([&](auto cb) { s.setSystemPrompt(QStringLiteral("Be brief."), cb); });
        QCOMPARE(r.status, 200);
        QCOMPARE(s.systemPrompt(), QStringLiteral("Be brief."));
        QCOMPARE(prompt.count(), 1);
        QCOMPARE(svc.http()
                     .post(svc.url(QStringLiteral("/api/agents/system-settings/prompt")),
                           {{k::Prompt, QStringLiteral("Set elsewhere.")}})
                     .status,
                 200);
        r = waitReply([&](auto cb) { s.loadSystemPrompt(cb); });
        QCOMPARE(s.systemPrompt(), QStringLiteral("Set elsewhere."));
        QCOMPARE(prompt.count(), 2);

        failed.clear();
        r = waitReply([&](auto cb) {
            s.createAgent({{k::Name_, QStringLiteral("ALPHA")}, {k::Cwd, svc.workDir()}}, cb);
        });
        QCOMPARE(r.status, 409);
        QCOMPARE(r.code, QString(flotilla::wire::code::Conflict));
        QCOMPARE(failed.count(), 1);

        // A refusal over the WebSocket reaches actionFailed too.
        failed.clear();
        s.answerPermission(QStringLiteral("no-such-request"), true);
        QTRY_COMPARE(failed.count(), 1);
    }

    void notificationsArrive() {
        MonitorService svc;
        QVERIFY(svc.start());
        const QString a = svc.createAgent(QStringLiteral("alpha"));
        auto notify = [&](const QString &title) {
            return svc.http()
                .post(svc.url(QStringLiteral("/api/notify")),
                      {{k::AgentId, a}, {k::Title, title}, {k::Message, QStringLiteral("body")}})
                .status;
        };
        QCOMPARE(notify(QStringLiteral("before")), 201);
        MonitorSession s;
        QSignalSpy arrived(&s, &MonitorSession::notificationArrived);
        QVERIFY(openSession(s, svc));
        QTRY_COMPARE(s.notifications().rowCount(), 1); // the service's list, loaded on connect
        QCOMPARE(notify(QStringLiteral("Build finished")), 201);
        QTRY_COMPARE(arrived.count(), 1);
        QTRY_COMPARE(s.notifications().rowCount(), 2);
        const QJsonObject newest = s.notifications().item(0);
        QCOMPARE(newest.value(k::Title).toString(), QStringLiteral("Build finished"));
        QCOMPARE(newest.value(k::AgentName).toString(), QStringLiteral("alpha"));
        QVERIFY(s.notifications().index(0).data().toString().contains(
            QStringLiteral("Build finished")));
    }

    void execTasksStreamAndComplete() {
        MonitorService svc;
        QVERIFY(svc.start());
        const QString a = svc.createAgent(QStringLiteral("alpha"));
        MonitorSession s;
        s.setCompletedTaskLingerMs(300);
        QVERIFY(openSession(s, svc));
        TasksModel &tasks = s.tasks();

        auto result = std::make_shared<std::optional<RestReply>>();
        s.client().post(
            QStringLiteral("/api/exec"),
            {{k::AgentId, a}, {ek::Command, QStringLiteral("echo first; sleep 0.3; echo second")}},
            [result](const RestReply &r) { *result = r; });
        QTRY_COMPARE(tasks.rowCount(), 1);
        const QString taskId = tasks.item(0).value(ek::TaskId).toString();
        QVERIFY(!taskId.isEmpty());
        QCOMPARE(tasks.item(0).value(k::AgentName).toString(), QStringLiteral("alpha"));
        QVERIFY(tasks.index(0).data().toString().contains(QStringLiteral("running")));
        QTRY_VERIFY(tasks.itemById(taskId)
                        .value(ek::Output)
                        .toString()
                        .contains(QStringLiteral("first\n")));
        QTRY_VERIFY(tasks.itemById(taskId).value(TasksModel::DoneKey).toBool());
        const QJsonObject done = tasks.itemById(taskId);
        QCOMPARE(done.value(ek::Output).toString(), QStringLiteral("first\nsecond\n"));
        QCOMPARE(done.value(ek::ExitCode).toInt(-1), 0);
        QVERIFY(
            tasks.index(tasks.rowOf(taskId)).data().toString().contains(QStringLiteral("exit 0")));
        QTRY_VERIFY(result->has_value());
        QCOMPARE(result->value().body.object().value(k::Success).toBool(), true);
        QTRY_COMPARE(tasks.rowOf(taskId), -1); // gone after the linger time

        // A long task, killed from the monitor.
        auto killed = std::make_shared<std::optional<RestReply>>();
        s.client().post(QStringLiteral("/api/exec"),
                        {{k::AgentId, a}, {ek::Command, QStringLiteral("sleep 30")}},
                        [killed](const RestReply &r) { *killed = r; });
        QTRY_COMPARE(tasks.rowCount(), 1);
        const QString longTask = tasks.item(0).value(ek::TaskId).toString();
        const RestReply kill = waitReply([&](auto cb) { s.killTask(longTask, cb); });
        QCOMPARE(kill.status, 204);
        QTRY_VERIFY(tasks.itemById(longTask).value(TasksModel::DoneKey).toBool());
        QCOMPARE(tasks.itemById(longTask).value(ek::Killed).toBool(), true);
        QVERIFY(tasks.index(0).data().toString().contains(QStringLiteral("killed")));
        QTRY_VERIFY(killed->has_value());
        QCOMPARE(killed->value().body.object().value(ek::Killed).toBool(), true);

        const RestReply again = waitReply([&](auto cb) { s.killTask(longTask, cb); });
        QCOMPARE(again.status, 404);
    }
};

QTEST_GUILESS_MAIN(TestMonitorSession)
#include "tst_monitor_session.moc"
