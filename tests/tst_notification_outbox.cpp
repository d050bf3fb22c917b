// The outbox of notification channels, against a webhook receiver on loopback:
// retries while the receiver refuses, fails or hangs (same delivery id, delivered once it is
// back), failure after the last attempt, a full outbox, deletion dropping it (in-process, retry
// waits of 50-200 ms); and a SIGKILL of the real flotillad with the receiver down (every item
// pending after failed attempts) or hanging (one item in flight when the service dies): nothing
// acknowledged is lost after a restart, and a receiver that dedups by X-Flotilla-Delivery acts on
// each notification once. The only duplicate is the documented one: the request in flight at the
// kill is sent again (at-least-once). The binary runs with the default retry settings: a restart
// makes every pending item due at once.

#include "support/NotifyFixture.h"
#include "support/ServiceProcess.h"

#include <QDir>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {

constexpr int kNotifications = 5;

} // namespace

class TestNotificationOutbox final : public QObject {
    Q_OBJECT

    std::unique_ptr<NotifyRig> m_rig;

private Q_SLOTS:
    void init() { m_rig = std::make_unique<NotifyRig>(); }
    void cleanup() { m_rig.reset(); }

    // While the receiver refuses connections, answers 500 or does not answer, the item stays
    // pending with lastError and is retried under the same delivery id; once the receiver
    // answers 200 it is delivered exactly once (as far as 2xx answers go).
    void retriesUntilTheReceiverIsBack_data() {
        QTest::addColumn<int>("mode"); // -1: stopped
        QTest::addColumn<QString>("error");
        QTest::newRow("refused") << -1 << QStringLiteral("connection refused");
        QTest::newRow("500") << int(WebhookReceiver::Mode::Fail)
                             << QStringLiteral("HTTP 500 Internal Server Error");
        QTest::newRow("hangs") << int(WebhookReceiver::Mode::Hang)
                               << QStringLiteral("no answer within 300 ms");
    }
    void retriesUntilTheReceiverIsBack() {
        QFETCH(int, mode);
        QFETCH(QString, error);
        QVERIFY(m_rig->boot());
        const QString id = jsonString(m_rig->addChannel(QStringLiteral("/r")), "id");
        const QString agent = m_rig->addAgent(QStringLiteral("Retry"));
        if (mode < 0)
            m_rig->receiver.stop();
        else
            m_rig->receiver.setMode(WebhookReceiver::Mode(mode));
        QCOMPARE(m_rig->notifyAs(agent, QStringLiteral("later")), 201);

        QTRY_VERIFY(
            m_rig->deliveries(id).at(0).toObject().value(QLatin1String("attempts")).toInt() >= 3);
        QJsonObject status = m_rig->channel(id);
        QCOMPARE(status.value(QLatin1String("pending")).toInt(), 1);
        QCOMPARE(jsonString(status, "lastError"), error);
        QVERIFY(status.value(QLatin1String("lastDeliveredAt")).isNull());
        const QJsonObject item = m_rig->deliveries(id).at(0).toObject();
        QCOMPARE(jsonString(item, "state"), QStringLiteral("pending"));
        QCOMPARE(jsonString(item, "event"), QStringLiteral("agent_notification"));
        QCOMPARE(jsonString(item, "lastError"), error);
        QVERIFY(item.value(QLatin1String("nextAttemptAt")).toInteger() > 0);

        m_rig->receiver.setMode(WebhookReceiver::Mode::Ok);
        if (mode < 0)
            QVERIFY(m_rig->receiver.start());
        QTRY_COMPARE(m_rig->receiver.acceptedIds().size(), 1);
        QTRY_COMPARE(m_rig->channel(id).value(QLatin1String("pending")).toInt(-1), 0);
        status = m_rig->channel(id);
        QVERIFY(status.value(QLatin1String("lastError")).isNull());
        QVERIFY(status.value(QLatin1String("lastDeliveredAt")).toInteger() > 0);
        QCOMPARE(m_rig->deliveries(id).size(), 0);
        QCOMPARE(m_rig->receiver.acceptedDuplicates(), 0);
        for (const auto &r : m_rig->receiver.received()) // every attempt: the same delivery id
            QCOMPARE(r.deliveryId(), *m_rig->receiver.acceptedIds().cbegin());
        if (mode >= 0)
            QVERIFY(m_rig->receiver.count() >= 3);
    }

