// The monitor's use of a local flotillad's token file (flotillad --token-file, the packaged unit's
// ~/.config/flotilla/token): which URLs count as local, when the file is trusted (regular, the
// user's, no group/other bits, non-empty once trimmed), that a token the user gave wins and a
// remote URL never gets the file's token, that refusals are logged with the path and the token
// never is; then a MonitorSession connecting to a token-protected flotillad with only the file.

#include "core/LocalToken.h"
#include "core/MonitorSession.h"
#include "support/MonitorFixture.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace flotilla::test;
using namespace flotilla::monitor;
using flotilla::client::ConnectionState;

namespace {

// What flotillad writes: 64 hex digits and a newline.
const QByteArray kFileToken =
    QByteArrayLiteral("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");

// Writes <configDir>/flotilla/token with `content` and exactly `mode` (no umask in the way).
bool writeTokenFile(const QString &configDir, const QByteArray &content, mode_t mode) {
    const QString path = localTokenPath(configDir);
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return false;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(content) != content.size())
        return false;
    f.close();
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

// Every message logged while resolving, so a test can look for the path and for the token.
QStringList g_logged;
QLoggingCategory::CategoryFilter g_previousFilter = nullptr;

// The CTest environment's QT_LOGGING_RULES silence flotilla.*.info, and those rules override
// setFilterRules(): a filter enables every level of flotilla.monitor, so the "token never
// logged" check also covers the info and debug lines.
void enableMonitorCategory(QLoggingCategory *category) {
    if (g_previousFilter)
        g_previousFilter(category);
    if (qstrcmp(category->categoryName(), "flotilla.monitor") == 0) {
        for (QtMsgType type : {QtDebugMsg, QtInfoMsg, QtWarningMsg, QtCriticalMsg})
            category->setEnabled(type, true);
    }
}

void captureMessage(QtMsgType type, const QMessageLogContext &context, const QString &message) {
    g_logged << QString::number(int(type)) + QLatin1Char(' ') +
                    QString::fromLatin1(context.category ? context.category : "") +
                    QLatin1Char(' ') + message;
}

QByteArray resolveLogged(const QUrl &url, const QByteArray &token, const QString &configDir,
                         QStringList *logged) {
    g_previousFilter = QLoggingCategory::installFilter(enableMonitorCategory);
    g_logged.clear();
    const QtMessageHandler previous = qInstallMessageHandler(captureMessage);
    const QByteArray resolved = resolveServiceToken(url, token, configDir);
    qInstallMessageHandler(previous);
    QLoggingCategory::installFilter(g_previousFilter); // back to the rules
    g_previousFilter = nullptr;
    *logged = g_logged;
    return resolved;
}

bool anyContains(const QStringList &lines, const QString &needle) {
    for (const QString &line : lines) {
        if (line.contains(needle))
            return true;
    }
    return false;
}

} // namespace

