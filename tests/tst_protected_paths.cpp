// The tripwire for the service's own paths (permissions/ProtectedPaths, docs/security.md): the
// spellings a shell would turn into a protected path are caught, neighbours are not. A unit
// suite: the hook that asks it is covered by tst_security_tokens.

#include "permissions/ProtectedPaths.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace flotilla;

namespace {
const QString kHome = QStringLiteral("/home/u");
const QString kData = QStringLiteral("/home/u/.local/share/flotilla");
const QString kToken = QStringLiteral("/home/u/.config/flotilla/token");
constexpr qint64 kPid = 4242;

ProtectedPaths guard() {
    return ProtectedPaths({kData, kToken}, kHome, kPid);
}
} // namespace

class TestProtectedPaths : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void spellings_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("named"); // empty: not protected
        const QString secrets = kData;
        QTest::newRow("plain") << QStringLiteral("cat /home/u/.local/share/flotilla/secrets.json")
                               << secrets;
        QTest::newRow("double slashes")
            << QStringLiteral("cat //home//u/.local/share//flotilla/secrets.json") << secrets;
        QTest::newRow("dot segments")
            << QStringLiteral("cat /home/u/./.local/./share/flotilla/./secrets.json") << secrets;
        QTest::newRow("dot-dot") << QStringLiteral("cat /home/u/x/../.local/share/y/../flotilla/db")
                                 << secrets;
        QTest::newRow("single quotes")
            << QStringLiteral("cat '/home/u/.local/share/flo''tilla/secrets.json'") << secrets;
        QTest::newRow("double quotes split")
            << QStringLiteral("cat \"/home/u/.local\"/share/\"flotilla\"/secrets.json") << secrets;
        QTest::newRow("backslash")
            << QStringLiteral("cat /home/u/.local/share/flo\\tilla/x") << secrets;
        QTest::newRow("$HOME") << QStringLiteral("cat $HOME/.local/share/flotilla/secrets.json")
                               << secrets;
        QTest::newRow("${HOME}") << QStringLiteral("cat ${HOME}/.config/flotilla/token") << kToken;
        QTest::newRow("tilde") << QStringLiteral("cat ~/.config/flotilla/token") << kToken;
        QTest::newRow("tilde after =")
            << QStringLiteral("x=~/.config//flotilla/token; cat $x") << kToken;
        QTest::newRow("curl @file")
            << QStringLiteral("curl -d @/home/u/.config/flotilla/token x") << kToken;
        QTest::newRow("proc environ") << QStringLiteral("tr '\\0' '\\n' < /proc/4242/environ")
                                      << QStringLiteral("/proc/4242/environ");
        QTest::newRow("proc $PPID environ")
            << QStringLiteral("cat /proc/$PPID/environ") << QStringLiteral("/proc/4242/environ");
        QTest::newRow("proc ${PPID} mem")
            << QStringLiteral("dd if=/proc/${PPID}/mem") << QStringLiteral("/proc/4242/mem");
        QTest::newRow("proc cmdline quoted")
            << QStringLiteral("cat \"/proc/4242/cmdline\"") << QStringLiteral("/proc/4242/cmdline");
        QTest::newRow("proc //") << QStringLiteral("cat /proc//4242/./environ")
                                 << QStringLiteral("/proc/4242/environ");
        // Neighbours and other processes are not the service's.
        QTest::newRow("a sibling name")
            << QStringLiteral("cat /home/u/.local/share/flotillas/x") << QString();
        QTest::newRow("a longer name")
            << QStringLiteral("cat /home/u/.config/flotilla/tokens") << QString();
        QTest::newRow("dot-dot out of it")
            << QStringLiteral("ls /home/u/.local/share/flotilla/../other") << QString();
        QTest::newRow("another pid") << QStringLiteral("cat /proc/42421/environ") << QString();
        QTest::newRow("own status") << QStringLiteral("cat /proc/4242/status") << QString();
        QTest::newRow("$HOMEDIR is not $HOME")
            << QStringLiteral("cat $HOMEDIR/.config/flotilla/token") << QString();
        QTest::newRow("~user is not ~")
            << QStringLiteral("cat ~u2/.config/flotilla/token") << QString();
    }
    void spellings() {
        QFETCH(QString, command);
        QFETCH(QString, named);
        const QJsonObject input{{QStringLiteral("command"), command}};
        QCOMPARE(guard().namedIn(input), named);
    }

    // Inside arrays and nested objects too (a MultiEdit's edits, a Codex change list).
    void nestedInputs() {
        const QJsonObject input{
            {QStringLiteral("edits"),
             QJsonArray{QJsonObject{{QStringLiteral("file_path"),
                                     QStringLiteral("~/.local/share/flotilla/flotilla.db")}}}}};
        QCOMPARE(guard().namedIn(input), kData);
    }
};

QTEST_GUILESS_MAIN(TestProtectedPaths)
#include "tst_protected_paths.moc"
