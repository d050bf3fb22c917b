// Durability of the real flotillad binary: clean restarts, SIGKILL at random moments while writes
// are in flight, damaged or too-new state files, file modes and the single-instance lock.

#include "support/HttpClient.h"
#include "support/ServiceProcess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

#include <sys/stat.h>

using flotilla::test::HttpClient;
using flotilla::test::HttpResponse;
using flotilla::test::ServiceProcess;

namespace {

QProcessEnvironment childEnv(const QTemporaryDir &tmp) {
    return flotilla::test::hermeticEnv(tmp.path());
}

QJsonObject agentBody(const QString &name, const QString &cwd) {
    return QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("cwd"), cwd}};
}

QStringList idsOf(const QJsonArray &agents) {
    QStringList ids;
    for (const QJsonValue &v : agents)
        ids << v.toObject().value(QLatin1String("id")).toString();
    return ids;
}

QStringList corruptFiles(const QString &dataDir, const QString &base) {
    return QDir(dataDir).entryList({base + QStringLiteral(".corrupt-*")},
                                   QDir::Files | QDir::Hidden);
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

mode_t modeOf(const QString &path) {
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return mode_t(-1);
    return st.st_mode & 07777;
}

} // namespace

class TestDurability : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void restartKeepsState();
    void crashConsistency();
    void corruptDatabaseIsSetAside();
    void corruptPromptIsSetAside();
    void newerSchemaIsRefused();
    void fileModesArePrivate();
    void secondInstanceIsRefused();
};

void TestDurability::restartKeepsState() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    const QStringList args{QStringLiteral("--data-dir"), data};
    HttpClient http;

    QStringList ids;
    QString notificationId;
    {
        ServiceProcess svc;
        QVERIFY2(svc.start(args, childEnv(tmp)), svc.stdErr().constData());
        for (int i = 0; i < 5; ++i) {
            const HttpResponse r =
                http.post(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents")),
                          agentBody(QStringLiteral("restart-%1").arg(i), tmp.path()));
            QCOMPARE(r.status, 201);
            ids << r.object().value(QLatin1String("id")).toString();
            QVERIFY(!ids.constLast().isEmpty());
        }
        HttpResponse r = http.patch(
            flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents/") + ids.at(2)),
            QJsonObject{{QStringLiteral("taskLabel"), QStringLiteral("kept")}});
        QCOMPARE(r.status, 200);
        r = http.post(flotilla::test::localUrl(
                          svc.port(), QStringLiteral("/api/agents/system-settings/prompt")),
                      QJsonObject{{QStringLiteral("prompt"), QStringLiteral("be brief")}});
        QCOMPARE(r.status, 200);
        r = http.post(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/notify")),
                      QJsonObject{{QStringLiteral("agentId"), ids.at(1)},
                                  {QStringLiteral("title"), QStringLiteral("done")},
                                  {QStringLiteral("message"), QStringLiteral("all green")}});
        QCOMPARE(r.status, 201);
        notificationId = r.object()
                             .value(QLatin1String("notification"))
                             .toObject()
                             .value(QLatin1String("id"))
                             .toString();
        QVERIFY(!notificationId.isEmpty());

        QVERIFY(svc.terminate());
        QCOMPARE(svc.exitStatus(), QProcess::NormalExit);
        QCOMPARE(svc.exitCode(), 0);
        const QByteArray err = svc.stdErr();
        QVERIFY2(!err.contains("Segmentation") && !err.contains("ASSERT"), err.constData());
    }

    ServiceProcess svc;
    QVERIFY2(svc.start(args, childEnv(tmp)), svc.stdErr().constData());
    const HttpResponse agents =
        http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents")));
    QCOMPARE(agents.status, 200);
    QCOMPARE(idsOf(agents.array()), ids);
    QCOMPARE(agents.array().at(2).toObject().value(QLatin1String("taskLabel")).toString(),
             QStringLiteral("kept"));

    const HttpResponse prompt = http.get(
        flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents/system-settings/prompt")));
    QCOMPARE(prompt.status, 200);
    QCOMPARE(prompt.object().value(QLatin1String("prompt")).toString(), QStringLiteral("be brief"));

    const HttpResponse notes =
        http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/notifications")));
    QCOMPARE(notes.status, 200);
    QCOMPARE(notes.array().size(), 1);
    const QJsonObject n = notes.array().at(0).toObject();
    QCOMPARE(n.value(QLatin1String("id")).toString(), notificationId);
    QCOMPARE(n.value(QLatin1String("agentId")).toString(), ids.at(1));
    QCOMPARE(n.value(QLatin1String("title")).toString(), QStringLiteral("done"));
    QCOMPARE(n.value(QLatin1String("message")).toString(), QStringLiteral("all green"));
    QVERIFY(svc.terminate());
    QCOMPARE(svc.exitCode(), 0);
}

