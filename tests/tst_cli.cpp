// The flotillad command line as a user meets it: options, exit codes, one clear line on every
// refusal, the environment it honours, the token guard and clean stops on signals.

#include "support/HttpClient.h"
#include "support/ServiceProcess.h"

#include <QFile>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>

using flotilla::test::HttpClient;
using flotilla::test::HttpResponse;
using flotilla::test::ServiceProcess;

namespace {

QProcessEnvironment childEnv(const QTemporaryDir &tmp) {
    return flotilla::test::hermeticEnv(tmp.path());
}

QStringList dataArgs(const QTemporaryDir &tmp) {
    return {QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data")};
}

// Error output without Qt logging lines (those begin with a "flotilla." or "qt." category).
QStringList messageLines(const QByteArray &err) {
    QStringList out;
    const QStringList lines = QString::fromUtf8(err).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString &l : lines) {
        if (!l.startsWith(QLatin1String("flotilla.")) && !l.startsWith(QLatin1String("qt.")))
            out << l;
    }
    return out;
}

// A port nobody listens on right now: bind to port 0, note it, release it.
quint16 freePort() {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void version();
    void help();
    void refusals_data();
    void refusals();
    void portInUse();
    void dataDirCannotBeCreated_data();
    void dataDirCannotBeCreated();
    void listenAllNeedsToken();
    void listenAllWithTokenOrInsecure_data();
    void listenAllWithTokenOrInsecure();
    void portFromEnvironment();
    void tokenGuardsApi();
    void stopsCleanlyOnSignals_data();
    void stopsCleanlyOnSignals();
    void childrenGetTheUsersUmask();
};

void TestCli::version() {
    QTemporaryDir tmp;
    ServiceProcess svc;
    QCOMPARE(svc.runToExit({QStringLiteral("--version")}, childEnv(tmp)), 0);
    const QString out = QString::fromUtf8(svc.stdOut()).trimmed();
    static const QRegularExpression re(QStringLiteral("^flotillad \\d+\\.\\d+\\.\\d+$"));
    QVERIFY2(re.match(out).hasMatch(), qPrintable(out));
    QCOMPARE(out, QStringLiteral("flotillad ") + QStringLiteral(FLOTILLA_VERSION));
    QVERIFY(svc.stdErr().isEmpty());
}

void TestCli::help() {
    QTemporaryDir tmp;
    ServiceProcess svc;
    QCOMPARE(svc.runToExit({QStringLiteral("--help")}, childEnv(tmp)), 0);
    const QByteArray out = svc.stdOut();
    for (const char *needle :
         {"--port", "--data-dir", "--listen-all", "--insecure", "AUTH_TOKEN", "FLOTILLA_PORT"})
        QVERIFY2(out.contains(needle), needle);
    QVERIFY(svc.stdErr().isEmpty());
}

void TestCli::refusals_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mention");
    QTest::newRow("port-not-a-number")
        << QStringList{QStringLiteral("--port"), QStringLiteral("abc")} << QStringLiteral("abc");
    QTest::newRow("port-too-big") << QStringList{QStringLiteral("--port"), QStringLiteral("70000")}
                                  << QStringLiteral("70000");
    QTest::newRow("port-negative")
        << QStringList{QStringLiteral("--port"), QStringLiteral("-1")} << QStringLiteral("port");
    QTest::newRow("port-missing-value")
        << QStringList{QStringLiteral("--port")} << QStringLiteral("port");
    QTest::newRow("unknown-option")
        << QStringList{QStringLiteral("--bogus")} << QStringLiteral("bogus");
    QTest::newRow("positional") << QStringList{QStringLiteral("extra")} << QStringLiteral("extra");
    QTest::newRow("bad-host") << QStringList{QStringLiteral("--host"), QStringLiteral("not-an-ip")}
                              << QStringLiteral("not-an-ip");
    QTest::newRow("host-and-listen-all")
        << QStringList{QStringLiteral("--host"), QStringLiteral("127.0.0.1"),
                       QStringLiteral("--listen-all")}
        << QStringLiteral("--listen-all");
    QTest::newRow("tiny-body-limit")
        << QStringList{QStringLiteral("--max-body-bytes"), QStringLiteral("10")}
        << QStringLiteral("--max-body-bytes");
    // Allow lists take exact names: a wildcard or a URL in the wrong place would open everything
    // or nothing, silently.
    auto allow = [](const char *row, const char *option, const char *value) {
        QTest::newRow(row) << QStringList{QLatin1String(option), QLatin1String(value)}
                           << QString(QLatin1String(value));
    };
    allow("origin-wildcard", "--allow-origin", "*");
    allow("origin-without-scheme", "--allow-origin", "app.example");
    allow("origin-with-path", "--allow-origin", "https://app.example/ui");
    allow("origin-file-scheme", "--allow-origin", "file://x");
    allow("host-with-port", "--allow-host", "flotilla.lan:8080");
    allow("host-wildcard", "--allow-host", "*.example");
    allow("host-url", "--allow-host", "http://flotilla.lan");
    QTest::newRow("token-file-empty")
        << QStringList{QStringLiteral("--token-file"), QString()} << QStringLiteral("--token-file");
}

