// ssh:// services without a server: how SshTarget reads a URL (and what it refuses:
// option-like users and hosts, passwords, paths, bad ports), and SshTunnel's command line (its
// own options first, since ssh keeps the first value of an option; the destination last, behind
// "--"; never a shared master connection, which would take the forward away from it).

#include "core/SshTarget.h"
#include "core/SshTunnel.h"

#include <QTest>

using namespace flotilla::monitor;

class TestMonitorSshTarget final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parseTarget_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("sshPort");
        QTest::addColumn<int>("remotePort");
        QTest::addColumn<QString>("error"); // a part of the refusal; empty: accepted
        const QString ok;
        QTest::newRow("full") << "ssh://alice@build.example:2222?port=6000"
                              << "alice"
                              << "build.example" << 2222 << 6000 << ok;
        QTest::newRow("defaults") << "ssh://devbox"
                                  << ""
                                  << "devbox" << 0 << 5174 << ok;
        QTest::newRow("ipv6") << "ssh://bob@[::1]:22?port=5174"
                              << "bob"
                              << "::1" << 22 << 5174 << ok;
        QTest::newRow("trailing slash") << "ssh://a@h/?port=1"
                                        << "a"
                                        << "h" << 0 << 1 << ok;
        QTest::newRow("not ssh") << "http://h:5174"
                                 << ""
                                 << "" << 0 << 0 << "not an ssh";
        QTest::newRow("no host") << "ssh://alice@"
                                 << ""
                                 << "" << 0 << 0 << "no host";
        // QUrl refuses such a host itself; parseSshTarget would too.
        QTest::newRow("host option") << "ssh://-oProxyCommand"
                                     << ""
                                     << "" << 0 << 0 << "Invalid hostname";
        QTest::newRow("user option") << "ssh://-oProxyCommand=sh@h"
                                     << ""
                                     << "" << 0 << 0 << "must not start with '-'";
        QTest::newRow("encoded user option") << "ssh://%2DoProxyCommand@h"
                                             << ""
                                             << "" << 0 << 0 << "must not start with '-'";
        QTest::newRow("user space") << "ssh://a%20b@h"
                                    << ""
                                    << "" << 0 << 0 << "user name may only";
        QTest::newRow("password") << "ssh://a:secret@h"
                                  << ""
                                  << "" << 0 << 0 << "password";
        QTest::newRow("ssh port 0") << "ssh://h:0"
                                    << ""
                                    << "" << 0 << 0 << "ssh port";
        QTest::newRow("path") << "ssh://h/5174"
                              << ""
                              << "" << 0 << 0 << "no path";
        QTest::newRow("fragment") << "ssh://h#x"
                                  << ""
                                  << "" << 0 << 0 << "fragment";
        QTest::newRow("remote port range") << "ssh://h?port=70000"
                                           << ""
                                           << "" << 0 << 0 << "port=70000 is not a port";
        QTest::newRow("remote port text") << "ssh://h?port=web"
                                          << ""
                                          << "" << 0 << 0 << "port=web is not a port";
        QTest::newRow("unknown parameter") << "ssh://h?prot=5174"
                                           << ""
                                           << "" << 0 << 0 << "unknown parameter 'prot'";
    }
    void parseTarget() {
        QFETCH(QString, url);
        QFETCH(QString, error);
        QString why;
        const std::optional<SshTarget> t = parseSshTarget(QUrl(url), &why);
        if (!error.isEmpty()) {
            QVERIFY2(!t, qPrintable(url));
            QVERIFY2(why.contains(error), qPrintable(why));
            return;
        }
        QVERIFY2(t, qPrintable(why));
        QTEST(t->user, "user");
        QTEST(t->host, "host");
        QTEST(t->sshPort, "sshPort");
        QTEST(t->remotePort, "remotePort");
        // The canonical URL (what a saved service keeps) means the same target.
        const std::optional<SshTarget> again = parseSshTarget(t->url(), &why);
        QVERIFY2(again, qPrintable(t->url().toString()));
        QCOMPARE(again->destination(), t->destination());
        QCOMPARE(again->remotePort, t->remotePort);
    }

    void commandLineKeepsItsOwnOptionsFirst() {
        SshTarget t;
        t.user = QStringLiteral("alice");
        t.host = QStringLiteral("build.example");
        t.sshPort = 2222;
        t.remotePort = 6000;
        const QStringList extra{QStringLiteral("-i"), QStringLiteral("/k")};
        const QStringList args = SshTunnel::arguments(t, 40123, extra);
        QCOMPARE(args.first(), QStringLiteral("-N"));
        const QString line = args.join(QLatin1Char(' '));
        for (const char *option : {"BatchMode=yes", "ExitOnForwardFailure=yes", "ControlMaster=no",
                                   "ControlPath=none", "ServerAliveInterval=", "ConnectTimeout="})
            QVERIFY2(line.contains(QLatin1String(option)), option);
        QVERIFY(line.contains(QStringLiteral("-L 127.0.0.1:40123:127.0.0.1:6000")));
        QVERIFY(line.contains(QStringLiteral("-p 2222")));
        // ssh keeps an option's first value: the tunnel's own come before the extras, the
        // tunable defaults after them; the destination is last, behind "--".
        QVERIFY(args.indexOf(QStringLiteral("BatchMode=yes")) < args.indexOf(QStringLiteral("-i")));
        QVERIFY(args.indexOf(QStringLiteral("-i")) <
                args.indexOf(QStringLiteral("ServerAliveInterval=15")));
        QCOMPARE(args.mid(args.size() - 2),
                 (QStringList{QStringLiteral("--"), QStringLiteral("alice@build.example")}));
    }
};

QTEST_GUILESS_MAIN(TestMonitorSshTarget)
#include "tst_monitor_ssh_target.moc"
