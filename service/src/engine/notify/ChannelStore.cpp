#include "notify/ChannelStore.h"

#include "domain/DisplayText.h"
#include "notify/NotifyLogging.h"
#include "protocol/NotifyNames.h"
#include "storage/Database.h"
#include "storage/Transaction.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUrl>
#include <QUuid>

#include <algorithm>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace nk = wire::notify::key;
namespace ne = wire::notify::event;
namespace nf = wire::notify::format;

namespace {

const QList<QLatin1String> &subscribableEvents() {
    static const QList<QLatin1String> list{ne::AgentNotification, ne::PermissionRequest,
                                           ne::AgentFinished, ne::AgentError};
    return list;
}

const QList<QLatin1String> &formats() {
    static const QList<QLatin1String> list{nf::Json, nf::Ntfy, nf::Slack};
    return list;
}

QString joined(const QList<QLatin1String> &names) {
    QStringList out;
    for (QLatin1String n : names)
        out.append(n);
    return out.join(QStringLiteral(", "));
}

Error wrongType(QLatin1String field, const char *what) {
    return Error::badRequest(
        c::WrongType, QStringLiteral("field '%1' must be %2").arg(field, QLatin1String(what)));
}

Error badValue(QLatin1String field, const QString &why) {
    return Error::invalid(c::InvalidValue, QStringLiteral("field '%1' %2").arg(field, why));
}

// http(s), a host, nothing a browser would treat as another address. The text is kept as given.
Status checkUrl(const QString &raw) {
    if (raw.size() > ChannelStore::kUrlMax)
        return badValue(nk::Url,
                        QStringLiteral("is longer than %1 characters").arg(ChannelStore::kUrlMax));
    const QUrl url(raw, QUrl::StrictMode);
    if (!url.isValid() || url.isRelative())
        return badValue(nk::Url, QStringLiteral("must be an absolute http(s) URL"));
    if (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))
        return badValue(
            nk::Url, QStringLiteral("must use http or https, not '%1'").arg(url.scheme().left(20)));
    if (url.host().isEmpty())
        return badValue(nk::Url, QStringLiteral("must name a host"));
    return std::nullopt;
}

Result<QStringList> parseEvents(const QJsonValue &v) {
    if (!v.isArray())
        return wrongType(nk::Events, "an array of event names");
    QStringList events;
    for (const QJsonValue &e : v.toArray()) {
        if (!e.isString())
            return wrongType(nk::Events, "an array of event names");
        const QString name = e.toString();
        if (!subscribableEvents().contains(name))
            return badValue(nk::Events, QStringLiteral("names an unknown event '%1'; known: %2")
                                            .arg(name.left(60), joined(subscribableEvents())));
        if (!events.contains(name))
            events.append(name);
    }
    if (events.isEmpty())
        return badValue(nk::Events, QStringLiteral("must name at least one event"));
    return events;
}

QJsonObject storedData(const Channel &ch) {
    return {{k::Name_, ch.name},
            {nk::Url, ch.url},
            {nk::Format, ch.format},
            {nk::Events, QJsonArray::fromStringList(ch.events)}};
}

} // namespace

bool Channel::wants(QLatin1String event) const {
    return event == ne::Test || events.contains(event);
}

QJsonObject Channel::toJson() const {
    return {{k::Id, id},
            {k::Name_, name},
            {nk::Url, QUrl(url).toString(QUrl::RemovePassword)},
            {nk::Format, format},
            {nk::Events, QJsonArray::fromStringList(events)},
            {nk::HasSecret, !secret.isEmpty()},
            {k::CreatedAt, createdAt},
            {nk::LastDeliveredAt, lastDeliveredAt > 0 ? QJsonValue(lastDeliveredAt) : QJsonValue()},
            {k::LastError, lastError.isEmpty() ? QJsonValue() : QJsonValue(lastError)}};
}

ChannelStore::ChannelStore(Database &db, Clock clock)
    : m_db(db)
    , m_clock(std::move(clock)) {
}

Status ChannelStore::load() {
    m_channels.clear();
    return m_db.query(
        QStringLiteral("SELECT id, created_at, data, secret, last_delivered_at, last_error "
                       "FROM notification_channels ORDER BY created_at, id"),
        {}, [this](const QVariantList &row) {
            const QJsonObject data = QJsonDocument::fromJson(row.value(2).toByteArray()).object();
            Channel ch;
            ch.id = row.value(0).toString();
            ch.createdAt = row.value(1).toLongLong();
            ch.name = data.value(k::Name_).toString();
            ch.url = data.value(nk::Url).toString();
            ch.format = data.value(nk::Format).toString();
            for (const QJsonValue &e : data.value(nk::Events).toArray())
                ch.events.append(e.toString());
            ch.secret = row.value(3).toString();
            ch.lastDeliveredAt = row.value(4).toLongLong();
            ch.lastError = row.value(5).toString();
            if (ch.url.isEmpty() || !formats().contains(ch.format)) {
                qCCritical(lcNotify).noquote()
                    << "notification channel" << ch.id << "cannot be read; it is skipped";
                return;
            }
            m_channels.append(ch);
        });
}

