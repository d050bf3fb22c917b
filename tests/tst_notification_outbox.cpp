// The outbox of notification channels survives a SIGKILL of the real flotillad: with the
// receiver down (every item pending after failed attempts) or hanging (one item in flight when
// the service dies), nothing acknowledged is lost after a restart, and a receiver that dedups by
// X-Flotilla-Delivery acts on each notification once. The only duplicate is the documented one:
// the request that was in flight at the kill is sent again (at-least-once). Default retry
// settings: a restart makes every pending item due at once.

#include "support/HttpClient.h"
#include "support/ServiceProcess.h"
#include "support/WebhookReceiver.h"

#include <QDir>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

constexpr int kNotifications = 5;

} // namespace

class TestNotificationOutbox final : public QObject {
    Q_OBJECT

private Q_SLOTS:
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
            channelId = str(channel.object(), "id");
            const HttpResponse agent =
                http.post(url(QStringLiteral("/api/agents")),
                          QJsonObject{{QStringLiteral("name"), QStringLiteral("Kilroy")},
                                      {QStringLiteral("cwd"), work}});
            QCOMPARE(agent.status, 201);
            for (int i = 0; i < kNotifications; ++i) {
                const HttpResponse n =
                    http.post(url(QStringLiteral("/api/notify")),
                              QJsonObject{{QStringLiteral("agentId"), str(agent.object(), "id")},
                                          {QStringLiteral("title"), QStringLiteral("n%1").arg(i)},
                                          {QStringLiteral("message"), QStringLiteral("m")}});
                QCOMPARE(n.status, 201); // acknowledged: its delivery is in the outbox
                notificationIds.insert(
                    str(n.object().value(QLatin1String("notification")).toObject(), "id"));
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
                delivered.insert(str(body.value(QLatin1String("payload")).toObject(), "id"));
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
