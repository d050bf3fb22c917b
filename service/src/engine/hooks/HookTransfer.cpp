#include "hooks/HookTransfer.h"

#include "hooks/HookStore.h"
#include "hooks/HooksLogging.h"
#include "organization/TransferSupport.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"

#include <QSet>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace cat = wire::org::category;

using transfer::at;
using transfer::wrongType;

namespace {

// One hook of the document, checked: the stored form without id and times, its filter's agent
// and area still as the document names them.
struct HookEntry {
    QJsonObject hook;
    QString agentName; // filter.agentName; empty: none
    QString areaRef;   // filter.areaId; empty: none
};

// The rows of the checked hooks once their filters' agents and areas exist: new ids, created now.
Result<QList<CatalogStore::Item>> rowsOf(const QList<HookEntry> &entries, const ImportIds &ids,
                                         qint64 now) {
    QList<CatalogStore::Item> items;
    for (const HookEntry &e : entries) {
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
    }
    return items;
}

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
    const auto listed = transfer::arrayOf(given, cat::Hooks);
    if (!listed)
        return listed.error();
    const QJsonArray &list = *listed;
    // Hooks may share a name through the routes; an import that adds one again is a conflict, so
    // that importing a document twice does not run every hook twice.
    QList<HookEntry> entries;
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
            const auto agentName = transfer::takeAgentName(filter, where, sk::Filter);
            if (!agentName)
                return agentName.error();
            entry.agentName = *agentName;
            body.insert(sk::Filter, filter);
        }
        const QString name = body.value(k::Name_).toString();
        if (!name.isEmpty() && existing.contains(name.toCaseFolded())) {
            conflicts.append(transfer::conflict(cat::Hooks, name));
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
        entries.append(entry);
    }
    return transfer::pendingRows({cat::Hooks, entries.size(), QStringLiteral("hooks"), lcHooks},
                                 m_hooks.catalog(),
                                 [entries, clock = m_clock](const ImportIds &ids) {
                                     return rowsOf(entries, ids, clock.nowMs());
                                 });
}

} // namespace flotilla
