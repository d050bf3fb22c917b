#pragma once
// For GUI suites: a temp HOME and XDG dirs set before QApplication reads them, so QSettings,
// token files and window layouts never touch the real user's files. Call first thing in main(),
// or let runGuiSuite() be main().

#include <QApplication>
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace flotilla::test {

inline bool makeHermeticGuiHome(const QTemporaryDir &home) {
    if (!home.isValid())
        return false;
    const QByteArray h = home.path().toUtf8();
    qputenv("HOME", h);
    qputenv("XDG_CONFIG_HOME", h + "/config");
    qputenv("XDG_DATA_HOME", h + "/data");
    qputenv("XDG_CACHE_HOME", h + "/cache");
    const QString runtime = home.path() + QStringLiteral("/runtime");
    QDir().mkpath(runtime);
    QFile::setPermissions(runtime,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    qputenv("XDG_RUNTIME_DIR", runtime.toUtf8());
    // No session bus from the developer's desktop: the keyring must not be the real one.
    qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    QStandardPaths::setTestModeEnabled(true);
    return true;
}

// The whole main() of a GUI suite: the hermetic HOME, a QApplication named after the suite (its
// QSettings live in that HOME), then the test object's slots.
template <typename Suite> int runGuiSuite(int argc, char *argv[], const QString &name) {
    QTemporaryDir home;
    if (!makeHermeticGuiHome(home))
        return 1;
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("flotilla-test"));
    QApplication::setApplicationName(name);
    Suite suite;
    return QTest::qExec(&suite, argc, argv);
}

} // namespace flotilla::test
