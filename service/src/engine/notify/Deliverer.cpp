#include "notify/Deliverer.h"

#include "notify/ChannelStore.h"
#include "notify/NotifyLogging.h"
#include "notify/Outbox.h"
#include "notify/WebhookFormat.h"

#include <QMetaEnum>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRandomGenerator>
#include <QUrl>

#include <algorithm>

namespace flotilla {

Deliverer::Deliverer(ChannelStore &channels, Outbox &outbox, NotifyConfig config, Clock clock,
                     QObject *parent)
    : QObject(parent)
    , m_channels(channels)
    , m_outbox(outbox)
    , m_config(config)
    , m_clock(std::move(clock)) {
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &Deliverer::pump);
}

Deliverer::~Deliverer() {
    // Requests in flight stay pending in the outbox: the next start sends them again.
    for (const QPointer<QNetworkReply> &reply : std::as_const(m_busy)) {
        if (reply) {
            reply->disconnect(this);
            reply->abort();
        }
    }
}

void Deliverer::start() {
    if (Status e = m_outbox.makeAllDue())
        qCWarning(lcNotify).noquote() << "cannot reschedule pending deliveries:" << e->message;
    pump();
}

void Deliverer::wake() {
    pump();
}

void Deliverer::cancel(const QString &channelId) {
    const QPointer<QNetworkReply> reply = m_busy.take(channelId);
    if (reply) {
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
}

qint64 Deliverer::backoffMs(const NotifyConfig &config, int attempts) {
    qint64 wait = qMax(1, config.firstRetryMs);
    for (int i = 1; i < attempts && wait < config.maxRetryMs; ++i)
        wait *= 2;
    wait = qMin(wait, qint64(qMax(config.maxRetryMs, 1)));
    const qint64 half = wait / 2;
    return half + QRandomGenerator::global()->bounded(wait - half + 1);
}

void Deliverer::pump() {
    const qint64 now = m_clock.nowMs();
    for (const Channel &ch : m_channels.all()) {
        if (m_busy.contains(ch.id))
            continue;
        if (const std::optional<OutboxItem> item = m_outbox.nextDue(ch.id, now))
            send(ch, *item);
    }
    std::optional<qint64> earliest;
    for (const Channel &ch : m_channels.all()) {
        if (m_busy.contains(ch.id))
            continue; // looked at again when its request ends
        const std::optional<qint64> due = m_outbox.earliestDue(ch.id);
        if (due && (!earliest || *due < *earliest))
            earliest = due;
    }
    if (!earliest) {
        m_timer.stop();
        return;
    }
    // A few ms at least: a database that fails to answer must not make this a busy loop.
    m_timer.start(
        int(std::clamp<qint64>(*earliest - m_clock.nowMs(), 5, qMax(m_config.maxRetryMs, 5))));
}

void Deliverer::send(const Channel &channel, const OutboxItem &item) {
    // Counted before the request leaves: an attempt a crash cuts short still counts.
    if (Status e = m_outbox.recordAttempt(item.id))
        qCWarning(lcNotify).noquote()
            << "cannot count an attempt of" << item.id << ":" << e->message;
    const qint64 sentAt = m_clock.nowMs();
    const WebhookRequest r = renderWebhook(channel, item, sentAt);
    QNetworkRequest request{QUrl(channel.url)};
    request.setHeader(QNetworkRequest::ContentTypeHeader, r.contentType);
    request.setHeader(QNetworkRequest::UserAgentHeader,
                      QByteArrayLiteral("flotillad/" FLOTILLA_VERSION));
    for (const auto &[name, value] : r.headers)
        request.setRawHeader(name, value);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute,
                         QNetworkRequest::AlwaysNetwork);
    // Each request stands alone: no cookie from one receiver's answer goes out with the next.
    request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    request.setTransferTimeout(m_config.requestTimeoutMs);
    QNetworkReply *reply = m_nam.post(request, r.body);
    const int attempts = item.attempts + 1;
    m_busy.insert(channel.id, reply);
    connect(reply, &QNetworkReply::finished, this,
            [this, reply, channelId = channel.id, itemId = item.id, attempts] {
                onFinished(reply, channelId, itemId, attempts);
            });
    qCDebug(lcNotify).noquote() << "delivery" << item.id << item.event << "to channel" << channel.id
                                << "attempt" << attempts;
}

void Deliverer::onFinished(QNetworkReply *reply, const QString &channelId, const QString &itemId,
                           int attempts) {
    reply->deleteLater();
    m_busy.remove(channelId);
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const qint64 now = m_clock.nowMs();
    if (status >= 200 && status < 300) {
        if (Status e = m_outbox.delivered(itemId, channelId, now))
            qCWarning(lcNotify).noquote()
                << "delivery" << itemId << "was answered but cannot be marked:" << e->message;
        m_channels.recordDelivered(channelId, now);
        qCDebug(lcNotify).noquote() << "delivery" << itemId << "answered" << status;
    } else {
        const QString error = describeFailure(reply, status);
        const bool final = attempts >= m_config.maxAttempts;
        const qint64 wait = final ? 0 : backoffMs(m_config, attempts);
        if (Status e = m_outbox.recordFailure(itemId, error, final, now + wait))
            qCWarning(lcNotify).noquote() << "cannot record a failed delivery:" << e->message;
        m_channels.recordError(channelId, error);
        if (final)
            qCWarning(lcNotify).noquote() << "delivery" << itemId << "to channel" << channelId
                                          << "failed after" << attempts << "attempts:" << error;
        else
            qCInfo(lcNotify).noquote()
                << "delivery" << itemId << "to channel" << channelId << "attempt" << attempts
                << "failed (" << error << "); retry in" << wait << "ms";
    }
    pump();
}

// Said without the URL (its path may be a credential) and without Qt's error text (which quotes
// the URL).
QString Deliverer::describeFailure(QNetworkReply *reply, int status) const {
    if (status > 0) {
        const QString reason =
            reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString().left(80);
        return QStringLiteral("HTTP %1%2")
            .arg(status)
            .arg(reason.isEmpty() ? QString() : QStringLiteral(" ") + reason);
    }
    switch (reply->error()) {
    case QNetworkReply::ConnectionRefusedError:
        return QStringLiteral("connection refused");
    case QNetworkReply::RemoteHostClosedError:
        return QStringLiteral("the receiver closed the connection without an answer");
    case QNetworkReply::HostNotFoundError:
        return QStringLiteral("host not found");
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
        return QStringLiteral("no answer within %1 ms").arg(m_config.requestTimeoutMs);
    case QNetworkReply::SslHandshakeFailedError:
        return QStringLiteral("TLS handshake failed");
    default:
        break;
    }
    const char *name =
        QMetaEnum::fromType<QNetworkReply::NetworkError>().valueToKey(int(reply->error()));
    return QStringLiteral("network error %1")
        .arg(name ? QString::fromLatin1(name) : QString::number(int(reply->error())));
}

} // namespace flotilla
