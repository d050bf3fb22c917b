// The monitor's window with hosts (docs/api.md "Hosts"), against the real flotillad: a host where
// nothing listens (127.0.0.2:1, no sshd needed) is unreachable with ssh's reason in the Hosts
// view; the agents table has a Host column ("local" for an ordinary agent) and a host filter,
// both shown once there is a host besides "local", the filter following the host_* events; Check
// reports the host unreachable with the error; Remove of a host an agent uses shows the refusal
// that names it; the view adds and removes a host; the new-agent dialog sends the chosen host, with
// a directory that exists only on that machine.

#include "core/HostsModel.h"
#include "protocol/HostNames.h"
#include "protocol/WireNames.h"
#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/AgentActions.h"
#include "ui/HostsDialog.h"
#include "ui/NewAgentDialog.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;
namespace hk = flotilla::wire::host::key;
namespace k = flotilla::wire::key;

namespace {
const QString kHost = QStringLiteral("faraway");
const QString kNowhere = QStringLiteral("someone@127.0.0.2:1"); // nothing listens there

void shot(QWidget *w, const QString &file) {
    QVERIFY(w->grab().save(QStringLiteral(FLOTILLA_SCREENSHOT_DIR "/") + file, "PNG"));
}
} // namespace

class TestMonitorUiHosts final : public QObject {
    Q_OBJECT

    MonitorUiFixture f;
    QString homebody; // a local agent
    QString roamer;   // an agent on kHost

    ui::HostsDialog *hostsView() {
        f.window->findChild<QAction *>(QStringLiteral("actionHosts"))->trigger();
        return f.window->hosts();
    }

    // The cell of `host` in `column` of the Hosts view's table; empty when the host is not there.
    QString hostCell(const QString &host, int column, int role = Qt::DisplayRole) {
        const QAbstractItemModel *m = hostsView()->table()->model();
        for (int row = 0; row < m->rowCount(); ++row) {
            if (m->index(row, HostsModel::Name).data().toString() == host)
                return m->index(row, column).data(role).toString();
        }
        return {};
    }

    // The agents table as shown: name -> host.
    QMap<QString, QString> shownHosts() const {
        QMap<QString, QString> out;
        const QAbstractItemModel *m = f.table()->model();
        for (int row = 0; row < m->rowCount(); ++row)
            out.insert(m->index(row, AgentsModel::Name).data().toString(),
                       m->index(row, AgentsModel::Host).data().toString());
        return out;
    }

    QString outcome() {
        return hostsView()->findChild<QLabel *>(QStringLiteral("hostsOutcome"))->text();
    }

    void confirm() {
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = hostsView()->findChild<QMessageBox *>(QStringLiteral("confirmDelete"))));
        box->findChild<QPushButton *>(QStringLiteral("confirmDeleteButton"))->click();
    }

