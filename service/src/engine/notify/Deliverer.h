#pragma once
// Sends the outbox (QNetworkAccessManager), at least once: an item leaves the outbox only after
// its receiver answered 2xx. One request in flight per channel (its items go out oldest due
// first), any number of channels at once. A failed attempt (no connection, no answer within
// requestTimeoutMs, any status but 2xx; redirects are not followed) waits
// NotifyConfig::firstRetryMs doubled per attempt up to maxRetryMs, jittered, and is failed for
// good after maxAttempts. A success makes the channel's other waiting items due at once (the
// receiver is back). At start every pending item is due.

#include "base/Clock.h"
#include "notify/NotifyConfig.h"

#include <QHash>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QTimer>

class QNetworkReply;

namespace flotilla {

class ChannelStore;
class Outbox;
struct Channel;
struct OutboxItem;

class Deliverer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Deliverer)
public:
    Deliverer(ChannelStore &channels, Outbox &outbox, NotifyConfig config, Clock clock,
              QObject *parent = nullptr);
    ~Deliverer() override;

    // Every pending item (left by the last run, or a crash) is due now.
    void start();
    // New items were written: send what is due.
    void wake();
    // The channel is gone: its request in flight is abandoned.
    void cancel(const QString &channelId);

    // The wait after `attempts` failed attempts: min(maxRetryMs, firstRetryMs * 2^(attempts-1)),
    // drawn uniformly from [half of it, all of it].
    static qint64 backoffMs(const NotifyConfig &config, int attempts);

private:
    void pump();
    void send(const Channel &channel, const OutboxItem &item);
    void onFinished(QNetworkReply *reply, const QString &channelId, const QString &itemId,
                    int attempts);
    QString describeFailure(QNetworkReply *reply, int status) const;

    ChannelStore &m_channels;
    Outbox &m_outbox;
    NotifyConfig m_config;
    Clock m_clock;
    QNetworkAccessManager m_nam;
    QTimer m_timer;                                 // the earliest waiting item
    QHash<QString, QPointer<QNetworkReply>> m_busy; // channel id -> its request in flight
};

} // namespace flotilla
