#include "organization/TransferSupport.h"

#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"

namespace flotilla::transfer {

namespace c = wire::code;

namespace {

class ItemsImport final : public PendingImport {
public:
    ItemsImport(PendingItems items, WriteItems write, RemoveItems remove)
        : m_items(std::move(items))
        , m_write(std::move(write))
        , m_remove(std::move(remove)) {}

    QJsonObject counts() const override { return QJsonObject{{m_items.category, m_items.count}}; }

    Status apply(const ImportIds &ids) override {
        const auto written = m_write(ids);
        if (!written)
            return written.error();
        m_written = *written;
        return std::nullopt;
    }

    void undo() override {
        if (Status e = m_remove(m_written))
            qCCritical(m_items.log).noquote()
                << QStringLiteral("undoing import: %1 could not be removed:").arg(m_items.what)
                << e->message;
        m_written.clear();
    }

private:
    PendingItems m_items;
    WriteItems m_write;
    RemoveItems m_remove;
    QStringList m_written;
};

} // namespace

Error at(const QString &where, Error e) {
    e.message = where + QStringLiteral(": ") + e.message;
    return e;
}

Error wrongType(const QString &where, const QString &what) {
    return Error::badRequest(c::WrongType, QStringLiteral("%1 must be %2").arg(where, what));
}

Result<QJsonArray> arrayOf(const QJsonObject &given, QLatin1String category) {
    const QJsonValue v = given.value(category);
    if (v.isUndefined() || v.isNull())
        return QJsonArray();
    if (!v.isArray())
        return wrongType(QStringLiteral("categories.") + category, QStringLiteral("an array"));
    return v.toArray();
}

QJsonObject conflict(const QString &category, const QString &name) {
    return QJsonObject{{wire::org::key::Category, category}, {wire::key::Name_, name}};
}

Result<QString> takeAgentName(QJsonObject &o, const QString &where, const QString &member) {
    const QString field =
        member.isEmpty()
            ? QString(wire::shaping::key::AgentName)
            : QStringLiteral("%1.%2").arg(member, QString(wire::shaping::key::AgentName));
    if (o.contains(wire::key::AgentId))
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("%1: name %2 (%3); agent ids are this service's own")
                                  .arg(where,
                                       member.isEmpty()
                                           ? QStringLiteral("the agent")
                                           : QStringLiteral("the %1's agent").arg(member),
                                       field));
    const QJsonValue agent = o.take(wire::shaping::key::AgentName);
    if (agent.isUndefined() || agent.isNull())
        return QString();
    if (!agent.isString() || agent.toString().isEmpty())
        return wrongType(where + QLatin1Char('.') + field,
                         QStringLiteral("a non-empty string or null"));
    return agent.toString();
}

std::shared_ptr<PendingImport> pendingImport(PendingItems items, WriteItems write,
                                             RemoveItems remove) {
    return std::make_shared<ItemsImport>(std::move(items), std::move(write), std::move(remove));
}

std::shared_ptr<PendingImport> pendingRows(PendingItems items, CatalogStore &store, MakeRows rows) {
    const auto write = [&store,
                        rows = std::move(rows)](const ImportIds &ids) -> Result<QStringList> {
        const auto made = rows(ids);
        if (!made)
            return made.error();
        if (Status e = store.putAll(*made)) // one transaction
            return *e;
        QStringList keys;
        for (const CatalogStore::Item &item : *made)
            keys.append(item.first);
        return keys;
    };
    return pendingImport(std::move(items), write,
                         [&store](const QStringList &keys) { return store.removeAll(keys); });
}

} // namespace flotilla::transfer
