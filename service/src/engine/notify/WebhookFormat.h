#pragma once
// What one delivery attempt sends, by the channel's format (pure functions; docs/api.md
// "Notification channels" is the contract):
//  - json:  {"id", "event", "timestamp", "payload"}, application/json
//  - ntfy:  ntfy's publish API: the message as a text/plain body, with Title, Priority and Tags
//           headers (non-ASCII titles RFC 2047-encoded, as ntfy reads them)
//  - slack: {"text": "*title*\nmessage"}, a Slack incoming webhook's body (mrkdwn, escaped)
// Every format carries X-Flotilla-Delivery (the stable delivery id), X-Flotilla-Event and
// X-Flotilla-Timestamp (this attempt, epoch ms); with a secret also X-Flotilla-Signature:
// "sha256=" + lower-case hex HMAC-SHA256, keyed with the secret's UTF-8 bytes, over
// "<X-Flotilla-Timestamp>.<body bytes>".

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace flotilla {

struct Channel;
struct OutboxItem;

struct WebhookRequest {
    QByteArray body;
    QByteArray contentType;
    QList<QPair<QByteArray, QByteArray>> headers; // besides Content-Type
};

WebhookRequest renderWebhook(const Channel &channel, const OutboxItem &item, qint64 sentAtMs);

QByteArray webhookSignature(const QString &secret, qint64 timestampMs, const QByteArray &body);

} // namespace flotilla