void TestCli::refusals() {
    QFETCH(QStringList, args);
    QFETCH(QString, mention);
    QTemporaryDir tmp;
    ServiceProcess svc;
    QCOMPARE(svc.runToExit(dataArgs(tmp) + args, childEnv(tmp)), 2);
    const QStringList lines = messageLines(svc.stdErr());
    QVERIFY2(lines.size() == 1 && lines.constFirst().contains(mention), svc.stdErr().constData());
    QVERIFY(svc.stdOut().isEmpty());
    QVERIFY(!QFile::exists(tmp.path() + QStringLiteral("/data"))); // refused before touching state
}

void TestCli::portInUse() {
    QTemporaryDir tmp;
    QTcpServer squatter;
    QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
    const QString port = QString::number(squatter.serverPort());

    ServiceProcess svc;
    QCOMPARE(
        svc.runToExit(dataArgs(tmp) + QStringList{QStringLiteral("--port"), port}, childEnv(tmp)),
        3);
    const QStringList lines = messageLines(svc.stdErr());
    QVERIFY2(lines.size() == 1, svc.stdErr().constData());
    QVERIFY2(lines.constFirst().contains(port), svc.stdErr().constData());
    QVERIFY(lines.constFirst().startsWith(QLatin1String("flotillad: ")));
}

void TestCli::dataDirCannotBeCreated_data() {
    QTest::addColumn<QString>("relative");
    QTest::addColumn<QString>("absolute");
    QTest::newRow("under-proc") << QString() << QStringLiteral("/proc/flotilla-x/data");
    QTest::newRow("parent-is-a-file") << QStringLiteral("/plain-file/data") << QString();
}

void TestCli::dataDirCannotBeCreated() {
    QFETCH(QString, relative);
    QFETCH(QString, absolute);
    QTemporaryDir tmp;
    {
        QFile plain(tmp.path() + QStringLiteral("/plain-file"));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.write("I am not a directory\n");
    }
    const QString dir = absolute.isEmpty() ? tmp.path() + relative : absolute;
    ServiceProcess svc;
    QCOMPARE(svc.runToExit(
                 {QStringLiteral("--data-dir"), dir, QStringLiteral("--port"), QStringLiteral("0")},
                 childEnv(tmp)),
             4);
    const QStringList lines = messageLines(svc.stdErr());
    QVERIFY2(lines.size() == 1, svc.stdErr().constData());
    QVERIFY2(lines.constFirst().contains(dir) &&
                 lines.constFirst().contains(QLatin1String("data directory")),
             svc.stdErr().constData());
}

void TestCli::listenAllNeedsToken() {
    QTemporaryDir tmp;
    ServiceProcess svc;
    QCOMPARE(
        svc.runToExit(dataArgs(tmp) + QStringList{QStringLiteral("--listen-all"),
                                                  QStringLiteral("--port"), QStringLiteral("0")},
                      childEnv(tmp)),
        2);
    const QStringList lines = messageLines(svc.stdErr());
    QVERIFY2(lines.size() == 1, svc.stdErr().constData());
    QVERIFY2(lines.constFirst().contains(QLatin1String("AUTH_TOKEN")) &&
                 lines.constFirst().contains(QLatin1String("--insecure")),
             svc.stdErr().constData());

    // An empty token is no token.
    QProcessEnvironment env = childEnv(tmp);
    env.insert(QStringLiteral("AUTH_TOKEN"), QString());
    ServiceProcess empty;
    QCOMPARE(
        empty.runToExit(dataArgs(tmp) + QStringList{QStringLiteral("--listen-all"),
                                                    QStringLiteral("--port"), QStringLiteral("0")},
                        env),
        2);
}

