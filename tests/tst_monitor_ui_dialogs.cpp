// The monitor's dialogs and window parts that need no service: the connect dialog (saved
// services, tokens in the credential store, the no-keyring warning), the keyring store's
// fallback, the local token file kept out of the dialog, the permission dialog, the shortcuts list,
// and the window layout kept in QSettings. Runs under Xvfb like tst_monitor_ui; everything it
// writes lives in a temp HOME.

#include "core/LocalToken.h"
#include "core/MonitorSession.h"
#include "support/HermeticGui.h"
#include "ui/AgentsView.h"
#include "ui/ConnectDialog.h"
#include "ui/FileCredentialStore.h"
#include "ui/KeychainCredentialStore.h"
#include "ui/MainWindow.h"
#include "ui/NewAgentDialog.h"
#include "ui/PermissionDialog.h"
#include "ui/ServiceProfiles.h"
#include "ui/ShortcutsDialog.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableWidget>
#include <QTest>
#include <memory>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

class TestMonitorUiDialogs final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

private Q_SLOTS:
    void connectDialogRemembersServicesAndTokens() {
        ui::FileCredentialStore store(m_tmp.path() + QStringLiteral("/dialog-tokens.json"));
        {
            ui::ConnectDialog dialog(store);
            dialog.show();
            // The file store is not a keyring: the dialog says where tokens go.
            auto *warning = dialog.findChild<QLabel *>(QStringLiteral("keyringWarning"));
            QVERIFY(warning->isVisible());
            QVERIFY(warning->text().contains(QStringLiteral("dialog-tokens.json")));
            dialog.findChild<QLineEdit *>(QStringLiteral("serviceUrl"))
                ->setText(QStringLiteral("http://127.0.0.1:5999"));
            dialog.findChild<QLineEdit *>(QStringLiteral("serviceToken"))
                ->setText(QStringLiteral("s3cret-token"));
            dialog.accept();
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
            QCOMPARE(dialog.endpoint().token, QByteArray("s3cret-token"));
        }
        QFile tokens(store.path());
        QVERIFY(tokens.exists());
        QCOMPARE(tokens.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther |
                                         QFileDevice::WriteGroup | QFileDevice::WriteOther),
                 QFileDevice::Permissions());
        const ui::ServiceProfiles profiles;
        QVERIFY(profiles.indexOf(QUrl(QStringLiteral("http://127.0.0.1:5999"))) >= 0);
        QCOMPARE(profiles.lastUsed(), QUrl(QStringLiteral("http://127.0.0.1:5999")));
        // Reopened: the last service is selected and its token read back from the store.
        ui::ConnectDialog again(store);
        auto *token = again.findChild<QLineEdit *>(QStringLiteral("serviceToken"));
        QTRY_COMPARE(token->text(), QStringLiteral("s3cret-token"));
        QCOMPARE(again.endpoint().baseUrl, QUrl(QStringLiteral("http://127.0.0.1:5999")));
        // A bad URL keeps the dialog open.
        again.findChild<QLineEdit *>(QStringLiteral("serviceUrl"))
            ->setText(QStringLiteral("ftp://x"));
        again.accept();
        QCOMPARE(again.result(), int(QDialog::Rejected));
    }

    void connectDialogLeavesTheLocalFileTokenOut() {
        // The session connects with the local service's token file, but the dialog offers (and
        // so may save) only what the user gave: a saved copy would outlive a regenerated file.
        const QString configDir = m_tmp.path() + QStringLiteral("/local-token-config");
        QVERIFY(QDir().mkpath(configDir + QStringLiteral("/flotilla")));
        QFile file(localTokenPath(configDir));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("token-from-the-file\n");
        file.close();
        QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));

        MonitorSession session(configDir);
        ui::FileCredentialStore store(m_tmp.path() + QStringLiteral("/file-token-tokens.json"));
        ui::MainWindow window(session, store);
        window.connectTo({QUrl(QStringLiteral("http://127.0.0.1:5997")), {}});
        QCOMPARE(session.client().endpoint().token, QByteArray("token-from-the-file"));
        window.showConnectDialog();
        auto *dialog = window.findChild<ui::ConnectDialog *>();
        QVERIFY(dialog);
        QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("serviceUrl"))->text(),
                 QStringLiteral("http://127.0.0.1:5997"));
        QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("serviceToken"))->text(), QString());
        dialog->reject();
        session.close();
    }

    void sshServicesInTheDialogAndTheStatusBar() {
        ui::FileCredentialStore store(m_tmp.path() + QStringLiteral("/ssh-tokens.json"));
        ui::ConnectDialog dialog(store);
        dialog.show();
        auto *url = dialog.findChild<QLineEdit *>(QStringLiteral("serviceUrl"));
        auto *token = dialog.findChild<QLineEdit *>(QStringLiteral("serviceToken"));
        auto *error = dialog.findChild<QLabel *>(QStringLiteral("connectError"));
        auto *services = dialog.findChild<QComboBox *>(QStringLiteral("savedServices"));
        services->setCurrentIndex(services->count() - 1); // "New service..."
        // What ssh could read as an option is refused in the dialog, with the reason.
        url->setText(QStringLiteral("ssh://-oProxyCommand=sh@build.example"));
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        QVERIFY(error->isVisible());
        QVERIFY2(error->text().contains(QStringLiteral("must not start with '-'")),
                 qPrintable(error->text()));
        const QUrl good(QStringLiteral("ssh://alice@build.example:2222?port=6000"));
        url->setText(good.toString());
        QVERIFY(token->placeholderText().contains(QStringLiteral("remote service")));
        token->setText(QStringLiteral("remote-token"));
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(dialog.endpoint().baseUrl, good);
        const ui::ServiceProfiles saved;
        QCOMPARE(saved.lastUsed(), good);
        QCOMPARE(saved.all().at(saved.indexOf(good)).name, QStringLiteral("alice@build.example"));

        // The status bar shows the tunnel while it is not up: here ssh itself is missing.
        MonitorSession session;
        session.tunnel().setProgram(QStringLiteral("/nonexistent/ssh"));
        ui::MainWindow window(session, store);
        window.connectTo(dialog.endpoint());
        auto *state = window.findChild<QLabel *>(QStringLiteral("connectionState"));
        QCOMPARE(state->property("tunnelState").toString(), QStringLiteral("Failed"));
        QVERIFY2(state->text().contains(QStringLiteral("ssh tunnel to alice@build.example failed")),
                 qPrintable(state->text()));
        QVERIFY(state->toolTip().contains(QStringLiteral("openssh-client")));
        session.close();
        QCOMPARE(state->property("tunnelState").toString(), QStringLiteral("Stopped"));
        QVERIFY(state->text().contains(QStringLiteral("Disconnected")));
    }

    void permissionDialogAnswers() {
        QJsonObject request{{QStringLiteral("id"), QStringLiteral("perm-1")},
                            {QStringLiteral("agentName"), QStringLiteral("alpha-builder")},
                            {QStringLiteral("tool"), QStringLiteral("Write")},
                            {QStringLiteral("toolInput"),
                             QJsonObject{{QStringLiteral("file_path"), QStringLiteral("/tmp/x")}}}};
        ui::PermissionDialog dialog(request);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("permissionTool"))->text(),
                 QStringLiteral("Write"));
        QVERIFY(dialog.findChild<QPlainTextEdit *>(QStringLiteral("permissionInput"))
                    ->toPlainText()
                    .contains(QStringLiteral("/tmp/x")));
        QString answeredId;
        bool granted = false;
        connect(&dialog, &ui::PermissionDialog::answered, this, [&](const QString &id, bool g) {
            answeredId = id;
            granted = g;
        });
        dialog.show();
        dialog.findChild<QPushButton *>(QStringLiteral("grantButton"))->click();
        QCOMPARE(answeredId, QStringLiteral("perm-1"));
        QVERIFY(granted);
    }

    // The new-agent dialog asks which CLI runs the agent, and offers that provider's models.
    void newAgentDialogOffersTheProviders() {
        ui::NewAgentDialog dialog;
        auto *provider = dialog.findChild<QComboBox *>(QStringLiteral("agentProvider"));
        auto *model = dialog.findChild<QComboBox *>(QStringLiteral("agentModel"));
        QVERIFY(provider && model);
        dialog.findChild<QLineEdit *>(QStringLiteral("agentName"))->setText(QStringLiteral("cx"));
        QCOMPARE(dialog.fields().value(QLatin1String("provider")).toString(),
                 QStringLiteral("claude"));
        QCOMPARE(model->currentText(), QStringLiteral("sonnet"));
        provider->setCurrentIndex(provider->findData(QStringLiteral("codex")));
        QCOMPARE(model->currentText(), QStringLiteral("gpt-5.5"));
        const QJsonObject fields = dialog.fields();
        QCOMPARE(fields.value(QLatin1String("provider")).toString(), QStringLiteral("codex"));
        QCOMPARE(fields.value(QLatin1String("model")).toString(), QStringLiteral("gpt-5.5"));
        QCOMPARE(fields.value(QLatin1String("name")).toString(), QStringLiteral("cx"));
    }

    void shortcutsDialogListsTheActions() {
        MonitorSession session;
        ui::FileCredentialStore store(m_tmp.path() + QStringLiteral("/shortcut-tokens.json"));
        ui::MainWindow window(session, store);
        ui::ShortcutsDialog dialog(window.allActions());
        auto *tableWidget = dialog.findChild<QTableWidget *>(QStringLiteral("shortcutsTable"));
        QStringList rows;
        for (int r = 0; r < tableWidget->rowCount(); ++r)
            rows << tableWidget->item(r, 0)->text() + QLatin1Char('=') +
                        tableWidget->item(r, 1)->text();
        const QString all = rows.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("New agent=Ctrl+N")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Delete agents=Del")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Stop agents=Ctrl+.")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Reconnect=F5")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Message box=Ctrl+L")), qPrintable(all));
    }

    void keyringStoreFallsBackVisibly() {
        // Under Xvfb in CI there is no session bus and so no keyring: the store must say so and
        // keep working with the file. On a desktop with a keyring both paths are fine.
        ui::KeychainCredentialStore store;
        bool written = false;
        bool writeOk = false;
        store.writeToken(QStringLiteral("http://127.0.0.1:5998"), "keyring-token", [&](bool ok) {
            written = true;
            writeOk = ok;
        });
        QTRY_VERIFY_WITH_TIMEOUT(written, 30000);
        QVERIFY(writeOk);
        bool read = false;
        QByteArray token;
        store.readToken(QStringLiteral("http://127.0.0.1:5998"),
                        [&](bool found, const QByteArray &t) {
                            read = found;
                            token = t;
                        });
        QTRY_VERIFY_WITH_TIMEOUT(read, 30000);
        QCOMPARE(token, QByteArray("keyring-token"));
        if (!store.warning().isEmpty()) {
            QVERIFY(store.warning().contains(QStringLiteral("tokens.json")));
            ui::ConnectDialog dialog(store);
            QVERIFY(!dialog.findChild<QLabel *>(QStringLiteral("keyringWarning"))->isHidden());
        }
        store.removeToken(QStringLiteral("http://127.0.0.1:5998"));
    }

    void layoutIsRestored() {
        QList<int> sizes;
        {
            MonitorSession session;
            ui::FileCredentialStore store(m_tmp.path() + QStringLiteral("/layout-tokens.json"));
            ui::MainWindow window(session, store);
            window.resize(1200, 800);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            auto *split = window.findChild<QSplitter *>(QStringLiteral("mainSplitter"));
            split->setSizes({300, 700});
            sizes = split->sizes();
            window.findChild<QDockWidget *>(QStringLiteral("bossDock"))->hide();
            window.close(); // closeEvent saves the layout
        }
        QSettings s;
        QVERIFY(!s.value(QStringLiteral("window/geometry")).toByteArray().isEmpty());
        QVERIFY(!s.value(QStringLiteral("window/state")).toByteArray().isEmpty());
        // The settings live in the temp HOME, never in the real one.
        QVERIFY(s.fileName().startsWith(QDir::homePath()));
        QVERIFY(QDir::homePath().startsWith(QDir::tempPath()));

        MonitorSession session;
        ui::FileCredentialStore store(m_tmp.path() + QStringLiteral("/layout-tokens.json"));
        ui::MainWindow window(session, store);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.findChild<QSplitter *>(QStringLiteral("mainSplitter"))->sizes(), sizes);
        QVERIFY(window.findChild<QDockWidget *>(QStringLiteral("bossDock"))->isHidden());
        QCOMPARE(window.size(), QSize(1200, 800));
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUiDialogs>(argc, argv, QStringLiteral("tst_monitor_ui_dialogs"));
}

#include "tst_monitor_ui_dialogs.moc"