void TestDurability::crashConsistency() {
    constexpr int kRounds = 50;
    constexpr int kInFlight = 6;
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    const QStringList args{QStringLiteral("--data-dir"), data};
    const QByteArray cwd = QJsonDocument(QJsonObject{{QStringLiteral("cwd"), tmp.path()}}).toJson();

    QSet<QString> acknowledged;
    int sent = 0;
    int failedOnKill = 0;
    QStringList unexpected; // answers that are neither 201 nor a dropped connection
    QElapsedTimer clock;
    clock.start();

    for (int round = 0; round < kRounds; ++round) {
        ServiceProcess svc;
        QVERIFY2(
            svc.start(args, childEnv(tmp)),
            qPrintable(
                QStringLiteral("round %1: %2").arg(round).arg(QString::fromUtf8(svc.stdErr()))));
        const QUrl url = flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents"));
        QNetworkAccessManager nam;
        int inFlight = 0;
        bool stopping = false;
        int seq = 0;

        std::function<void()> fire = [&] {
            QNetworkRequest req(url);
            req.setHeader(QNetworkRequest::ContentTypeHeader,
                          QByteArrayLiteral("application/json"));
            const QString name = QStringLiteral("crash-%1-%2").arg(round).arg(seq++);
            QJsonObject body = QJsonDocument::fromJson(cwd).object();
            body.insert(QStringLiteral("name"), name);
            QNetworkReply *reply =
                nam.post(req, QJsonDocument(body).toJson(QJsonDocument::Compact));
            ++inFlight;
            ++sent;
            connect(reply, &QNetworkReply::finished, this, [&, reply, name] {
                --inFlight;
                reply->deleteLater();
                const int status =
                    reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                const QByteArray answer = reply->readAll();
                if (status == 201) {
                    const QJsonObject agent = QJsonDocument::fromJson(answer).object();
                    const QString id = agent.value(QLatin1String("id")).toString();
                    if (id.isEmpty() || agent.value(QLatin1String("name")).toString() != name)
                        unexpected << QStringLiteral("bad 201 body: ") + QString::fromUtf8(answer);
                    else
                        acknowledged.insert(id);
                } else if (status != 0) {
                    unexpected << QStringLiteral("%1 %2").arg(status).arg(
                        QString::fromUtf8(answer));
                } else {
                    ++failedOnKill;
                }
                if (!stopping)
                    fire();
            });
        };
        for (int i = 0; i < kInFlight; ++i)
            fire();

        // The point is a random moment: a short random wait while the requests keep flowing.
        QTest::qWait(int(QRandomGenerator::global()->bounded(20, 201)));
        stopping = true;
        QVERIFY(inFlight > 0);
        svc.kill();
        QCOMPARE(svc.exitStatus(), QProcess::CrashExit);
        QVERIFY2(
            QTest::qWaitFor([&] { return inFlight == 0; }, 10000),
            qPrintable(
                QStringLiteral("round %1: %2 requests never finished").arg(round).arg(inFlight)));
    }
    const qint64 crashMs = clock.elapsed();
    QVERIFY2(unexpected.isEmpty(), qPrintable(unexpected.mid(0, 5).join(QLatin1Char('\n'))));
    QVERIFY(!acknowledged.isEmpty());

    ServiceProcess svc;
    QVERIFY2(svc.start(args, childEnv(tmp)), svc.stdErr().constData());
    HttpClient http;
    const HttpResponse list =
        http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents")));
    QCOMPARE(list.status, 200);
    const QStringList ids = idsOf(list.array());
    const QSet<QString> present(ids.cbegin(), ids.cend());
    QCOMPARE(present.size(), ids.size()); // no duplicates
    QStringList lost;
    for (const QString &id : std::as_const(acknowledged)) {
        if (!present.contains(id))
            lost << id;
    }
    QVERIFY2(lost.isEmpty(), qPrintable(QStringLiteral("%1 acknowledged agent(s) lost: %2")
                                            .arg(lost.size())
                                            .arg(lost.mid(0, 3).join(QLatin1Char(' ')))));
    QVERIFY(ids.size() >= acknowledged.size());

    const HttpResponse health =
        http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/health")));
    QCOMPARE(health.status, 200);
    QVERIFY2(health.object().value(QLatin1String("status")).toString() == QLatin1String("ok"),
             health.body.constData());
    QVERIFY(corruptFiles(data, QStringLiteral("flotilla.db")).isEmpty());
    QVERIFY(corruptFiles(data, QStringLiteral("system-prompt.json")).isEmpty());
    QVERIFY(svc.terminate());
    QCOMPARE(svc.exitCode(), 0);

    qInfo(
        "crash consistency: %d rounds, %d requests sent, %d acknowledged, %d dropped by the kill, "
        "%lld agents stored, %lld ms of rounds, %lld ms total",
        kRounds, sent, int(acknowledged.size()), failedOnKill, qlonglong(ids.size()), crashMs,
        qlonglong(clock.elapsed()));
}

