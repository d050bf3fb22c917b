#include "domain/NotificationService.h"

#include "domain/AgentRegistry.h"
#include "protocol/WireNames.h"
#include "storage/Database.h"
#include "storage/Transaction.h"

#include <QJsonDocument>
#include <QUrl>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;

NotificationService::NotificationService(Database &db, const AgentRegistry &agents, Clock clock,
                                         QObject *parent)
    : QObject(parent)
    , m_db(db)
    , m_agents(agents)
    , m_clock(std::move(clock)) {
}

Result<Notification> NotificationService::post(const QJsonObject &body) {
    const QList<QLatin1String> allowed{k::AgentId, k::Title, k::Message, k::IconUrl, k::ImageUrl};
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (!allowed.contains(QLatin1String(it.key().toLatin1())))
            return Error::invalid(c::UnknownField,
                                  QStringLiteral("unknown field '%1'").arg(it.key()));
    }
    for (QLatin1String required : {k::AgentId, k::Title, k::Message}) {
        if (!body.contains(required))
            return Error::badRequest(c::MissingField,
                                     QStringLiteral("field '%1' is required").arg(required));
    }
    for (QLatin1String key : allowed) {
        if (body.contains(key) && !body.value(key).isString())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("field '%1' must be a string").arg(key));
    }
    Notification n;
    n.agentId = body.value(k::AgentId).toString();
    n.title = body.value(k::Title).toString().trimmed();
    n.message = body.value(k::Message).toString();
    if (n.title.isEmpty())
        return Error::invalid(c::InvalidValue, QStringLiteral("field 'title' must not be empty"));
    if (n.title.size() > kTitleMax)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'title' is longer than %1 characters").arg(kTitleMax));
    if (n.message.size() > kMessageMax)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'message' is longer than %1 characters").arg(kMessageMax));
    for (QLatin1String key : {k::IconUrl, k::ImageUrl}) {
        const QString raw = body.value(key).toString();
        if (raw.isEmpty())
            continue;
        const QUrl url(raw, QUrl::StrictMode);
        if (!url.isValid() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field '%1' must be an http(s) URL").arg(key));
    }
    n.iconUrl = body.value(k::IconUrl).toString();
    n.imageUrl = body.value(k::ImageUrl).toString();

    const Agent *sender = m_agents.find(n.agentId);
    if (!sender)
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(n.agentId));
    n.agentName = sender->name;
    n.agentClass = sender->agentClass;
    n.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    n.timestamp = m_clock.nowMs();

    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    Status e = m_db.exec(
        QStringLiteral("INSERT INTO notifications (id, timestamp, data) VALUES (?, ?, ?)"),
        {n.id, n.timestamp, QJsonDocument(n.toJson()).toJson(QJsonDocument::Compact)});
    if (!e) {
        e = m_db.exec(QStringLiteral("DELETE FROM notifications WHERE seq <= "
                                     "(SELECT MAX(seq) FROM notifications) - ?"),
                      {kRetained});
    }
    if (!e && !tx.commit())
        e = m_db.commitError(QStringLiteral("cannot commit notification"));
    if (e)
        return *e;
    Q_EMIT notificationPosted(n);
    return n;
}

Result<QList<Notification>> NotificationService::list(int limit) const {
    QList<Notification> out;
    Status e =
        m_db.query(QStringLiteral("SELECT data FROM notifications ORDER BY seq DESC LIMIT ?"),
                   {limit}, [&](const QVariantList &row) {
                       Notification n;
                       if (Notification::fromJson(
                               QJsonDocument::fromJson(row.value(0).toByteArray()).object(), &n))
                           out.append(n);
                   });
    if (e)
        return *e;
    return out;
}

} // namespace flotilla