    // After maxAttempts the item is failed: kept, listed, counted, never sent again.
    void failsAfterTheLastAttempt() {
        m_rig->notify.maxAttempts = 3;
        QVERIFY(m_rig->boot());
        const QString id = jsonString(m_rig->addChannel(QStringLiteral("/f")), "id");
        const QString agent = m_rig->addAgent(QStringLiteral("Doomed"));
        m_rig->receiver.setMode(WebhookReceiver::Mode::Fail);
        QCOMPARE(m_rig->notifyAs(agent, QStringLiteral("lost")), 201);
        QTRY_COMPARE(m_rig->channel(id).value(QLatin1String("failed")).toInt(), 1);
        QCOMPARE(m_rig->channel(id).value(QLatin1String("pending")).toInt(), 0);
        QCOMPARE(m_rig->receiver.count(), 3);
        const QJsonObject item = m_rig->deliveries(id).at(0).toObject();
        QCOMPARE(jsonString(item, "state"), QStringLiteral("failed"));
        QCOMPARE(item.value(QLatin1String("attempts")).toInt(), 3);
        QCOMPARE(jsonString(item, "lastError"), QStringLiteral("HTTP 500 Internal Server Error"));
        QVERIFY(item.value(QLatin1String("nextAttemptAt")).isNull());
        QCOMPARE(item.value(QLatin1String("id")).toString().toUtf8(),
                 m_rig->receiver.received().at(0).deliveryId());

        // The receiver is back: a new delivery goes through, the failed one stays failed.
        m_rig->receiver.setMode(WebhookReceiver::Mode::Ok);
        QCOMPARE(m_rig->sendTest(id), 202);
        QTRY_COMPARE(m_rig->receiver.acceptedIds().size(), 1);
        QCOMPARE(m_rig->receiver.count(), 4);
        QCOMPARE(m_rig->channel(id).value(QLatin1String("failed")).toInt(), 1);
    }

    // Past maxPendingPerChannel the oldest pending items are failed ("outbox full").
    void fullOutboxFailsTheOldest() {
        m_rig->notify.maxPendingPerChannel = 2;
        QVERIFY(m_rig->boot());
        const QString id = jsonString(m_rig->addChannel(QStringLiteral("/o")), "id");
        const QString agent = m_rig->addAgent(QStringLiteral("Chatty"));
        m_rig->receiver.stop();
        for (int i = 0; i < 3; ++i)
            QCOMPARE(m_rig->notifyAs(agent, QStringLiteral("n%1").arg(i)), 201);
        QJsonObject status = m_rig->channel(id);
        QCOMPARE(status.value(QLatin1String("pending")).toInt(), 2);
        QCOMPARE(status.value(QLatin1String("failed")).toInt(), 1);
        const QJsonArray items = m_rig->deliveries(id); // newest first
        QCOMPARE(items.size(), 3);
        QCOMPARE(jsonString(items.at(2).toObject(), "state"), QStringLiteral("failed"));
        QVERIFY(jsonString(items.at(2).toObject(), "lastError")
                    .startsWith(QLatin1String("outbox full")));
        QVERIFY(m_rig->receiver.start());
        QTRY_COMPARE(m_rig->receiver.acceptedIds().size(), 2);
        QTRY_COMPARE(m_rig->channel(id).value(QLatin1String("pending")).toInt(-1), 0);
    }