void TestDurability::corruptDatabaseIsSetAside() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    QVERIFY(QDir().mkpath(data));
    QByteArray garbage;
    while (garbage.size() < 4096)
        garbage += "not a database ";
    garbage.truncate(4096);
    {
        QFile f(data + QStringLiteral("/flotilla.db"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(garbage), qint64(garbage.size()));
    }

    ServiceProcess svc;
    QVERIFY2(svc.start({QStringLiteral("--data-dir"), data}, childEnv(tmp)),
             svc.stdErr().constData());
    const QStringList aside = corruptFiles(data, QStringLiteral("flotilla.db"));
    QCOMPARE(aside.size(), 1);
    QVERIFY(aside.constFirst().startsWith(QLatin1String("flotilla.db.corrupt-")));
    {
        QFile f(data + QLatin1Char('/') + aside.constFirst());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), garbage);
    }

    HttpClient http;
    const HttpResponse health =
        http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/health")));
    QCOMPARE(health.status, 200);
    const QJsonObject h = health.object();
    QCOMPARE(h.value(QLatin1String("status")).toString(), QStringLiteral("degraded"));
    const QJsonArray warnings = h.value(QLatin1String("warnings")).toArray();
    QVERIFY2(!warnings.isEmpty(), health.body.constData());
    QVERIFY2(warnings.at(0).toString().contains(QLatin1String("flotilla.db")),
             health.body.constData());
    const QByteArray err = svc.stdErr();
    QVERIFY2(err.contains("flotilla.db") && err.contains(aside.constFirst().toUtf8()),
             err.constData());

    const HttpResponse created =
        http.post(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents")),
                  agentBody(QStringLiteral("after-corruption"), tmp.path()));
    QCOMPARE(created.status, 201);
    QCOMPARE(http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents")))
                 .array()
                 .size(),
             1);
    QVERIFY(svc.terminate());
    QCOMPARE(svc.exitCode(), 0);
}

void TestDurability::corruptPromptIsSetAside() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    const QString promptPath = data + QStringLiteral("/system-prompt.json");
    QVERIFY(QDir().mkpath(data));
    {
        QFile f(promptPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"prompt\": 12");
    }

    ServiceProcess svc;
    QVERIFY2(svc.start({QStringLiteral("--data-dir"), data}, childEnv(tmp)),
             svc.stdErr().constData());
    const QStringList aside = corruptFiles(data, QStringLiteral("system-prompt.json"));
    QCOMPARE(aside.size(), 1);
    QVERIFY(!QFile::exists(promptPath));
    QVERIFY(svc.stdErr().contains("system-prompt.json"));

    HttpClient http;
    const HttpResponse health =
        http.get(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/health")));
    QCOMPARE(health.object().value(QLatin1String("status")).toString(), QStringLiteral("degraded"));
    const QJsonArray warnings = health.object().value(QLatin1String("warnings")).toArray();
    QCOMPARE(warnings.size(), 1);
    QVERIFY(warnings.at(0).toString().contains(QLatin1String("system-prompt.json")));

    const QUrl url =
        flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents/system-settings/prompt"));
    HttpResponse r = http.get(url);
    QCOMPARE(r.status, 200);
    QCOMPARE(r.object().value(QLatin1String("prompt")).toString(), QString());
    r = http.post(url, QJsonObject{{QStringLiteral("prompt"), QStringLiteral("fresh start")}});
    QCOMPARE(r.status, 200);

    QFile f(promptPath);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    QCOMPARE(doc.object().value(QLatin1String("prompt")).toString(), QStringLiteral("fresh start"));
    QVERIFY(svc.terminate());
    QCOMPARE(svc.exitCode(), 0);
}

