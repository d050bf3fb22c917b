// Secrets against the real service in-process: CRUD, refusals, the 0600 file, a damaged file set
// aside, {{NAME}} substitution, and masking of values in REST output, exec_task_output (also when
// a value is split across two reads), exec_task_started and logs.

#include "exec/ExecLog.h"
#include "support/ExecFixture.h"

#include <QLoggingCategory>
#include <QMutex>
#include <QRegularExpression>

#include <sys/stat.h>

using namespace flotilla;
using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, QLatin1String key) {
    return o.value(key).toString();
}

// Everything logged while a LogCapture lives.
QStringList g_logged;
QMutex g_logMutex;
QtMessageHandler g_previousHandler = nullptr;

void captureMessage(QtMsgType type, const QMessageLogContext &ctx, const QString &msg) {
    {
        QMutexLocker lock(&g_logMutex);
        g_logged.append(QString::fromUtf8(ctx.category ? ctx.category : "") + u' ' + msg);
    }
    if (g_previousHandler)
        g_previousHandler(type, ctx, msg);
}

// Enables flotilla.exec down to debug whatever QT_LOGGING_RULES says (the environment's rules
// would win over setFilterRules).
struct LogCapture {
    LogCapture() {
        g_logged.clear();
        category().setEnabled(QtDebugMsg, true);
        category().setEnabled(QtInfoMsg, true);
        g_previousHandler = qInstallMessageHandler(captureMessage);
    }
    ~LogCapture() {
        qInstallMessageHandler(g_previousHandler);
        category().setEnabled(QtDebugMsg, m_debug);
        category().setEnabled(QtInfoMsg, m_info);
    }
    // Q_LOGGING_CATEGORY hands out a const reference to what is a mutable static object.
    static QLoggingCategory &category() { return const_cast<QLoggingCategory &>(lcExec()); }
    const bool m_debug = lcExec().isDebugEnabled();
    const bool m_info = lcExec().isInfoEnabled();
    QStringList lines() const {
        QMutexLocker lock(&g_logMutex);
        return g_logged;
    }
};

} // namespace

class TestSecrets final : public QObject {
    Q_OBJECT

    ExecFixture f;

    QString secretsFile() const { return f.dataDir() + QStringLiteral("/secrets.json"); }

private Q_SLOTS:
    void init() { QVERIFY2(f.start(), qPrintable(f.svc->lastError())); }
    void cleanup() { f.reset(); }

    void crudNeverShowsValues() {
        HttpResponse r = f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("s3cr3t-one"));
        QCOMPARE(r.status, 201);
        QCOMPARE(str(r.object(), QLatin1String("name")), QStringLiteral("TOKEN"));
        const qint64 created = r.object().value(QStringLiteral("createdAt")).toInteger();
        QVERIFY(created > 1'600'000'000'000);
        QCOMPARE(r.object().value(QStringLiteral("updatedAt")).toInteger(), created);
        QVERIFY(!r.body.contains("s3cr3t"));