    // DELETE drops the channel's outbox in the same transaction.
    void deleteDropsTheOutbox() {
        QVERIFY(m_rig->boot());
        const QString id = jsonString(m_rig->addChannel(QStringLiteral("/d")), "id");
        const QString agent = m_rig->addAgent(QStringLiteral("Gone"));
        m_rig->receiver.stop();
        QCOMPARE(m_rig->notifyAs(agent, QStringLiteral("never")), 201);
        QCOMPARE(m_rig->channel(id).value(QLatin1String("pending")).toInt(), 1);
        QCOMPARE(m_rig->http.del(m_rig->channelUrl(id)).status, 204);
        const QString conn = QStringLiteral("tst_notification_channels");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), conn);
            db.setDatabaseName(m_rig->service->app().config().dataDir +
                               QStringLiteral("/flotilla.db"));
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("SELECT COUNT(*) FROM notification_outbox")));
            QVERIFY(q.next());
            QCOMPARE(q.value(0).toInt(), 0);
        }
        QSqlDatabase::removeDatabase(conn);
    }
    void sigkillLosesNothing_data() {
        QTest::addColumn<bool>("hang");
        QTest::newRow("receiver down") << false;
        QTest::newRow("receiver hangs") << true;
    }
    void sigkillLosesNothing() {
        QFETCH(bool, hang);
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QString work = home.path() + QStringLiteral("/work");
        QVERIFY(QDir().mkpath(work));
        const QStringList args{QStringLiteral("--data-dir"), home.path() + QStringLiteral("/data")};

        WebhookReceiver receiver;
        QVERIFY(receiver.start());
        if (hang)
            receiver.setMode(WebhookReceiver::Mode::Hang);
        else
            receiver.stop();

        QSet<QString> notificationIds;
        QString channelId;
        {
            ServiceProcess svc;
            QVERIFY2(svc.start(args, hermeticEnv(home.path())), svc.stdErr().constData());
            HttpClient http;
            auto url = [&](const QString &path) { return localUrl(svc.port(), path); };
            const HttpResponse channel =
                http.post(url(QStringLiteral("/api/notification-channels")),
                          QJsonObject{{QStringLiteral("url"), receiver.url().toString()},
                                      {QStringLiteral("events"),
                                       QJsonArray{QStringLiteral("agent_notification")}},
                                      {QStringLiteral("secret"), QStringLiteral("s")}});
            QCOMPARE(channel.status, 201);
            channelId = jsonString(channel.object(), "id");
            const HttpResponse agent =
                http.post(url(QStringLiteral("/api/agents")),
                          QJsonObject{{QStringLiteral("name"), QStringLiteral("Kilroy")},
                                      {QStringLiteral("cwd"), work}});
            QCOMPARE(agent.status, 201);
            for (int i = 0; i < kNotifications; ++i) {
                const HttpResponse n = http.post(
                    url(QStringLiteral("/api/notify")),
                    QJsonObject{{QStringLiteral("agentId"), jsonString(agent.object(), "id")},
                                {QStringLiteral("title"), QStringLiteral("n%1").arg(i)},
                                {QStringLiteral("message"), QStringLiteral("m")}});
                QCOMPARE(n.status, 201); // acknowledged: its delivery is in the outbox
                notificationIds.insert(
                    jsonString(n.object().value(QLatin1String("notification")).toObject(), "id"));
            }
            auto status = [&] {
                return http.get(url(QStringLiteral("/api/notification-channels/") + channelId))
                    .object();
            };
            QCOMPARE(status().value(QLatin1String("pending")).toInt(), kNotifications);
            // The service has tried: a failed attempt (down) or a request it waits on (hang).
            if (hang)
                QTRY_COMPARE(receiver.count(), 1);
            else
                QTRY_VERIFY(!status().value(QLatin1String("lastError")).isNull());
            svc.kill();
            QCOMPARE(svc.exitStatus(), QProcess::CrashExit);
        }
        const int inFlightAtKill = receiver.count(); // hang: received, never answered
        QCOMPARE(inFlightAtKill, hang ? 1 : 0);

        receiver.stop();
        receiver.setMode(WebhookReceiver::Mode::Ok);
        QVERIFY(receiver.start()); // the same port: the channel's URL
        ServiceProcess svc;
        QVERIFY2(svc.start(args, hermeticEnv(home.path())), svc.stdErr().constData());
        QTRY_COMPARE(receiver.acceptedIds().size(), kNotifications);
        HttpClient http;
        QTRY_COMPARE(http.get(localUrl(svc.port(),
                                       QStringLiteral("/api/notification-channels/") + channelId))
                         .object()
                         .value(QLatin1String("pending"))
                         .toInt(-1),
                     0);

        // What a deduplicating receiver acts on: each notification once.
        QCOMPARE(receiver.acceptedDuplicates(), 0);
        QSet<QString> delivered;
        QSet<QByteArray> everyId;
        for (const auto &r : receiver.received()) {
            everyId.insert(r.deliveryId());
            if (r.answer == 200) {
                const QJsonObject body = QJsonDocument::fromJson(r.request.body).object();
                delivered.insert(jsonString(body.value(QLatin1String("payload")).toObject(), "id"));
            }
        }
        QCOMPARE(delivered, notificationIds);
        // At-least-once: only the request in flight at the kill came twice, under its own id.
        QCOMPARE(receiver.count(), kNotifications + inFlightAtKill);
        QCOMPARE(everyId.size(), kNotifications);
        QVERIFY(svc.terminate());
        QCOMPARE(svc.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TestNotificationOutbox)
#include "tst_notification_outbox.moc"
