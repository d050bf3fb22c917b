// Crash consistency of the real flotillad: 200 rounds (100 under FLOTILLA_SANITIZE_RUN=1, 1000
// with longer storms under FLOTILLA_LONG_TESTS=1, or FLOTILLA_CRASH_ROUNDS) of SIGKILL in the
// middle of a storm of agent creations, PATCHes, notifications, secret writes and system-prompt
// writes over several concurrent connections. After every restart each acknowledged write (2xx
// received before the kill) must be there with its acknowledged value; a write that was in flight
// at the kill may or may not have been applied. At the end no file may be damaged: health is
// "ok", SQLite's integrity_check passes, secrets.json and system-prompt.json parse, nothing was
// set aside.

#include "support/HttpClient.h"
#include "support/ReliabilityKit.h"
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
#include <map>

using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// A value written by sequential writes to one key (an agent's taskLabel, a secret, the prompt):
// one write in flight per key at a time. After a kill, the stored value must be the last
// acknowledged one, or one of the writes sent after it whose answer never came.
struct Register {
    QString acked;       // empty: nothing acknowledged yet
    QSet<QString> maybe; // sent after `acked`, outcome unknown
    bool inFlight = false;
    bool everAcked = false;

    bool allows(const QString &stored) const {
        return (everAcked && stored == acked) || maybe.contains(stored) ||
               (!everAcked && stored.isEmpty());
    }
};

QJsonObject readJsonFile(const QString &path, bool *ok) {
    QFile f(path);
    *ok = true;
    if (!f.exists())
        return {};
    QJsonParseError err{};
    const QJsonDocument doc =
        f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll(), &err) : QJsonDocument();
    *ok = err.error == QJsonParseError::NoError && doc.isObject();
    return doc.object();
}

} // namespace

class TestCrashStorm final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sigkillDuringWriteStorm();

private:
    // Checks the state of a stopped or freshly started service against what was acknowledged.
    void verifyFiles(int round);
    void verifyService(int round);
    void fire(int round);

    QString m_data;
    QString m_cwd;
    quint16 m_port = 0;
    QNetworkAccessManager *m_nam = nullptr;
    bool m_stopping = false;
    int m_inFlight = 0;
    int m_seq = 0;

    QStringList m_agents; // acknowledged creations, in order
    QSet<QString> m_agentSet;
    // std::map: the in-flight requests hold pointers to entries, which must not move.
    std::map<QString, Register> m_labels;  // agent id -> taskLabel
    std::map<QString, Register> m_secrets; // name -> value
    Register m_prompt;
    QSet<QString> m_notesUnchecked; // acknowledged since the last check
    QStringList m_problems;
    // Tallies.
    int m_sent = 0;
    int m_acked = 0;
    int m_dropped = 0;
    int m_ackedByKind[5] = {};
};

