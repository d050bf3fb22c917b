#include "hooks/HookTransfer.h"

#include "hooks/HookStore.h"
#include "hooks/HooksLogging.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"

#include <QSet>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace cat = wire::org::category;

namespace {

Error at(const QString &where, Error e) {
    e.message = where + QStringLiteral(": ") + e.message;
    return e;
}

Error wrongType(const QString &where, const QString &what) {
    return Error::badRequest(c::WrongType, QStringLiteral("%1 must be %2").arg(where, what));
}

// One hook of the document, checked: the stored form without id and times, its filter's agent
// and area still as the document names them.
struct HookEntry {
    QJsonObject hook;
    QString agentName; // filter.agentName; empty: none
    QString areaRef;   // filter.areaId; empty: none
};

class PendingHooks final : public PendingImport {
public:
    PendingHooks(HookStore &store, Clock clock)
        : m_store(store)
        , m_clock(std::move(clock)) {}

    QList<HookEntry> entries;

    QJsonObject counts() const override { return QJsonObject{{cat::Hooks, entries.size()}}; }

    Status apply(const ImportIds &ids) override {
        QList<CatalogStore::Item> items;
        QStringList created;
        const qint64 now = m_clock.nowMs();
        for (const HookEntry &e : std::as_const(entries)) {
            QJsonObject hook = e.hook;
            QJsonObject filter = hook.value(sk::Filter).toObject();
            if (!e.agentName.isEmpty()) {
                const QString agentId = ids.agentId(e.agentName);
                // Validated against the agents there would be: only a caller's bug gets here.
                if (agentId.isEmpty())
                    return Error::internal(c::Internal,
                                           QStringLiteral("categories.hooks: agent '%1' was not "
                                                          "created")
                                               .arg(e.agentName));
                filter.insert(k::AgentId, agentId);
            }
            if (!e.areaRef.isEmpty())
                filter.insert(k::AreaId, ids.areaId(e.areaRef));
            hook.insert(sk::Filter, filter);
            const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
            hook.insert(k::Id, id);
            hook.insert(k::CreatedAt, now);
            hook.insert(k::UpdatedAt, now);
            items.append({id, hook});
            created.append(id);
        }
        if (Status e = m_store.catalog().putAll(items)) // one transaction
            return e;
        m_created = created;
        return std::nullopt;
    }

    void undo() override {
        if (Status e = m_store.catalog().removeAll(m_created))
            qCCritical(lcHooks).noquote()
                << "undoing import: hooks could not be removed:" << e->message;
        m_created.clear();
    }

private:
    HookStore &m_store;
    Clock m_clock;
    QStringList m_created;
};

} // namespace

HookTransfer::HookTransfer(HookStore &hooks, Clock clock)
    : m_hooks(hooks)
    , m_clock(std::move(clock)) {
}

HookTransfer::~HookTransfer() = default;

QStringList HookTransfer::categories() const {
    return {cat::Hooks};
}

QJsonValue HookTransfer::exportCategory(const QString &, const ExportRefs &refs) const {
    QJsonArray out;
    const QList<QJsonObject> all = m_hooks.catalog().items(); // stored: without lastRun
    for (QJsonObject hook : all) {
        for (QLatin1String key : {k::Id, k::CreatedAt, k::UpdatedAt})
            hook.remove(key);
        QJsonObject filter = hook.value(sk::Filter).toObject();
        const QString agentId = filter.take(k::AgentId).toString();
        if (!agentId.isEmpty()) {
            const QString name = refs.agentName(agentId);
            // Its agent is gone: the hook could never run again, and without the filter it would
            // run for every agent; it is left out.
            if (name.isEmpty())
                continue;
            filter.insert(sk::AgentName, name);
        }
        hook.insert(sk::Filter, filter);
        out.append(hook);
    }
    return out;
}

Result<std::shared_ptr<PendingImport>> HookTransfer::validate(const QJsonObject &given,
                                                              const ImportRefs &refs,
                                                              QJsonArray &conflicts,
                                                              QStringList &warnings) const {
    const QString listWhere = QStringLiteral("categories.") + QString(cat::Hooks);
    const QJsonValue value = given.value(cat::Hooks);
    auto pending = std::make_shared<PendingHooks>(m_hooks, m_clock);
    if (value.isNull())
        return std::shared_ptr<PendingImport>(pending);
    if (!value.isArray())
        return wrongType(listWhere, QStringLiteral("an array"));
    const QJsonArray list = value.toArray();
    // Hooks may share a name through the routes; an import that adds one again is a conflict, so
    // that importing a document twice does not run every hook twice.
    QSet<QString> existing, names;
    const QList<QJsonObject> all = m_hooks.catalog().items();
    for (const QJsonObject &hook : all)
        existing.insert(hook.value(k::Name_).toString().toCaseFolded());
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("%1[%2]").arg(listWhere).arg(i);
        if (!list.at(i).isObject())
            return wrongType(where, QStringLiteral("an object"));
        QJsonObject body = list.at(i).toObject();
        HookEntry entry;
        if (body.value(sk::Filter).isObject()) {
            QJsonObject filter = body.value(sk::Filter).toObject();
            if (filter.contains(k::AgentId))
                return Error::invalid(c::InvalidValue,
                                      QStringLiteral("%1: name the filter's agent "
                                                     "(filter.agentName); agent ids are this "
                                                     "service's own")
                                          .arg(where));
            const QJsonValue agent = filter.take(sk::AgentName);
            if (!agent.isUndefined() && !agent.isNull()) {
                if (!agent.isString() || agent.toString().isEmpty())
                    return wrongType(where + QStringLiteral(".filter.agentName"),
                                     QStringLiteral("a non-empty string or null"));
                entry.agentName = agent.toString();
            }
            body.insert(sk::Filter, filter);
        }
        const QString name = body.value(k::Name_).toString();
        if (!name.isEmpty() && existing.contains(name.toCaseFolded())) {
            conflicts.append(
                QJsonObject{{wire::org::key::Category, QString(cat::Hooks)}, {k::Name_, name}});
            continue;
        }
        // Everything POST /api/hooks checks: fields, event, command, cwd, timeout.
        const auto parsed = m_hooks.parse(body, nullptr);
        if (!parsed)
            return at(where, parsed.error());
        if (!entry.agentName.isEmpty() && !refs.agentKnown(entry.agentName))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("%1: filter.agentName: no agent named '%2' in "
                                                 "the document or in this service")
                                      .arg(where, entry.agentName));
        entry.hook = *parsed;
        entry.areaRef = entry.hook.value(sk::Filter).toObject().value(k::AreaId).toString();
        if (!entry.areaRef.isEmpty() && !refs.areaKnown(entry.areaRef))
            // Kept as given, as the route keeps it: dropping it would widen the hook to every
            // area's agents.
            warnings.append(QStringLiteral("hook '%1': filter.areaId '%2' is neither in the "
                                           "document nor in this service; kept as given, the "
                                           "hook matches no agent here")
                                .arg(name, entry.areaRef));
        const QString folded = name.toCaseFolded();
        if (names.contains(folded))
            return Error::invalid(
                c::InvalidValue,
                QStringLiteral("%1: hook name '%2' appears twice").arg(where, name));
        names.insert(folded);
        pending->entries.append(entry);
    }
    return std::shared_ptr<PendingImport>(pending);
}

} // namespace flotilla
