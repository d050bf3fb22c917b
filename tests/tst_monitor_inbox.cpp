// The monitor's inbox with two real services: the window's own and a second one (a
// "build box") whose session is added to the same inbox. Each runs the real flotillad with the
// real Claude Code CLI against its own MockAnthropic. A permission request of an agent on the
// second service shows in the inbox with its service, command and agent; G in the list grants
// it and the agent resumes (the file is made, the turn ends, a "finished" item follows and goes
// when the agent is looked at); A grants and stores a standing rule on that service; a failed
// turn on the first service is an item until the agent recovers; the empty state is shown.

#include "core/InboxModel.h"
#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/InboxPanel.h"

#include <QFile>
#include <QJsonArray>
#include <QLabel>
#include <QListView>
#include <QPushButton>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

namespace {
QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

int rowOfKind(const InboxModel &inbox, InboxModel::Kind kind, const QString &agentId) {
    for (int row = 0; row < inbox.rowCount(); ++row) {
        const InboxModel::Item i = inbox.item(row);
        if (i.kind == kind && i.agentId == agentId)
            return row;
    }
    return -1;
}
} // namespace

class TestMonitorInbox final : public QObject {
    Q_OBJECT

    MonitorUiFixture f;      // the window and its service
    MonitorUiFixture remote; // the second service (no window of its own)
    std::unique_ptr<MonitorSession> remoteSession;
    QString asker; // an `ask` agent on the remote service

    InboxModel &inbox() const { return *f.window->inbox(); }
    ui::InboxPanel &panel() const { return *f.window->inboxPanel(); }

    // The remote agent runs `command` (a Bash tool use), which it must ask for.
    bool askRemote(const QString &command) {
        remote.mock.queueToolUse(QStringLiteral("Bash"), {{QStringLiteral("command"), command}});
        remote.mock.queueText(QStringLiteral("ran it"));
        return remote.sendMessage(asker, QStringLiteral("please run it")).status == 200;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        QVERIFY2(remote.startService(), remote.service.stdErr().constData());
        QVERIFY(f.openWindow());
        remoteSession = std::make_unique<MonitorSession>();
        remoteSession->open({remote.baseUrl(), {}});
        inbox().addSession(remoteSession.get(), QStringLiteral("build-box"));
        asker = remote.createAgent(QStringLiteral("asker"),
                                   {{QStringLiteral("permissionMode"), QStringLiteral("ask")}});
        QVERIFY(!asker.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(remoteSession->agents().rowOf(asker) >= 0, 10000);
    }
    void cleanupTestCase() {
        f.closeWindow();
        remoteSession.reset();
        f.service.terminate();
        remote.service.terminate();
    }

    void emptyStateIsShown() {
        QCOMPARE(inbox().rowCount(), 0);
        QVERIFY(panel().findChild<QLabel *>(QStringLiteral("inboxEmpty"))->isVisible());
        QVERIFY(!panel().findChild<QPushButton *>(QStringLiteral("inboxGrant"))->isEnabled());
    }

    void grantFromTheInboxResumesTheAgent() {
        const QString file = remote.cwd + QStringLiteral("/from-inbox.txt");
        QVERIFY(askRemote(QStringLiteral("touch ") + file));
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKind(inbox(), InboxModel::Kind::Permission, asker) >= 0,
                                 60000);
        const int row = rowOfKind(inbox(), InboxModel::Kind::Permission, asker);
        const InboxModel::Item item = inbox().item(row);
        QCOMPARE(item.service, QStringLiteral("build-box"));
        QCOMPARE(item.title, QStringLiteral("asker wants Bash"));
        QVERIFY2(item.detail.contains(QStringLiteral("from-inbox.txt")), qPrintable(item.detail));
        QVERIFY(inbox().index(row).data().toString().startsWith(QStringLiteral("[build-box]")));
        QVERIFY(!panel().findChild<QLabel *>(QStringLiteral("inboxEmpty"))->isVisible());

        // Keyboard first: F7 focuses the inbox, G grants the selected request.
        f.window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(f.window.get()));
        QTest::keyClick(f.window.get(), Qt::Key_F7);
        QTRY_VERIFY(panel().list()->hasFocus());
        panel().list()->setCurrentIndex(inbox().index(row));
        QTest::keyClick(panel().list(), Qt::Key_G);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(file), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(rowOfKind(inbox(), InboxModel::Kind::Permission, asker), -1,
                                  10000);
        // The turn ended: a "finished" item, until the agent is looked at.
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKind(inbox(), InboxModel::Kind::Finished, asker) >= 0, 30000);
        inbox().markSeen(remoteSession.get(), asker);
        QCOMPARE(rowOfKind(inbox(), InboxModel::Kind::Finished, asker), -1);
    }

    void alwaysStoresARuleOnThatService() {
        QVERIFY(askRemote(QStringLiteral("mkdir -p build-out")));
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKind(inbox(), InboxModel::Kind::Permission, asker) >= 0,
                                 60000);
        panel().list()->setFocus();
        panel().list()->setCurrentIndex(
            inbox().index(rowOfKind(inbox(), InboxModel::Kind::Permission, asker)));
        QTest::keyClick(panel().list(), Qt::Key_A); // allow always, for this agent
        QTRY_COMPARE_WITH_TIMEOUT(rowOfKind(inbox(), InboxModel::Kind::Permission, asker), -1,
                                  30000);
        const QJsonArray rules =
            remote.http.get(remote.url(QStringLiteral("/api/permission-rules")))
                .object()
                .value(QStringLiteral("rules"))
                .toArray();
        QCOMPARE(rules.size(), 1);
        QCOMPARE(str(rules.first().toObject(), "pattern"), QStringLiteral("mkdir -p build-out"));
        QCOMPARE(str(rules.first().toObject().value(QStringLiteral("scope")).toObject(), "agentId"),
                 asker);
        // Nothing of it reached the window's own service.
        QCOMPARE(f.http.get(f.url(QStringLiteral("/api/permission-rules")))
                     .object()
                     .value(QStringLiteral("rules"))
                     .toArray()
                     .size(),
                 0);
    }

    void aFailedTurnIsAnItemUntilTheAgentRecovers() {
        const QString id = f.createAgent(QStringLiteral("flaky"));
        QVERIFY(!id.isEmpty());
        f.mock.queueError(400, QStringLiteral("invalid_request_error"),
                          QStringLiteral("prompt is too long"), 6);
        QCOMPARE(f.sendMessage(id, QStringLiteral("hello")).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKind(inbox(), InboxModel::Kind::Failed, id) >= 0, 60000);
        const InboxModel::Item failed =
            inbox().item(rowOfKind(inbox(), InboxModel::Kind::Failed, id));
        QCOMPARE(failed.title, QStringLiteral("flaky failed"));
        QCOMPARE(failed.service, QStringLiteral("this service"));
        f.mock.clearQueue();
        f.mock.queueText(QStringLiteral("fine now"));
        QCOMPARE(f.sendMessage(id, QStringLiteral("again")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(rowOfKind(inbox(), InboxModel::Kind::Failed, id), -1, 60000);
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorInbox>(argc, argv, QStringLiteral("tst_monitor_inbox"));
}
#include "tst_monitor_inbox.moc"