void TestDurability::newerSchemaIsRefused() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    const QString dbPath = data + QStringLiteral("/flotilla.db");
    const QStringList args{QStringLiteral("--data-dir"), data};
    {
        ServiceProcess svc;
        QVERIFY2(svc.start(args, childEnv(tmp)), svc.stdErr().constData());
        HttpClient http;
        QCOMPARE(http.post(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents")),
                           agentBody(QStringLiteral("schema"), tmp.path()))
                     .status,
                 201);
        QVERIFY(svc.terminate());
        QCOMPARE(svc.exitCode(), 0);
    }
    {
        const QString conn = QStringLiteral("tst_durability_schema");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), conn);
            db.setDatabaseName(dbPath);
            QVERIFY2(db.open(), qPrintable(db.lastError().text()));
            QSqlQuery q(db);
            QVERIFY2(q.exec(QStringLiteral("PRAGMA user_version=99")),
                     qPrintable(q.lastError().text()));
            q.finish();
            db.close();
        }
        QSqlDatabase::removeDatabase(conn);
    }
    QFile before(dbPath);
    QVERIFY(before.open(QIODevice::ReadOnly));
    const QByteArray bytes = before.readAll();
    before.close();

    ServiceProcess svc;
    QCOMPARE(svc.runToExit(args, childEnv(tmp)), 4);
    const QStringList lines = messageLines(svc.stdErr());
    QVERIFY2(lines.size() == 1, svc.stdErr().constData());
    QVERIFY2(lines.constFirst().contains(QLatin1String("schema version 99")),
             svc.stdErr().constData());

    QFile after(dbPath);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.size(), qint64(bytes.size()));
    QVERIFY(after.readAll() == bytes);
    QVERIFY(corruptFiles(data, QStringLiteral("flotilla.db")).isEmpty());
}

void TestDurability::fileModesArePrivate() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    ServiceProcess svc;
    QVERIFY2(svc.start({QStringLiteral("--data-dir"), data}, childEnv(tmp)),
             svc.stdErr().constData());
    HttpClient http;
    QCOMPARE(http.post(flotilla::test::localUrl(svc.port(), QStringLiteral("/api/agents")),
                       agentBody(QStringLiteral("modes"), tmp.path()))
                 .status,
             201);
    QCOMPARE(http.post(flotilla::test::localUrl(
                           svc.port(), QStringLiteral("/api/agents/system-settings/prompt")),
                       QJsonObject{{QStringLiteral("prompt"), QStringLiteral("private")}})
                 .status,
             200);
    // While running, the write-ahead log and its index hold state too.
    for (const char *side : {"/flotilla.db-wal", "/flotilla.db-shm"}) {
        const QString path = data + QLatin1String(side);
        if (QFile::exists(path))
            QCOMPARE(modeOf(path) & 077, mode_t(0));
    }
    QVERIFY(svc.terminate());
    QCOMPARE(svc.exitCode(), 0);

    QCOMPARE(modeOf(data), mode_t(0700));
    QCOMPARE(modeOf(data + QStringLiteral("/flotilla.db")), mode_t(0600));
    QCOMPARE(modeOf(data + QStringLiteral("/system-prompt.json")), mode_t(0600));
}

void TestDurability::secondInstanceIsRefused() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString data = tmp.path() + QStringLiteral("/data");
    const QStringList args{QStringLiteral("--data-dir"), data};
    ServiceProcess first;
    QVERIFY2(first.start(args, childEnv(tmp)), first.stdErr().constData());

    ServiceProcess second;
    QCOMPARE(second.runToExit(args + QStringList{QStringLiteral("--port"), QStringLiteral("0")},
                              childEnv(tmp)),
             4);
    const QStringList lines = messageLines(second.stdErr());
    QVERIFY2(lines.size() == 1 && lines.constFirst().contains(QLatin1String("in use")),
             second.stdErr().constData());
    QVERIFY2(lines.constFirst().contains(QString::number(first.pid())),
             second.stdErr().constData());

    // The first one is unharmed.
    HttpClient http;
    QCOMPARE(http.get(flotilla::test::localUrl(first.port(), QStringLiteral("/api/health"))).status,
             200);
    QVERIFY(first.terminate());
    QCOMPARE(first.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestDurability)
#include "tst_durability.moc"