Result<Channel> ChannelStore::parse(const QJsonObject &body) {
    const QList<QLatin1String> allowed{nk::Url, nk::Format, nk::Events, nk::Secret, k::Name_};
    QStringList unknown;
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            unknown.append(it.key());
    }
    if (!unknown.isEmpty())
        return Error::invalid(c::UnknownField,
                              QStringLiteral("unknown field(s): %1; allowed: %2")
                                  .arg(unknown.join(QStringLiteral(", ")), joined(allowed)));
    Channel ch;
    if (!body.contains(nk::Url))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'url' is required"));
    if (!body.value(nk::Url).isString())
        return wrongType(nk::Url, "a string");
    ch.url = body.value(nk::Url).toString().trimmed();
    if (Status e = checkUrl(ch.url))
        return *e;

    ch.format = QString(nf::Json);
    if (body.contains(nk::Format)) {
        if (!body.value(nk::Format).isString())
            return wrongType(nk::Format, "a string");
        ch.format = body.value(nk::Format).toString();
        if (!formats().contains(ch.format))
            return badValue(nk::Format, QStringLiteral("must be one of %1, got '%2'")
                                            .arg(joined(formats()), ch.format.left(40)));
    }

    for (QLatin1String e : subscribableEvents())
        ch.events.append(e);
    if (body.contains(nk::Events)) {
        auto events = parseEvents(body.value(nk::Events));
        if (!events)
            return events.error();
        ch.events = *events;
    }

    if (body.contains(nk::Secret) && !body.value(nk::Secret).isNull()) {
        if (!body.value(nk::Secret).isString())
            return wrongType(nk::Secret, "a string or null");
        ch.secret = body.value(nk::Secret).toString();
        if (ch.secret.isEmpty())
            return badValue(nk::Secret, QStringLiteral("must not be empty (omit it to send "
                                                       "unsigned requests)"));
        if (ch.secret.size() > kSecretMax)
            return badValue(nk::Secret,
                            QStringLiteral("is longer than %1 characters").arg(kSecretMax));
    }

    if (body.contains(k::Name_)) {
        if (!body.value(k::Name_).isString())
            return wrongType(k::Name_, "a string");
        ch.name = body.value(k::Name_).toString().trimmed();
        if (ch.name.size() > kNameMax)
            return badValue(k::Name_, QStringLiteral("is longer than %1 characters").arg(kNameMax));
        if (Status e = validateNameText(k::Name_, ch.name))
            return *e;
    }
    return ch;
}

Result<Channel> ChannelStore::add(Channel channel) {
    if (m_channels.size() >= kMaxChannels)
        return Error::conflict(
            wire::notify::code::TooManyChannels,
            QStringLiteral("at most %1 notification channels; delete one first").arg(kMaxChannels));
    channel.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    channel.createdAt = m_clock.nowMs();
    channel.lastDeliveredAt = 0;
    channel.lastError.clear();
    if (Status e = m_db.exec(
            QStringLiteral("INSERT INTO notification_channels (id, created_at, data, secret) "
                           "VALUES (?, ?, ?, ?)"),
            {channel.id, channel.createdAt,
             QJsonDocument(storedData(channel)).toJson(QJsonDocument::Compact),
             channel.secret.isEmpty() ? QVariant() : QVariant(channel.secret)}))
        return *e;
    m_channels.append(channel);
    qCInfo(lcNotify).noquote() << "channel" << channel.id << "added:" << channel.format << "to"
                               << QUrl(channel.url).host();
    return channel;
}

Status ChannelStore::remove(const QString &id) {
    if (!find(id))
        return Error::notFound(c::NotFound,
                               QStringLiteral("no notification channel with id '%1'").arg(id));
    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    Status e =
        m_db.exec(QStringLiteral("DELETE FROM notification_outbox WHERE channel_id = ?"), {id});
    if (!e)
        e = m_db.exec(QStringLiteral("DELETE FROM notification_channels WHERE id = ?"), {id});
    if (!e && !tx.commit())
        e = m_db.commitError(QStringLiteral("cannot commit channel deletion"));
    if (e)
        return e;
    m_channels.removeIf([&id](const Channel &ch) { return ch.id == id; });
    qCInfo(lcNotify).noquote() << "channel" << id << "deleted with its outbox";
    return std::nullopt;
}

const Channel *ChannelStore::find(const QString &id) const {
    const auto it = std::find_if(m_channels.cbegin(), m_channels.cend(),
                                 [&id](const Channel &ch) { return ch.id == id; });
    return it == m_channels.cend() ? nullptr : &*it;
}

Channel *ChannelStore::findMutable(const QString &id) {
    const auto it = std::find_if(m_channels.begin(), m_channels.end(),
                                 [&id](const Channel &ch) { return ch.id == id; });
    return it == m_channels.end() ? nullptr : &*it;
}

void ChannelStore::recordDelivered(const QString &id, qint64 at) {
    Channel *ch = findMutable(id);
    if (!ch)
        return;
    ch->lastDeliveredAt = at;
    ch->lastError.clear();
    saveStatus(*ch);
}

void ChannelStore::recordError(const QString &id, const QString &error) {
    Channel *ch = findMutable(id);
    if (!ch)
        return;
    ch->lastError = error;
    saveStatus(*ch);
}

void ChannelStore::saveStatus(const Channel &ch) {
    if (Status e = m_db.exec(QStringLiteral("UPDATE notification_channels SET last_delivered_at = "
                                            "?, last_error = ? WHERE id = ?"),
                             {ch.lastDeliveredAt > 0 ? QVariant(ch.lastDeliveredAt) : QVariant(),
                              ch.lastError.isEmpty() ? QVariant() : QVariant(ch.lastError), ch.id}))
        qCWarning(lcNotify).noquote()
            << "cannot store the status of channel" << ch.id << ":" << e->message;
}

} // namespace flotilla