void TestCrashStorm::fire(int round) {
    auto *rng = QRandomGenerator::global();
    const int seq = m_seq++;
    QNetworkRequest req;
    req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QByteArray method = "POST";
    QString path;
    QJsonObject body;
    int kind = int(rng->bounded(5));
    if (m_agents.isEmpty())
        kind = 0;
    Register *reg = nullptr;
    QString value = QStringLiteral("r%1-%2").arg(round).arg(seq);

    if (kind == 1) { // PATCH a known agent's taskLabel (one in flight per agent)
        const QString id = m_agents.at(int(rng->bounded(qsizetype(m_agents.size()))));
        reg = &m_labels[id];
        if (reg->inFlight)
            kind = 0;
        else {
            method = "PATCH";
            path = QStringLiteral("/api/agents/") + id;
            body.insert(QStringLiteral("taskLabel"), value);
        }
    } else if (kind == 3) { // PUT one of 24 secrets
        const QString name = QStringLiteral("STORM_%1").arg(rng->bounded(24));
        reg = &m_secrets[name];
        if (reg->inFlight)
            kind = 0;
        else {
            method = "PUT";
            path = QStringLiteral("/api/secrets/") + name;
            body.insert(QStringLiteral("value"), value);
        }
    } else if (kind == 4) { // the global system prompt
        reg = &m_prompt;
        if (reg->inFlight)
            kind = 2;
        else {
            path = QStringLiteral("/api/agents/system-settings/prompt");
            body.insert(QStringLiteral("prompt"), value);
        }
    }
    if (kind == 2) { // a notification from a known agent
        path = QStringLiteral("/api/notify");
        body = {
            {QStringLiteral("agentId"), m_agents.at(int(rng->bounded(qsizetype(m_agents.size()))))},
            {QStringLiteral("title"), QStringLiteral("storm")},
            {QStringLiteral("message"), value}};
        reg = nullptr;
    }
    if (kind == 0) {
        method = "POST";
        path = QStringLiteral("/api/agents");
        body = {{QStringLiteral("name"), QString(QStringLiteral("storm-") + value)},
                {QStringLiteral("cwd"), m_cwd}};
        reg = nullptr;
    }
    if (reg) {
        reg->inFlight = true;
        reg->maybe.insert(value);
    }
    req.setUrl(localUrl(m_port, path));
    QNetworkReply *reply =
        m_nam->sendCustomRequest(req, method, QJsonDocument(body).toJson(QJsonDocument::Compact));
    ++m_inFlight;
    ++m_sent;
    connect(reply, &QNetworkReply::finished, this, [this, reply, reg, kind, value, round, body] {
        --m_inFlight;
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray answer = reply->readAll();
        if (reg)
            reg->inFlight = false;
        if (status == 0) {
            ++m_dropped; // cut by the kill: may or may not have been applied
        } else if (status >= 200 && status < 300) {
            ++m_acked;
            ++m_ackedByKind[kind];
            const QJsonObject o = QJsonDocument::fromJson(answer).object();
            if (kind == 0) {
                const QString id = str(o, "id");
                if (id.isEmpty() || str(o, "name") != body.value(QLatin1String("name")).toString())
                    m_problems << QStringLiteral("bad 201: ") + QString::fromUtf8(answer);
                m_agents << id;
                m_agentSet.insert(id);
            } else if (kind == 2) {
                m_notesUnchecked.insert(
                    str(o.value(QLatin1String("notification")).toObject(), "id"));
            } else if (reg) {
                reg->acked = value;
                reg->everAcked = true;
                reg->maybe.clear();
            }
        } else {
            m_problems << QStringLiteral("round %1: %2 %3")
                              .arg(round)
                              .arg(status)
                              .arg(QString::fromUtf8(answer));
        }
        if (!m_stopping)
            fire(round);
    });
}

void TestCrashStorm::verifyFiles(int round) {
    bool ok = false;
    const QJsonObject secrets = readJsonFile(m_data + QStringLiteral("/secrets.json"), &ok);
    if (!ok)
        m_problems << QStringLiteral("round %1: secrets.json does not parse").arg(round);
    const QJsonObject values = secrets.value(QLatin1String("secrets")).toObject();
    for (const auto &[name, reg] : m_secrets) {
        const QString stored =
            values.value(name).toObject().value(QLatin1String("value")).toString();
        if (!reg.allows(stored))
            m_problems << QStringLiteral("round %1: secret %2 is '%3', acknowledged '%4'")
                              .arg(round)
                              .arg(name, stored, reg.acked);
    }
    const QJsonObject prompt = readJsonFile(m_data + QStringLiteral("/system-prompt.json"), &ok);
    if (!ok)
        m_problems << QStringLiteral("round %1: system-prompt.json does not parse").arg(round);
    if (!m_prompt.allows(str(prompt, "prompt")))
        m_problems << QStringLiteral("round %1: prompt is '%2', acknowledged '%3'")
                          .arg(round)
                          .arg(str(prompt, "prompt"), m_prompt.acked);
}

void TestCrashStorm::verifyService(int round) {
    HttpClient http;
    const HttpResponse list = http.get(localUrl(m_port, QStringLiteral("/api/agents")));
    QSet<QString> present;
    for (const QJsonValue &v : list.array()) {
        const QJsonObject a = v.toObject();
        present.insert(str(a, "id"));
        const auto reg = m_labels.find(str(a, "id"));
        if (reg != m_labels.end() && !reg->second.allows(str(a, "taskLabel")))
            m_problems << QStringLiteral("round %1: agent %2 taskLabel '%3', acknowledged '%4'")
                              .arg(round)
                              .arg(str(a, "id"), str(a, "taskLabel"), reg->second.acked);
    }
    if (present.size() != list.array().size())
        m_problems << QStringLiteral("round %1: duplicate agent ids").arg(round);
    for (const QString &id : std::as_const(m_agents)) {
        if (!present.contains(id))
            m_problems << QStringLiteral("round %1: acknowledged agent %2 lost").arg(round).arg(id);
    }
    // Fewer than 1000 notifications are acknowledged between two checks: none was pruned yet.
    const HttpResponse notes =
        http.get(localUrl(m_port, QStringLiteral("/api/notifications?limit=1000")));
    QSet<QString> noteIds;
    for (const QJsonValue &v : notes.array())
        noteIds.insert(str(v.toObject(), "id"));
    for (const QString &id : std::as_const(m_notesUnchecked)) {
        if (!noteIds.contains(id))
            m_problems
                << QStringLiteral("round %1: acknowledged notification %2 lost").arg(round).arg(id);
    }
    m_notesUnchecked.clear();
    const HttpResponse health = http.get(localUrl(m_port, QStringLiteral("/api/health")));
    if (health.status != 200 || str(health.object(), "status") != QLatin1String("ok"))
        m_problems
            << QStringLiteral("round %1: health %2").arg(round).arg(QString::fromUtf8(health.body));
}