void TestCli::listenAllWithTokenOrInsecure_data() {
    QTest::addColumn<QString>("token");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("with-token") << QStringLiteral("tok-listen-all") << QStringList();
    QTest::newRow("insecure") << QString() << QStringList{QStringLiteral("--insecure")};
}

void TestCli::listenAllWithTokenOrInsecure() {
    QFETCH(QString, token);
    QFETCH(QStringList, extra);
    QTemporaryDir tmp;
    QProcessEnvironment env = childEnv(tmp);
    if (!token.isEmpty())
        env.insert(QStringLiteral("AUTH_TOKEN"), token);
    ServiceProcess svc;
    QVERIFY2(svc.start(dataArgs(tmp) + QStringList{QStringLiteral("--listen-all")} + extra, env),
             svc.stdErr().constData());
    QVERIFY2(svc.stdErr().contains("listening on 0.0.0.0:"), svc.stdErr().constData());
    HttpClient http;
    const HttpResponse health =
        http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/health")));
    QCOMPARE(health.status, 200);
    QCOMPARE(health.object().value(QLatin1String("authRequired")).toBool(), !token.isEmpty());
    QVERIFY(svc.terminate());
    QCOMPARE(svc.exitStatus(), QProcess::NormalExit);
    QCOMPARE(svc.exitCode(), 0);
}

void TestCli::portFromEnvironment() {
    // ServiceProcess would add --port 0 and override the variable: run the binary directly.
    QTemporaryDir tmp;
    const quint16 port = freePort();
    QVERIFY(port != 0);
    QProcessEnvironment env = childEnv(tmp);
    env.insert(QStringLiteral("FLOTILLA_PORT"), QString::number(port));

    QProcess proc;
    proc.setProcessEnvironment(env);
    proc.start(QStringLiteral(FLOTILLAD_PATH), dataArgs(tmp));
    QVERIFY(proc.waitForStarted());
    QByteArray err;
    const QByteArray expected = "flotillad: listening on 127.0.0.1:" + QByteArray::number(port);
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     err += proc.readAllStandardError();
                     return err.contains(expected) || proc.state() == QProcess::NotRunning;
                 },
                 10000),
             err.constData());
    QVERIFY2(err.contains(expected), err.constData());

    HttpClient http;
    QCOMPARE(http.get(flotilla::test::localUrl(port, QStringLiteral("/api/health"))).status, 200);

    // An explicit --port wins over the variable.
    QTemporaryDir other;
    env.insert(QStringLiteral("FLOTILLA_PORT"), QStringLiteral("not-a-port"));
    ServiceProcess explicitPort;
    QVERIFY2(explicitPort.start(dataArgs(other), env), explicitPort.stdErr().constData());
    QVERIFY(explicitPort.port() != 0);
    QVERIFY(explicitPort.terminate());
    QCOMPARE(explicitPort.exitCode(), 0);

    proc.terminate();
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
    QCOMPARE(proc.exitCode(), 0);

    // An invalid variable is a usage error like an invalid option.
    ServiceProcess invalid;
    QCOMPARE(invalid.runToExit(dataArgs(other), env), 2);
    QVERIFY2(invalid.stdErr().contains("not-a-port"), invalid.stdErr().constData());
}