class TestMonitorLocalToken final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void localHosts_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("local");
        QTest::newRow("127.0.0.1") << QStringLiteral("http://127.0.0.1:5174") << true;
        QTest::newRow("127.x") << QStringLiteral("http://127.45.6.7:5174") << true;
        QTest::newRow("localhost") << QStringLiteral("http://localhost:5174") << true;
        QTest::newRow("LOCALHOST") << QStringLiteral("http://LOCALHOST:5174/") << true;
        QTest::newRow("[::1]") << QStringLiteral("http://[::1]:5174") << true;
        QTest::newRow("https local") << QStringLiteral("https://127.0.0.1") << true;
        QTest::newRow("documentation address") << QStringLiteral("http://192.0.2.7:5174") << false;
        QTest::newRow("private address") << QStringLiteral("http://10.0.0.1:5174") << false;
        QTest::newRow("name") << QStringLiteral("http://example.org") << false;
        QTest::newRow("localhost as a prefix")
            << QStringLiteral("http://localhost.example.org:5174") << false;
        QTest::newRow("127 as a label") << QStringLiteral("http://127.example.org") << false;
        QTest::newRow("ipv6") << QStringLiteral("http://[2001:db8::1]:5174") << false;
        QTest::newRow("no host") << QStringLiteral("http://") << false;
    }
    void localHosts() {
        QFETCH(QString, url);
        QFETCH(bool, local);
        QCOMPARE(isLocalService(QUrl(url)), local);
    }

    void resolve_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QByteArray>("given");   // the user's token (env, saved, dialog)
        QTest::addColumn<QByteArray>("content"); // of the token file; null: no file
        QTest::addColumn<int>("mode");
        QTest::addColumn<QByteArray>("expected");
        QTest::addColumn<QString>("warning"); // a warning naming the path says this; empty: none

        const QString local = QStringLiteral("http://127.0.0.1:5174");
        const QByteArray written = kFileToken + '\n';
        QTest::newRow("local, 0600")
            << local << QByteArray() << written << 0600 << kFileToken << QString();
        QTest::newRow("localhost") << QStringLiteral("http://localhost:5174") << QByteArray()
                                   << written << 0600 << kFileToken << QString();
        QTest::newRow("[::1]") << QStringLiteral("http://[::1]:5174") << QByteArray() << written
                               << 0600 << kFileToken << QString();
        QTest::newRow("127.x") << QStringLiteral("http://127.0.1.1:9000") << QByteArray() << written
                               << 0600 << kFileToken << QString();
        QTest::newRow("0400") << local << QByteArray() << written << 0400 << kFileToken
                              << QString();
        QTest::newRow("given token wins")
            << local << QByteArrayLiteral("from-the-user") << written << 0600
            << QByteArrayLiteral("from-the-user") << QString();
        QTest::newRow("given token wins, remote")
            << QStringLiteral("http://192.0.2.7:5174") << QByteArrayLiteral("from-the-user")
            << written << 0600 << QByteArrayLiteral("from-the-user") << QString();
        QTest::newRow("remote address") << QStringLiteral("http://192.0.2.7:5174") << QByteArray()
                                        << written << 0600 << QByteArray() << QString();
        QTest::newRow("remote name") << QStringLiteral("http://example.org") << QByteArray()
                                     << written << 0600 << QByteArray() << QString();
        QTest::newRow("0644") << local << QByteArray() << written << 0644 << QByteArray()
                              << QStringLiteral("mode 0644 gives group/other access");
        QTest::newRow("0640") << local << QByteArray() << written << 0640 << QByteArray()
                              << QStringLiteral("mode 0640 gives group/other access");
        QTest::newRow("0620") << local << QByteArray() << written << 0620 << QByteArray()
                              << QStringLiteral("mode 0620 gives group/other access");
        QTest::newRow("0602") << local << QByteArray() << written << 0602 << QByteArray()
                              << QStringLiteral("mode 0602 gives group/other access");
        QTest::newRow("0601") << local << QByteArray() << written << 0601 << QByteArray()
                              << QStringLiteral("mode 0601 gives group/other access");
        QTest::newRow("missing file")
            << local << QByteArray() << QByteArray() << 0 << QByteArray() << QString();
        QTest::newRow("trimmed") << local << QByteArray()
                                 << QByteArray(" \t\r\n" + kFileToken + "\r\n\n  ") << 0600
                                 << kFileToken << QString();
        QTest::newRow("empty") << local << QByteArray() << QByteArray("") << 0600 << QByteArray()
                               << QStringLiteral("it is empty");
        QTest::newRow("blank") << local << QByteArray() << QByteArray(" \n\t\n") << 0600
                               << QByteArray() << QStringLiteral("it is empty");
        QTest::newRow("too large") << local << QByteArray() << QByteArray(5000, 'a') << 0600
                                   << QByteArray() << QStringLiteral("larger than 4096 bytes");
    }
    void resolve() {
        QFETCH(QString, url);
        QFETCH(QByteArray, given);
        QFETCH(QByteArray, content);
        QFETCH(int, mode);
        QFETCH(QByteArray, expected);
        QFETCH(QString, warning);

        const QTemporaryDir config;
        QVERIFY(config.isValid());
        if (!content.isNull())
            QVERIFY(writeTokenFile(config.path(), content, mode_t(mode)));
        QStringList logged;
        QCOMPARE(resolveLogged(QUrl(url), given, config.path(), &logged), expected);

        const QString path = localTokenPath(config.path());
        QCOMPARE(path, config.path() + QStringLiteral("/flotilla/token"));
        const QString warningPrefix = QString::number(int(QtWarningMsg)) + QLatin1Char(' ');
        QStringList warnings;
        for (const QString &line : std::as_const(logged)) {
            if (line.startsWith(warningPrefix))
                warnings << line;
        }
        if (warning.isEmpty()) {
            QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(QLatin1Char('\n'))));
        } else {
            QCOMPARE(warnings.size(), 1);
            QVERIFY2(warnings.first().contains(QStringLiteral(" flotilla.monitor ")),
                     qPrintable(warnings.first()));
            QVERIFY2(warnings.first().contains(path), qPrintable(warnings.first()));
            QVERIFY2(warnings.first().contains(warning), qPrintable(warnings.first()));
        }
        // The capture sees the info lines too (the CTest rules would hide them): the use of the
        // file is logged with its path...
        if (given.isEmpty() && !expected.isEmpty()) {
            QVERIFY2(
                anyContains(logged, QStringLiteral("using the local service token from ") + path),
                qPrintable(logged.join(QLatin1Char('\n'))));
        }
        // ...and whatever happened, the secret of the file is in no log line.
        QVERIFY2(!anyContains(logged, QString::fromLatin1(kFileToken)),
                 qPrintable(logged.join(QLatin1Char('\n'))));
    }

    void directoryIsNotAToken() {
        const QTemporaryDir config;
        QVERIFY(QDir().mkpath(localTokenPath(config.path())));
        QStringList logged;
        QCOMPARE(resolveLogged(QUrl(QStringLiteral("http://127.0.0.1:5174")), {}, config.path(),
                               &logged),
                 QByteArray());
        QVERIFY2(anyContains(logged, QStringLiteral("not a regular file")),
                 qPrintable(logged.join(QLatin1Char('\n'))));
    }

    void symlinkIsFollowedAndTheTargetChecked() {
        // A dotfile manager may link the file: what counts is the file read, checked through the
        // open descriptor.
        const QTemporaryDir config;
        const QString target = config.path() + QStringLiteral("/real-token");
        QVERIFY(QDir().mkpath(config.path() + QStringLiteral("/flotilla")));
        QFile f(target);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kFileToken);
        f.close();
        QVERIFY(QFile::link(target, localTokenPath(config.path())));
        const QUrl url(QStringLiteral("http://127.0.0.1:5174"));
        QStringList logged;
        QVERIFY(::chmod(QFile::encodeName(target).constData(), 0600) == 0);
        QCOMPARE(resolveLogged(url, {}, config.path(), &logged), kFileToken);
        QVERIFY(::chmod(QFile::encodeName(target).constData(), 0644) == 0);
        QCOMPARE(resolveLogged(url, {}, config.path(), &logged), QByteArray());
    }

    void otherUsersFileIsNotTrusted() {
        if (::geteuid() != 0)
            QSKIP("needs root to give the file to another user");
        const QTemporaryDir config;
        QVERIFY(writeTokenFile(config.path(), kFileToken, 0600));
        QVERIFY(::chown(QFile::encodeName(localTokenPath(config.path())).constData(), 65534,
                        65534) == 0);
        QStringList logged;
        QCOMPARE(resolveLogged(QUrl(QStringLiteral("http://127.0.0.1:5174")), {}, config.path(),
                               &logged),
                 QByteArray());
        QVERIFY2(anyContains(logged, QStringLiteral("not by the current user")),
                 qPrintable(logged.join(QLatin1Char('\n'))));
    }

    void noConfigDirNoLookup() {
        QCOMPARE(resolveServiceToken(QUrl(QStringLiteral("http://127.0.0.1:5174")), {}, {}),
                 QByteArray());
    }

    // End to end: a flotillad that requires a token, a monitor given none, the token in the file.
    void sessionConnectsWithTheFileToken() {
        MonitorService svc;
        QVERIFY(svc.start(0, kFileToken));
        const QTemporaryDir config;
        QVERIFY(writeTokenFile(config.path(), kFileToken + '\n', 0600));

        MonitorSession s(config.path());
        QSignalSpy resynced(&s, &MonitorSession::resynced);
        s.open(svc.endpoint()); // no token given
        QTRY_COMPARE(stateName(s.client().state()), stateName(ConnectionState::Connected));
        QTRY_VERIFY_WITH_TIMEOUT(!resynced.isEmpty(), 10000); // the snapshot came through
        // REST goes through with it too (every route but health needs the token).
        const flotilla::client::RestReply r =
            waitReply([&](auto cb) { s.client().get(QStringLiteral("/api/agents"), cb); });
        QCOMPARE(r.status, 200);
        // The window shows (and may save) only what the user gave: not the file's token.
        QCOMPARE(s.requestedEndpoint().token, QByteArray());
        QCOMPARE(s.client().endpoint().token, kFileToken);
    }

    void givenTokenWinsOverTheFile() {
        MonitorService svc;
        QVERIFY(svc.start(0, kFileToken));
        const QTemporaryDir config;
        QVERIFY(writeTokenFile(config.path(), kFileToken, 0600));
        MonitorSession s(config.path());
        s.open(svc.endpoint("not-the-token"));
        QTRY_COMPARE(stateName(s.client().state()), stateName(ConnectionState::AuthFailed));
    }

    void groupReadableFileIsNotSent() {
        MonitorService svc;
        QVERIFY(svc.start(0, kFileToken));
        const QTemporaryDir config;
        QVERIFY(writeTokenFile(config.path(), kFileToken, 0644));
        MonitorSession s(config.path());
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral("ignoring the local service token "
                                                               "file .*group/other access")));
        s.open(svc.endpoint());
        QTRY_COMPARE(stateName(s.client().state()), stateName(ConnectionState::AuthFailed));
    }
};

QTEST_GUILESS_MAIN(TestMonitorLocalToken)
#include "tst_monitor_local_token.moc"