        r = f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("s3cr3t-two"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("createdAt")).toInteger(), created);
        QVERIFY(r.object().value(QStringLiteral("updatedAt")).toInteger() >= created);
        QCOMPARE(f.putSecret(QStringLiteral("B_KEY"), QStringLiteral("s3cr3t-b")).status, 201);
        QCOMPARE(f.putSecret(QStringLiteral("A1_"), QStringLiteral("s3cr3t-a")).status, 201);

        r = f.get(QStringLiteral("/api/secrets"));
        QCOMPARE(r.status, 200);
        QVERIFY(!r.body.contains("s3cr3t"));
        const QJsonArray list = r.object().value(xk::Secrets).toArray();
        QStringList names;
        for (const QJsonValue &v : list) {
            names.append(str(v.toObject(), QLatin1String("name")));
            QCOMPARE(v.toObject().keys(),
                     QStringList({QStringLiteral("createdAt"), QStringLiteral("name"),
                                  QStringLiteral("updatedAt")}));
        }
        QCOMPARE(names, QStringList({QStringLiteral("A1_"), QStringLiteral("B_KEY"),
                                     QStringLiteral("TOKEN")}));

        QCOMPARE(f.del(QStringLiteral("/api/secrets/B_KEY")).status, 204);
        QCOMPARE(f.get(QStringLiteral("/api/secrets")).object().value(xk::Secrets).toArray().size(),
                 2);
        QCOMPARE(f.del(QStringLiteral("/api/secrets/B_KEY")).status, 404);
    }

    void storedPrivatelyAndKeptAcrossRestarts() {
        QCOMPARE(f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("kept-value")).status, 201);
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(secretsFile()).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
        QVERIFY(f.restart());
        QCOMPARE(
            str(f.get(QStringLiteral("/api/secrets")).object().value(xk::Secrets)[0].toObject(),
                QLatin1String("name")),
            QStringLiteral("TOKEN"));
        const HttpResponse r = f.exec(QStringLiteral("[ '{{TOKEN}}' = kept-value ] && echo same"));
        QCOMPARE(str(r.object(), xk::Output), QStringLiteral("same\n"));
        // A deletion is written through too.
        QCOMPARE(f.del(QStringLiteral("/api/secrets/TOKEN")).status, 204);
        QVERIFY(f.restart());
        QCOMPARE(f.get(QStringLiteral("/api/secrets")).object().value(xk::Secrets),
                 QJsonValue(QJsonArray()));
    }

    void damagedFileIsSetAside_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("not json") << QByteArray("{\"secrets\": {");
        QTest::newRow("no secrets object") << QByteArray("{\"version\": 1}");
        QTest::newRow("bad name") << QByteArray("{\"secrets\": {\"lower\": {\"value\": \"v\"}}}");
        QTest::newRow("value not string") << QByteArray("{\"secrets\": {\"A\": {\"value\": 5}}}");
        QTest::newRow("newer format") << QByteArray("{\"version\": 99, \"secrets\": {}}");
    }

    void damagedFileIsSetAside() {
        QFETCH(QByteArray, content);
        QCOMPARE(f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("v")).status, 201);
        f.ws.reset();
        f.svc->stop();
        QFile file(secretsFile());
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(content);
        file.close();
        QTest::ignoreMessage(QtCriticalMsg, QRegularExpression(QStringLiteral(
                                                "^secrets\\.json was unreadable .*; it "
                                                "was moved to secrets\\.json\\."
                                                "corrupt-.* and the service starts "
                                                "with no secrets$")));
        QVERIFY(f.restart()); // the service starts anyway, with no secrets
        QCOMPARE(f.get(QStringLiteral("/api/secrets")).object().value(xk::Secrets),
                 QJsonValue(QJsonArray()));
        QVERIFY(!QFile::exists(secretsFile()));
        const QStringList aside =
            QDir(f.dataDir()).entryList({QStringLiteral("secrets.json.corrupt-*")});
        QCOMPARE(aside.size(), 1);
        QCOMPARE(f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("v")).status, 201);
    }

    void refusals_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QByteArray ok("{\"value\":\"v\"}");
        for (const char *bad : {"token", "1ABC", "A-B", "A.B", "Ab"})
            QTest::newRow(qPrintable(QStringLiteral("PUT name %1").arg(QLatin1String(bad))))
                << QByteArray("PUT") << QString::fromLatin1(bad) << ok << 422 << "invalid_value";
        QTest::newRow("PUT name too long")
            << QByteArray("PUT") << QString(129, QLatin1Char('A')) << ok << 422 << "invalid_value";
        QTest::newRow("PUT not json")
            << QByteArray("PUT") << "TOKEN" << QByteArray("{value") << 400 << "bad_json";
        QTest::newRow("PUT no body")
            << QByteArray("PUT") << "TOKEN" << QByteArray() << 400 << "bad_json";
        QTest::newRow("PUT no value")
            << QByteArray("PUT") << "TOKEN" << QByteArray("{}") << 400 << "missing_field";
        QTest::newRow("PUT value number")
            << QByteArray("PUT") << "TOKEN" << QByteArray("{\"value\":5}") << 400 << "wrong_type";
        QTest::newRow("PUT value null") << QByteArray("PUT") << "TOKEN"
                                        << QByteArray("{\"value\":null}") << 400 << "wrong_type";
        QTest::newRow("PUT value empty")
            << QByteArray("PUT") << "TOKEN" << QByteArray("{\"value\":\"\"}") << 422
            << "invalid_value";
        QTest::newRow("PUT value NUL")
            << QByteArray("PUT") << "TOKEN" << QByteArray("{\"value\":\"a\\u0000b\"}") << 422
            << "invalid_value";
        QTest::newRow("PUT value too long")
            << QByteArray("PUT") << "TOKEN"
            << QByteArray("{\"value\":\"" + QByteArray(16 * 1024 + 1, 'v') + "\"}") << 422
            << "invalid_value";
        QTest::newRow("PUT unknown field")
            << QByteArray("PUT") << "TOKEN" << QByteArray("{\"value\":\"v\",\"note\":\"x\"}") << 422
            << "unknown_field";
        QTest::newRow("DELETE unknown")
            << QByteArray("DELETE") << "NOPE" << QByteArray() << 404 << "not_found";
        QTest::newRow("DELETE bad name")
            << QByteArray("DELETE") << "nope" << QByteArray() << 422 << "invalid_value";
        QTest::newRow("POST") << QByteArray("POST") << "TOKEN" << ok << 405 << "method_not_allowed";
    }

    void refusals() {
        QFETCH(QByteArray, method);
        QFETCH(QString, name);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        const HttpResponse r =
            f.http->send(method, f.url(QStringLiteral("/api/secrets/") + name), body);
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), QLatin1String("code")), code);
        QCOMPARE(f.get(QStringLiteral("/api/secrets")).object().value(xk::Secrets),
                 QJsonValue(QJsonArray()));
    }

    void countIsLimited() {
        for (int i = 0; i < 256; ++i)
            QCOMPARE(f.putSecret(QStringLiteral("S%1").arg(i), QStringLiteral("v%1").arg(i)).status,
                     201);
        const HttpResponse r = f.putSecret(QStringLiteral("ONE_MORE"), QStringLiteral("v"));
        QCOMPARE(r.status, 409);
        QCOMPARE(str(r.object(), QLatin1String("code")), QStringLiteral("too_many_secrets"));
        QCOMPARE(f.putSecret(QStringLiteral("S0"), QStringLiteral("replaced")).status, 200);
    }

    void substitutesAndMasks() {
        QCOMPARE(f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("ABCD")).status, 201);
        // The literal value in the command is also masked wherever the command is shown.
        const QString command = QStringLiteral("x='{{TOKEN}}'; echo \"$x\"; echo \"$x\" >&2; echo "
                                               "${#x}; [ \"$x\" = ABCD ] && echo same");
        const HttpResponse r = f.exec(command);
        QCOMPARE(r.status, 200);
        const QString out = str(r.object(), xk::Output);
        QVERIFY2(!out.contains(QStringLiteral("ABCD")), qPrintable(out));
        QCOMPARE(out.count(QStringLiteral("***\n")), 2);
        // stdout and stderr interleave as they arrived; each stream's order is checked below.
        QStringList lines = out.split(u'\n', Qt::SkipEmptyParts);
        lines.sort();
        QCOMPARE(lines, QStringList({QStringLiteral("***"), QStringLiteral("***"),
                                     QStringLiteral("4"), QStringLiteral("same")}));

        const QString id = str(r.object(), xk::TaskId);
        QVERIFY(f.waitCompleted(id));
        QCOMPARE(f.streamed(id, 0), QStringLiteral("***\n4\nsame\n"));
        QCOMPARE(f.streamed(id, 1), QStringLiteral("***\n"));
        QCOMPARE(str(f.events(id, xm::ExecTaskStarted).first(), xk::Command),
                 QStringLiteral("x='{{TOKEN}}'; echo \"$x\"; echo \"$x\" >&2; echo ${#x}; [ \"$x\" "
                                "= *** ] && echo same"));
    }

    void masksAValueSplitAcrossReads() {
        QCOMPARE(f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("ABCD")).status, 201);
        // Every known value is masked, used by the command or not. "AB" waits for the next read;
        // "AB" followed by something else is shown; a prefix at the very end is shown.
        const HttpResponse r = f.exec(QStringLiteral(
            "printf 'AB'; sleep 0.2; printf 'CD\\n'; printf 'AB'; sleep 0.2; printf 'XY\\n'; "
            "printf 'zzAB'"));
        const QString expected = QStringLiteral("***\nABXY\nzzAB");
        QCOMPARE(str(r.object(), xk::Output), expected);
        const QString id = str(r.object(), xk::TaskId);
        QVERIFY(f.waitCompleted(id));
        QCOMPARE(f.streamed(id), expected);
        QVERIFY(f.events(id, xm::ExecTaskOutput).size() >= 2); // really two reads apart
    }

    void overlappingValuesAreMaskedWhole() {
        QCOMPARE(f.putSecret(QStringLiteral("LONG"), QStringLiteral("ABCD")).status, 201);
        QCOMPARE(f.putSecret(QStringLiteral("SHORT"), QStringLiteral("AB")).status, 201);
        QCOMPARE(f.putSecret(QStringLiteral("OTHER"), QStringLiteral("CDEF")).status, 201);
        // "AB" could be SHORT or the start of LONG: it waits; ABCD and CDEF overlap: one mask.
        const HttpResponse r =
            f.exec(QStringLiteral("printf 'AB'; sleep 0.2; printf 'CDEF\\n'; printf 'ABX\\n'"));
        const QString expected = QStringLiteral("***\n***X\n");
        QCOMPARE(str(r.object(), xk::Output), expected);
        const QString id = str(r.object(), xk::TaskId);
        QVERIFY(f.waitCompleted(id));
        QCOMPARE(f.streamed(id), expected);
    }

    void onlyUppercasePlaceholdersAreSecrets() {
        QCOMPARE(f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("tok")).status, 201);
        HttpResponse r = f.exec(QStringLiteral("echo '{{lower}} {{ TOKEN }} {{.Field}} {TOKEN}'"));
        QCOMPARE(r.status, 200);
        QCOMPARE(str(r.object(), xk::Output),
                 QStringLiteral("{{lower}} {{ TOKEN }} {{.Field}} {TOKEN}\n"));
        r = f.exec(QStringLiteral("touch ran; echo {{NOPE}} {{TOKEN}} {{ALSO_NOPE}} {{NOPE}}"));
        QCOMPARE(r.status, 422);
        QCOMPARE(str(r.object(), QLatin1String("code")), QStringLiteral("unknown_secret"));
        QVERIFY(
            str(r.object(), QLatin1String("error")).contains(QStringLiteral("NOPE, ALSO_NOPE")));
        QVERIFY(!QFile::exists(f.svc->workDir() + QStringLiteral("/ran")));
        // A value is substituted once: placeholders inside values stay text.
        QCOMPARE(f.putSecret(QStringLiteral("OUTER"), QStringLiteral("x{{TOKEN}}y")).status, 201);
        r = f.exec(QStringLiteral("v='{{OUTER}}'; echo ${#v}"));
        QCOMPARE(str(r.object(), xk::Output), QStringLiteral("11\n"));
    }

    void valuesStayOutOfTheShellsArgv() {
        QCOMPARE(f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("ARGV_SECRET")).status, 201);
        auto pending = f.execAsync(f.body(QStringLiteral(": {{TOKEN}}; echo $$; sleep 60")));
        const QString id = f.startedTask();
        QVERIFY(QTest::qWaitFor([&] { return f.streamed(id).endsWith(u'\n'); }, 10000));
        const qint64 pid = f.streamed(id).trimmed().toLongLong();
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        QVERIFY(cmdline.open(QIODevice::ReadOnly));
        const QByteArray args = cmdline.readAll();
        QVERIFY(args.contains("bash"));
        QVERIFY2(!args.contains("ARGV_SECRET"), args.constData());
        QCOMPARE(f.del(QStringLiteral("/api/exec/tasks/") + id).status, 204);
        QCOMPARE(pending->wait().status, 200);
        // The command's own environment does not carry it either.
        const HttpResponse r = f.exec(QStringLiteral("env | grep -c FLOTILLA_EXEC_COMMAND"));
        QCOMPARE(str(r.object(), xk::Output), QStringLiteral("0\n"));
    }

    void logsNeverShowValues() {
        LogCapture capture;
        QCOMPARE(f.putSecret(QStringLiteral("TOKEN"), QStringLiteral("LOGGED_VALUE")).status, 201);
        const HttpResponse r = f.exec(QStringLiteral("echo {{TOKEN}} LOGGED_VALUE"));
        QCOMPARE(str(r.object(), xk::Output), QStringLiteral("*** ***\n"));
        const QStringList lines = capture.lines();
        const QString all = lines.join(u'\n');
        QVERIFY2(all.contains(QStringLiteral("echo {{TOKEN}} ***")), qPrintable(all));
        QVERIFY2(!all.contains(QStringLiteral("LOGGED_VALUE")), qPrintable(all));
    }
};

QTEST_GUILESS_MAIN(TestSecrets)
#include "tst_secrets.moc"
