#include "notify/WebhookFormat.h"

#include "notify/ChannelStore.h"
#include "notify/Outbox.h"
#include "protocol/NotifyNames.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageAuthenticationCode>

namespace flotilla {

namespace k = wire::key;
namespace nk = wire::notify::key;
namespace ne = wire::notify::event;
namespace nf = wire::notify::format;
namespace nh = wire::notify::header;

namespace {

constexpr int kTitleMax = 200;
constexpr int kMessageMax = 4000; // ntfy turns a longer body into an attachment

// What a person reads: ntfy's title and message, Slack's text. The json format sends the
// payload itself instead.
struct Summary {
    QString title;
    QString message;
    QByteArray priority = "default"; // ntfy: min, low, default, high, max
    QByteArray tags;                 // ntfy: emoji short codes
};

Summary summarize(const QString &event, const QJsonObject &payload) {
    const QString agent = payload.value(k::AgentName).toString();
    Summary s;
    if (event == ne::AgentNotification) {
        s.title = agent + QStringLiteral(": ") + payload.value(k::Title).toString();
        s.message = payload.value(k::Message).toString();
        s.tags = "bell";
    } else if (event == ne::PermissionRequest) {
        const QString tool = payload.value(QLatin1String("tool")).toString();
        s.title = QStringLiteral("%1 asks to use %2").arg(agent, tool);
        s.message =
            QStringLiteral("%1 is waiting for your answer in Flotilla (%2).").arg(agent, tool);
        s.priority = "high";
        s.tags = "lock";
    } else if (event == ne::AgentFinished) {
        s.title = QStringLiteral("%1 finished").arg(agent);
        s.message = payload.value(nk::Result).toString();
        s.tags = "white_check_mark";
    } else if (event == ne::AgentError) {
        s.title = QStringLiteral("%1 failed").arg(agent);
        s.message = payload.value(k::Error).toString();
        s.priority = "high";
        s.tags = "warning";
    } else {
        s.title = QStringLiteral("Flotilla test");
        s.message = payload.value(k::Message).toString();
        s.tags = "test_tube";
    }
    if (s.message.trimmed().isEmpty())
        s.message = s.title;
    s.title = s.title.left(kTitleMax);
    s.message = s.message.left(kMessageMax);
    return s;
}

// A header value: control characters (CR/LF would end the header) become spaces; non-ASCII text
// is RFC 2047-encoded, which ntfy decodes.
QByteArray headerText(const QString &text) {
    QString clean = text;
    for (QChar &ch : clean) {
        if (ch.unicode() < 0x20 || ch.unicode() == 0x7f)
            ch = QLatin1Char(' ');
    }
    for (QChar ch : clean) {
        if (ch.unicode() > 0x7e)
            return "=?UTF-8?B?" + clean.toUtf8().toBase64() + "?=";
    }
    return clean.toLatin1();
}

// Slack mrkdwn: these three are markup; everything else is text.
QString slackEscaped(QString text) {
    return text.replace(QLatin1Char('&'), QLatin1String("&amp;"))
        .replace(QLatin1Char('<'), QLatin1String("&lt;"))
        .replace(QLatin1Char('>'), QLatin1String("&gt;"));
}

} // namespace

QByteArray webhookSignature(const QString &secret, qint64 timestampMs, const QByteArray &body) {
    QMessageAuthenticationCode mac(QCryptographicHash::Sha256, secret.toUtf8());
    mac.addData(QByteArray::number(timestampMs));
    mac.addData(".", 1);
    mac.addData(body);
    return QByteArray(nh::SignaturePrefix.data(), nh::SignaturePrefix.size()) +
           mac.result().toHex();
}

WebhookRequest renderWebhook(const Channel &channel, const OutboxItem &item, qint64 sentAtMs) {
    WebhookRequest r;
    if (channel.format == nf::Json) {
        r.contentType = "application/json";
        r.body = QJsonDocument(QJsonObject{{k::Id, item.id},
                                           {nk::Event, item.event},
                                           {k::Timestamp, item.createdAt},
                                           {k::Payload, item.payload}})
                     .toJson(QJsonDocument::Compact);
    } else {
        const Summary s = summarize(item.event, item.payload);
        if (channel.format == nf::Ntfy) {
            r.contentType = "text/plain; charset=utf-8";
            r.body = s.message.toUtf8();
            r.headers = {
                {"Title", headerText(s.title)}, {"Priority", s.priority}, {"Tags", s.tags}};
        } else {
            r.contentType = "application/json";
            const QString text =
                QStringLiteral("*%1*\n%2").arg(slackEscaped(s.title), slackEscaped(s.message));
            r.body = QJsonDocument(QJsonObject{{k::Text, text}}).toJson(QJsonDocument::Compact);
        }
    }
    r.headers.append({nh::Delivery.data(), item.id.toLatin1()});
    r.headers.append({nh::Event.data(), item.event.toLatin1()});
    r.headers.append({nh::Timestamp.data(), QByteArray::number(sentAtMs)});
    if (!channel.secret.isEmpty())
        r.headers.append(
            {nh::Signature.data(), webhookSignature(channel.secret, sentAtMs, r.body)});
    return r;
}

} // namespace flotilla