void TestCli::tokenGuardsApi() {
    const QByteArray token = "tok-3f9c2a7e51d84b06";
    QTemporaryDir tmp;
    QProcessEnvironment env = childEnv(tmp);
    env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromLatin1(token));
    // Every category at every level, Qt's own included (qt.httpserver's debug output would print
    // whole requests; flotillad pins it off): whatever is logged, the token must not be in it.
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.debug=true"));
    ServiceProcess svc;
    QVERIFY2(svc.start(dataArgs(tmp), env), svc.stdErr().constData());
    const QUrl agents = flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents"));

    HttpClient anonymous;
    HttpResponse r = anonymous.get(agents);
    QCOMPARE(r.status, 401);
    QVERIFY(r.isJson());
    QCOMPARE(r.object().value(QLatin1String("code")).toString(), QStringLiteral("unauthorized"));
    QVERIFY(!r.object().value(QLatin1String("error")).toString().isEmpty());
    QVERIFY(!r.body.contains(token));

    r = anonymous.send("GET", agents, {}, {{"X-Auth-Token", QByteArray(token).append('x')}});
    QCOMPARE(r.status, 401);
    r = anonymous.send("GET", agents, {}, {{"X-Auth-Token", token}});
    QCOMPARE(r.status, 200);
    r = anonymous.send("GET", agents, {}, {{"Authorization", QByteArray("Bearer ").append(token)}});
    QCOMPARE(r.status, 200);
    r = anonymous.post(agents, QJsonObject{{QStringLiteral("name"), QStringLiteral("x")},
                                           {QStringLiteral("cwd"), tmp.path()}});
    QCOMPARE(r.status, 401);

    // Health is open, but what start-up repaired is only for a caller with the token.
    r = anonymous.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/health")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.object().value(QLatin1String("authRequired")).toBool(), true);
    QVERIFY(!r.object().contains(QLatin1String("warnings")));
    HttpClient authorised(token);
    r = authorised.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/health")));
    QCOMPARE(r.status, 200);
    QVERIFY(r.object().value(QLatin1String("warnings")).isArray());

    QVERIFY(svc.terminate());
    QCOMPARE(svc.exitCode(), 0);
    const QByteArray err = svc.stdErr();
    QVERIFY2(err.contains("listening on"), err.constData());
    QVERIFY2(!err.contains(token), "the token leaked into the service's error output");
    QVERIFY2(!svc.stdOut().contains(token), "the token leaked into the service's standard output");
}

void TestCli::stopsCleanlyOnSignals_data() {
    QTest::addColumn<int>("sig");
    QTest::newRow("SIGINT") << int(SIGINT);
    QTest::newRow("SIGTERM") << int(SIGTERM);
}

void TestCli::stopsCleanlyOnSignals() {
    QFETCH(int, sig);
    QTemporaryDir tmp;
    ServiceProcess svc;
    QVERIFY2(svc.start(dataArgs(tmp), childEnv(tmp)), svc.stdErr().constData());
    HttpClient http;
    QCOMPARE(http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/health"))).status,
             200);
    const qint64 pid = svc.pid();
    QVERIFY(pid > 0);
    QCOMPARE(::kill(pid_t(pid), sig), 0);
    // QProcess reports pid 0 once it has reaped the child.
    QTRY_COMPARE_WITH_TIMEOUT(svc.pid(), qint64(0), 10000);
    QCOMPARE(svc.exitStatus(), QProcess::NormalExit);
    QCOMPARE(svc.exitCode(), 0);
    const QByteArray err = svc.stdErr();
    QVERIFY2(!err.contains("Segmentation") && !err.contains("ASSERT"), err.constData());
    // The lock went with it: the same data directory starts again at once.
    ServiceProcess again;
    QVERIFY2(again.start(dataArgs(tmp), childEnv(tmp)), again.stdErr().constData());
    QVERIFY(again.terminate());
    QCOMPARE(again.exitCode(), 0);
}

// flotillad keeps its own files private (umask 077) but an exec command, like an agent, writes
// into the user's project with the mask the user started flotillad with.
void TestCli::childrenGetTheUsersUmask() {
    QTemporaryDir tmp;
    ServiceProcess svc;
    const mode_t before = ::umask(027); // the child inherits it; distinct from 077 and 022
    const bool started = svc.start(dataArgs(tmp), childEnv(tmp));
    ::umask(before);
    QVERIFY(started);
    HttpClient http;
    const HttpResponse agent =
        http.post(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents")),
                  QJsonObject{{QStringLiteral("name"), QStringLiteral("a")},
                              {QStringLiteral("cwd"), tmp.path()}});
    QCOMPARE(agent.status, 201);
    const HttpResponse run = http.post(
        flotilla::test::localUrl(svc.port(), QStringLiteral("/api/exec")),
        QJsonObject{{QStringLiteral("agentId"), agent.object().value(QStringLiteral("id"))},
                    {QStringLiteral("command"), QStringLiteral("umask; touch made.txt")}});
    QCOMPARE(run.status, 200);
    QCOMPARE(run.object().value(QStringLiteral("output")).toString().trimmed(),
             QStringLiteral("0027"));
    QCOMPARE(QFile(tmp.path() + QStringLiteral("/made.txt")).permissions() &
                 (QFile::ReadGroup | QFile::ReadOther),
             QFile::ReadGroup);
    // flotillad's own files stay private.
    QCOMPARE(QFile(tmp.path() + QStringLiteral("/data/flotilla.db")).permissions() &
                 (QFile::ReadGroup | QFile::ReadOther),
             QFile::Permissions());
    QVERIFY(svc.terminate());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
