// flotilla-monitor: the desktop client of flotillad. Composition root: parse options, pick the
// credential store, build the session and the window, connect (to --url, else the last used
// service, else ask), run.

#include "core/MonitorSession.h"
#include "ui/AppIcon.h"
#include "ui/FileCredentialStore.h"
#include "ui/KeychainCredentialStore.h"
#include "ui/MainWindow.h"
#include "ui/ServiceProfiles.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QStandardPaths>
#include <QTimer>
#include <memory>

using namespace flotilla;
using namespace flotilla::monitor;

int main(int argc, char *argv[]) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("flotilla"));
    QApplication::setApplicationName(QStringLiteral("flotilla-monitor"));
    QApplication::setApplicationDisplayName(QStringLiteral("Flotilla monitor"));
    QApplication::setApplicationVersion(QStringLiteral(FLOTILLA_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("invalid.flotilla.Monitor"));
    QApplication::setWindowIcon(ui::appIcon());

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Desktop monitor for flotillad."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption urlOption(
        QStringLiteral("url"),
        QStringLiteral("Service to connect to, e.g. http://127.0.0.1:5174, or "
                       "ssh://user@host?port=5174 for a flotillad on another machine (through "
                       "an ssh tunnel). The token is taken from FLOTILLA_TOKEN, else from the "
                       "saved service, else (local service only) from "
                       "~/.config/flotilla/token."),
        QStringLiteral("url"));
    const QCommandLineOption noKeyringOption(
        QStringLiteral("no-keyring"),
        QStringLiteral("Keep tokens in a 0600 file instead of the desktop keyring."));
    parser.addOption(urlOption);
    parser.addOption(noKeyringOption);
    parser.process(app);

    std::unique_ptr<ui::CredentialStore> credentials;
    if (parser.isSet(noKeyringOption))
        credentials = std::make_unique<ui::FileCredentialStore>();
    else
        credentials = std::make_unique<ui::KeychainCredentialStore>();

    // A local flotillad's token file (flotillad --token-file) is looked up under the user's
    // config dir when no token is given.
    MonitorSession session(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation));
    ui::MainWindow window(session, *credentials);
    window.show();

    const QByteArray envToken = qgetenv("FLOTILLA_TOKEN");
    const ui::ServiceProfiles profiles;
    QUrl url = parser.isSet(urlOption) ? QUrl::fromUserInput(parser.value(urlOption))
                                       : profiles.lastUsed();
    if (!url.isValid()) {
        QTimer::singleShot(0, &window, &ui::MainWindow::showConnectDialog);
    } else if (!envToken.isEmpty()) {
        window.connectTo({url, envToken});
    } else {
        const QString key = url.toString(QUrl::StripTrailingSlash);
        credentials->readToken(key, [&window, url](bool, const QByteArray &token) {
            window.connectTo({url, token});
        });
    }
    return QApplication::exec();
}