private Q_SLOTS:
    void initTestCase() {
        // Hosts connect only for a service with a token (docs/security.md "Hosts").
        f.token = QByteArrayLiteral("monitor-hosts-token");
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        QVERIFY(f.openWindow());
        QTRY_COMPARE(f.session->hosts().names(), QStringList{QStringLiteral("local")});
        // This machine only: no Host column and no host filter, nothing to tell apart.
        QVERIFY(f.table()->isColumnHidden(AgentsModel::Host));
        QVERIFY(!f.agentsView()->hostFilter()->isVisible());
        // Another client adds a host that cannot be reached.
        QCOMPARE(f.http
                     .post(f.url(QStringLiteral("/api/hosts")),
                           {{hk::Name_, kHost}, {hk::Ssh, kNowhere}})
                     .status,
                 201);
        homebody = f.createAgent(QStringLiteral("homebody"));
        QVERIFY(!homebody.isEmpty());
        // Its directory is that machine's: nothing of it exists here.
        roamer = f.createAgent(
            QStringLiteral("roamer"),
            {{hk::Host, kHost}, {QStringLiteral("cwd"), QStringLiteral("/srv/anywhere")}});
        QVERIFY(!roamer.isEmpty());
    }

    void cleanupTestCase() {
        f.closeWindow();
        f.service.terminate();
    }

    // The Hosts view lists "local" first, then the host, unreachable with ssh's reason.
    void hostsViewShowsStateAndError() {
        ui::HostsDialog *view = hostsView();
        QTRY_VERIFY(view->isVisible());
        QTRY_COMPARE(view->table()->model()->rowCount(), 2);
        QCOMPARE(view->table()->model()->index(0, HostsModel::Name).data().toString(),
                 QStringLiteral("local"));
        QCOMPARE(hostCell(QStringLiteral("local"), HostsModel::State), QStringLiteral("local"));
        QCOMPARE(hostCell(kHost, HostsModel::Ssh), kNowhere);
        QTRY_COMPARE_WITH_TIMEOUT(hostCell(kHost, HostsModel::State), QStringLiteral("unreachable"),
                                  20000);
        const QString error = hostCell(kHost, HostsModel::Error);
        QVERIFY2(error.contains(QStringLiteral("refused")), qPrintable(error));
        QCOMPARE(hostCell(kHost, HostsModel::State, Qt::ToolTipRole), error);
        QTRY_COMPARE(hostCell(kHost, HostsModel::Agents), QStringLiteral("1"));
        QCOMPARE(hostCell(QStringLiteral("local"), HostsModel::Agents), QStringLiteral("1"));
        QVERIFY(!view->table()->isColumnHidden(HostsModel::Error));
    }

    // The Host column: "local" for an ordinary agent, the host's name for the other; the filter
    // keeps one host's agents.
    void hostColumnAndFilter() {
        QTRY_COMPARE(shownHosts().size(), 2);
        QCOMPARE(shownHosts().value(QStringLiteral("homebody")), QStringLiteral("local"));
        QCOMPARE(shownHosts().value(QStringLiteral("roamer")), kHost);
        QHeaderView *header = f.table()->horizontalHeader();
        QTRY_VERIFY(!header->isSectionHidden(AgentsModel::Host));
        QCOMPARE(f.table()->model()->headerData(AgentsModel::Host, Qt::Horizontal).toString(),
                 QStringLiteral("Host"));
        // Shown by the provider, before the status.
        QCOMPARE(header->visualIndex(AgentsModel::Host),
                 header->visualIndex(AgentsModel::Status) - 1);

        QComboBox *filter = f.agentsView()->hostFilter();
        QVERIFY(filter->isVisible());
        QCOMPARE(filter->itemText(0), QStringLiteral("All hosts"));
        QVERIFY(filter->findData(QStringLiteral("local")) > 0);
        filter->setCurrentIndex(filter->findData(kHost));
        QTRY_COMPARE(shownHosts().keys(), QStringList{QStringLiteral("roamer")});
        shot(f.window.get(), QStringLiteral("monitor-hosts-filter.png"));
        filter->setCurrentIndex(filter->findData(QStringLiteral("local")));
        QTRY_COMPARE(shownHosts().keys(), QStringList{QStringLiteral("homebody")});
        filter->setCurrentIndex(0);
        QTRY_COMPARE(shownHosts().size(), 2);
    }

    // Check: a fresh connection, which cannot be made: unreachable, with ssh's words.
    void checkSaysUnreachable() {
        ui::HostsDialog *view = hostsView();
        view->selectHost(kHost);
        view->findChild<QPushButton *>(QStringLiteral("checkHostButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(outcome().startsWith(kHost + QStringLiteral(": unreachable")),
                                 30000);
        QVERIFY2(outcome().contains(QStringLiteral("refused")), qPrintable(outcome()));
        QCOMPARE(hostCell(kHost, HostsModel::Latency), QStringLiteral("unreachable"));
        QVERIFY(!f.session->hosts().check(kHost).value(hk::Reachable).toBool(true));
        shot(view, QStringLiteral("monitor-hosts-view.png"));
    }

    // Remove of a host an agent uses: refused, and the refusal names the agent.
    void removeInUseShowsTheRefusal() {
        ui::HostsDialog *view = hostsView();
        view->selectHost(kHost);
        view->findChild<QPushButton *>(QStringLiteral("removeHostButton"))->click();
        confirm();
        QTRY_VERIFY(outcome().startsWith(QStringLiteral("Not removed")));
        QVERIFY2(outcome().contains(QStringLiteral("roamer")) &&
                     outcome().contains(QStringLiteral("host_in_use")),
                 qPrintable(outcome()));
        QCOMPARE(f.session->hosts().rowOf(kHost), 1);
        // "local" cannot be removed.
        view->selectHost(QStringLiteral("local"));
        QVERIFY(!view->findChild<QPushButton *>(QStringLiteral("removeHostButton"))->isEnabled());
    }

    // Add and Remove in the view; the agents' host filter follows both.
    void addAndRemoveAHost() {
        ui::HostsDialog *view = hostsView();
        view->findChild<QLineEdit *>(QStringLiteral("hostName"))->setText(QStringLiteral("spare"));
        view->findChild<QLineEdit *>(QStringLiteral("hostSsh"))->setText(kNowhere);
        view->findChild<QLineEdit *>(QStringLiteral("hostClaudeBin"))
            ->setText(QStringLiteral("/opt/claude/bin/claude"));
        view->findChild<QPushButton *>(QStringLiteral("addHostButton"))->click();
        QTRY_COMPARE(view->currentHost(), QStringLiteral("spare"));
        QCOMPARE(f.http.get(f.url(QStringLiteral("/api/hosts/spare")))
                     .object()
                     .value(hk::ClaudeBin)
                     .toString(),
                 QStringLiteral("/opt/claude/bin/claude"));
        QComboBox *filter = f.agentsView()->hostFilter();
        QTRY_VERIFY(filter->findData(QStringLiteral("spare")) > 0);
        // A refused one: the service's words.
        view->findChild<QLineEdit *>(QStringLiteral("hostName"))->setText(QStringLiteral("spare"));
        view->findChild<QLineEdit *>(QStringLiteral("hostSsh"))->setText(kNowhere);
        view->findChild<QPushButton *>(QStringLiteral("addHostButton"))->click();
        QTRY_VERIFY(outcome().startsWith(QStringLiteral("Not added")));

        view->selectHost(QStringLiteral("spare"));
        view->findChild<QPushButton *>(QStringLiteral("removeHostButton"))->click();
        confirm();
        QTRY_COMPARE(outcome(), QStringLiteral("Removed spare"));
        QCOMPARE(f.session->hosts().rowOf(QStringLiteral("spare")), -1);
        QCOMPARE(f.http.get(f.url(QStringLiteral("/api/hosts/spare"))).status, 404);
        QTRY_COMPARE(filter->findData(QStringLiteral("spare")), -1);
        view->hide();
    }

    // The new-agent dialog: the host chosen is sent; a directory on it is not browsed or checked
    // here, and no worktree is offered there.
    void newAgentDialogSendsTheHost() {
        f.window->agentActions()->newAgent->trigger();
        ui::NewAgentDialog *create = nullptr;
        QTRY_VERIFY((create = f.window->findChild<ui::NewAgentDialog *>()));
        auto *host = create->findChild<QComboBox *>(QStringLiteral("agentHost"));
        QCOMPARE(host->currentData().toString(), QStringLiteral("local"));
        QVERIFY(!create->fields().contains(hk::Host));
        auto *browse = create->findChild<QPushButton *>(QStringLiteral("agentBrowse"));
        auto *worktree = create->findChild<QCheckBox *>(QStringLiteral("agentWorktree"));
        QVERIFY(browse->isEnabled() && worktree->isEnabled());
        QTRY_VERIFY(host->findData(kHost) > 0);
        QCOMPARE(host->itemText(host->findData(kHost)), kHost + QStringLiteral(" (unreachable)"));
        host->setCurrentIndex(host->findData(kHost));
        QVERIFY(!browse->isEnabled());
        QVERIFY(!worktree->isEnabled());
        auto *cwd = create->findChild<QLineEdit *>(QStringLiteral("agentCwd"));
        QCOMPARE(cwd->text(), QString()); // never a directory of this machine
        create->findChild<QLineEdit *>(QStringLiteral("agentName"))
            ->setText(QStringLiteral("dialed"));
        cwd->setText(QStringLiteral("/srv/elsewhere"));
        QCOMPARE(create->fields().value(hk::Host).toString(), kHost);
        shot(create, QStringLiteral("monitor-new-agent-host.png"));
        create->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!f.window->findChild<ui::NewAgentDialog *>(), 10000);

        QJsonObject dialed;
        for (const QJsonValue &v : f.http.get(f.url(QStringLiteral("/api/agents"))).array()) {
            if (v.toObject().value(k::Name_).toString() == QLatin1String("dialed"))
                dialed = v.toObject();
        }
        QCOMPARE(dialed.value(hk::Host).toString(), kHost);
        QCOMPARE(dialed.value(QLatin1String("cwd")).toString(), QStringLiteral("/srv/elsewhere"));
        QTRY_COMPARE(shownHosts().value(QStringLiteral("dialed")), kHost);

        // Opened again: that host's directory is remembered for it, this machine's for local.
        f.window->agentActions()->newAgent->trigger();
        QTRY_VERIFY((create = f.window->findChild<ui::NewAgentDialog *>()));
        host = create->findChild<QComboBox *>(QStringLiteral("agentHost"));
        cwd = create->findChild<QLineEdit *>(QStringLiteral("agentCwd"));
        const QString localCwd = cwd->text();
        QVERIFY(localCwd != QStringLiteral("/srv/elsewhere"));
        QTRY_VERIFY(host->findData(kHost) > 0);
        host->setCurrentIndex(host->findData(kHost));
        QCOMPARE(cwd->text(), QStringLiteral("/srv/elsewhere"));
        host->setCurrentIndex(0);
        QCOMPARE(cwd->text(), localCwd);
        create->reject();
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUiHosts>(argc, argv, QStringLiteral("tst_monitor_ui_hosts"));
}

#include "tst_monitor_ui_hosts.moc"