void TestCrashStorm::sigkillDuringWriteStorm() {
    const bool longRun = envFlag("FLOTILLA_LONG_TESTS");
    // Under the sanitizers (FLOTILLA_SANITIZE_RUN=1) each start costs several times more.
    const int defaultRounds = longRun ? 1000 : envFlag("FLOTILLA_SANITIZE_RUN") ? 100 : 200;
    const int rounds = envInt("FLOTILLA_CRASH_ROUNDS", defaultRounds);
    const int maxStormMs = longRun ? 400 : 60;
    constexpr int kConnections = 6; // QNetworkAccessManager's per-host connection count
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    m_data = tmp.path() + QStringLiteral("/data");
    m_cwd = tmp.path();
    const QStringList args{QStringLiteral("--data-dir"), m_data};
    QElapsedTimer clock;
    clock.start();
    qint64 longestStart = 0;

    for (int round = 0; round < rounds && m_problems.size() < 10; ++round) {
        verifyFiles(round);
        ServiceProcess svc;
        QElapsedTimer startClock;
        startClock.start();
        QVERIFY2(
            svc.start(args, hermeticEnv(tmp.path()), scaled(10000)),
            qPrintable(
                QStringLiteral("round %1: %2").arg(round).arg(QString::fromUtf8(svc.stdErr()))));
        longestStart = qMax(longestStart, startClock.elapsed());
        m_port = svc.port();
        verifyService(round);

        QNetworkAccessManager nam;
        m_nam = &nam;
        m_stopping = false;
        for (int i = 0; i < kConnections; ++i)
            fire(round);
        QTest::qWait(int(QRandomGenerator::global()->bounded(5, maxStormMs + 1)));
        m_stopping = true;
        svc.kill();
        QCOMPARE(svc.exitStatus(), QProcess::CrashExit);
        QVERIFY2(QTest::qWaitFor([&] { return m_inFlight == 0; }, scaled(10000)),
                 qPrintable(QStringLiteral("round %1: requests never finished").arg(round)));
        m_nam = nullptr;
    }
    const qint64 roundsMs = clock.elapsed();
    QVERIFY2(m_problems.isEmpty(), qPrintable(m_problems.mid(0, 10).join(QLatin1Char('\n'))));

    // The final restart: every acknowledged write, healthy files.
    verifyFiles(rounds);
    {
        ServiceProcess svc;
        QVERIFY2(svc.start(args, hermeticEnv(tmp.path()), scaled(10000)), svc.stdErr().constData());
        m_port = svc.port();
        verifyService(rounds);
        QVERIFY(svc.terminate(scaled(10000)));
        QCOMPARE(svc.exitCode(), 0);
    }
    QVERIFY2(m_problems.isEmpty(), qPrintable(m_problems.mid(0, 10).join(QLatin1Char('\n'))));
    QCOMPARE(QDir(m_data).entryList({QStringLiteral("*.corrupt-*")}, QDir::Files).size(), 0);
    {
        const QString conn = QStringLiteral("tst_crash_storm_integrity");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), conn);
            db.setDatabaseName(m_data + QStringLiteral("/flotilla.db"));
            QVERIFY2(db.open(), qPrintable(db.lastError().text()));
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("PRAGMA integrity_check")));
            QVERIFY(q.next());
            QCOMPARE(q.value(0).toString(), QStringLiteral("ok"));
            q.finish();
            db.close();
        }
        QSqlDatabase::removeDatabase(conn);
    }
    QVERIFY(m_ackedByKind[0] > 0 && m_ackedByKind[1] > 0 && m_ackedByKind[2] > 0 &&
            m_ackedByKind[3] > 0 && m_ackedByKind[4] > 0);

    qInfo("crash storm: %d rounds in %lld ms (slowest start %lld ms), %d requests sent, "
          "%d acknowledged (creates %d, patches %d, notifications %d, secrets %d, prompt %d), "
          "%d cut by the kill, %lld agents stored, lost 0",
          rounds, roundsMs, longestStart, m_sent, m_acked, m_ackedByKind[0], m_ackedByKind[1],
          m_ackedByKind[2], m_ackedByKind[3], m_ackedByKind[4], m_dropped,
          qlonglong(m_agents.size()));
}

QTEST_GUILESS_MAIN(TestCrashStorm)
#include "tst_crash_storm.moc"
