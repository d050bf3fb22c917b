#include "notify/NotificationChannels.h"

#include "notify/NotifyLogging.h"
#include "protocol/NotifyNames.h"

namespace flotilla {

namespace k = wire::key;
namespace nk = wire::notify::key;

NotificationChannels::NotificationChannels(Database &db, NotifyConfig config, const Clock &clock,
                                           QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_channels(db, clock)
    , m_outbox(db, config.maxPendingPerChannel, config.keptFailedPerChannel)
    , m_deliverer(m_channels, m_outbox, config, clock) {
}

void NotificationChannels::start() {
    if (Status e = m_channels.load())
        qCCritical(lcNotify).noquote() << "cannot read notification channels:" << e->message;
    m_deliverer.start();
}

QJsonObject NotificationChannels::withCounts(const Channel &channel,
                                             const Outbox::Counts &counts) const {
    QJsonObject o = channel.toJson();
    o.insert(nk::Pending, counts.pending);
    o.insert(k::Failed, counts.failed);
    return o;
}

Error NotificationChannels::unknown(const QString &id) const {
    return Error::notFound(wire::code::NotFound,
                           QStringLiteral("no notification channel with id '%1'").arg(id));
}

QJsonArray NotificationChannels::list() {
    const QHash<QString, Outbox::Counts> counts = m_outbox.counts();
    QJsonArray out;
    for (const Channel &ch : m_channels.all())
        out.append(withCounts(ch, counts.value(ch.id)));
    return out;
}

Result<QJsonObject> NotificationChannels::describe(const QString &id) {
    const Channel *ch = m_channels.find(id);
    if (!ch)
        return unknown(id);
    return withCounts(*ch, m_outbox.counts().value(id));
}

Result<QJsonObject> NotificationChannels::create(const QJsonObject &body) {
    auto parsed = ChannelStore::parse(body);
    if (!parsed)
        return parsed.error();
    auto added = m_channels.add(std::move(parsed).value());
    if (!added)
        return added.error();
    return withCounts(*added, {});
}

Status NotificationChannels::remove(const QString &id) {
    if (Status e = m_channels.remove(id))
        return e;
    m_deliverer.cancel(id);
    return std::nullopt;
}

Result<QString> NotificationChannels::sendTest(const QString &id) {
    const Channel *ch = m_channels.find(id);
    if (!ch)
        return unknown(id);
    const qint64 now = m_clock.nowMs();
    const QJsonObject payload{
        {k::Message, QStringLiteral("A test delivery from Flotilla: this channel works.")}};
    auto ids = m_outbox.enqueue({id}, wire::notify::event::Test, payload, now);
    if (!ids)
        return ids.error();
    m_deliverer.wake();
    return ids->constFirst();
}

Result<QJsonArray> NotificationChannels::deliveries(const QString &id, int limit) {
    if (!m_channels.find(id))
        return unknown(id);
    return m_outbox.list(id, limit);
}

void NotificationChannels::publish(QLatin1String event, const QJsonObject &payload) {
    QStringList targets;
    for (const Channel &ch : m_channels.all()) {
        if (ch.wants(event))
            targets.append(ch.id);
    }
    if (targets.isEmpty())
        return;
    auto ids = m_outbox.enqueue(targets, event, payload, m_clock.nowMs());
    if (!ids) {
        // Nothing was stored: the event is not delivered (its own record, if any, stands).
        qCWarning(lcNotify).noquote() << "cannot store outgoing" << event << "for" << targets.size()
                                      << "channel(s):" << ids.error().message;
        return;
    }
    m_deliverer.wake();
}

} // namespace flotilla
