#include "buildings/BuildingTransfer.h"

#include "buildings/BuildingStore.h"
#include "buildings/BuildingsLogging.h"
#include "organization/TransferSupport.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"

#include <QDir>
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

// One building of the document, checked: its agent and area still as the document names them.
struct BuildingEntry {
    BuildingConfig config; // without id, agentId and areaId
    QString agentName;     // empty: none
    QString areaRef;       // a document area id or one of this service's; empty: none
};

// The rows of the checked buildings once their agents and areas exist: new ids, created now.
Result<QList<CatalogStore::Item>> rowsOf(const QList<BuildingEntry> &entries, const ImportIds &ids,
                                         qint64 now) {
    QList<CatalogStore::Item> items;
    for (const BuildingEntry &e : entries) {
        BuildingConfig b = e.config;
        b.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        if (!e.agentName.isEmpty()) {
            b.agentId = ids.agentId(e.agentName);
            // Validated against the agents there would be: only a caller's bug gets here.
            if (b.agentId.isEmpty())
                return Error::internal(c::Internal,
                                       QStringLiteral("categories.buildings: agent '%1' was not "
                                                      "created")
                                           .arg(e.agentName));
        }
        if (!e.areaRef.isEmpty())
            b.areaId = ids.areaId(e.areaRef);
        b.createdAt = now;
        b.updatedAt = now;
        items.append({b.id, b.toJson()});
    }
    return items;
}

} // namespace

BuildingTransfer::BuildingTransfer(BuildingStore &buildings, Clock clock)
    : m_buildings(buildings)
    , m_clock(std::move(clock)) {
}

BuildingTransfer::~BuildingTransfer() = default;

QStringList BuildingTransfer::categories() const {
    return {cat::Buildings};
}

QJsonValue BuildingTransfer::exportCategory(const QString &, const ExportRefs &refs) const {
    QJsonArray out;
    const QList<BuildingConfig> all = m_buildings.buildings();
    for (const BuildingConfig &b : all) {
        // What a user set up; state, pid and times are this service's.
        QJsonObject o = b.toJson();
        for (QLatin1String key : {k::Id, k::CreatedAt, sk::UpdatedAt, k::AgentId})
            o.remove(key);
        QJsonValue agent; // null: the building has its own cwd
        if (!b.agentId.isEmpty()) {
            const QString name = refs.agentName(b.agentId);
            if (name.isEmpty())
                continue; // its agent is gone, and the building goes with it
            agent = name;
        }
        o.insert(sk::AgentName, agent);
        out.append(o);
    }
    return out;
}

Result<std::shared_ptr<PendingImport>> BuildingTransfer::validate(const QJsonObject &given,
                                                                  const ImportRefs &refs,
                                                                  QJsonArray &conflicts,
                                                                  QStringList &warnings) const {
    const QString listWhere = QStringLiteral("categories.") + QString(cat::Buildings);
    const auto listed = transfer::arrayOf(given, cat::Buildings);
    if (!listed)
        return listed.error();
    const QJsonArray &list = *listed;
    if (m_buildings.count() + list.size() > BuildingStore::kMaxBuildings)
        return Error::conflict(wire::shaping::code::TooManyBuildings,
                               QStringLiteral("%1: at most %2 buildings may exist, %3 exist and "
                                              "the document adds %4")
                                   .arg(listWhere)
                                   .arg(BuildingStore::kMaxBuildings)
                                   .arg(m_buildings.count())
                                   .arg(list.size()));
    QList<BuildingEntry> entries;
    QSet<QString> existing, names;
    const QList<BuildingConfig> all = m_buildings.buildings();
    for (const BuildingConfig &b : all)
        existing.insert(b.name.toCaseFolded());
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("%1[%2]").arg(listWhere).arg(i);
        if (!list.at(i).isObject())
            return wrongType(where, QStringLiteral("an object"));
        QJsonObject body = list.at(i).toObject();
        const auto agentName = transfer::takeAgentName(body, where);
        if (!agentName)
            return agentName.error();
        BuildingEntry entry;
        entry.agentName = *agentName;
        const QJsonValue area = body.take(k::AreaId);
        if (!area.isUndefined() && !area.isNull() && !area.isString())
            return wrongType(where + QStringLiteral(".areaId"), QStringLiteral("a string or null"));
        entry.areaRef = area.toString();

        const QString folded = body.value(k::Name_).toString().trimmed().toCaseFolded();
        if (!folded.isEmpty() && existing.contains(folded)) {
            conflicts.append(
                transfer::conflict(cat::Buildings, body.value(k::Name_).toString().trimmed()));
            continue;
        }
        if (!entry.agentName.isEmpty()) {
            // The route's rule for a building with an agent, said before the stand-in below.
            if (!body.value(k::Cwd).isUndefined() && !body.value(k::Cwd).isNull())
                return Error::invalid(c::InvalidValue,
                                      QStringLiteral("%1: field 'cwd' must be null or absent when "
                                                     "'agentName' is set: the building runs in "
                                                     "its agent's directory")
                                          .arg(where));
            // The agent may be one of the document, not created yet: POST's checks run on the
            // rest of the body with a directory standing in for the agent's.
            body.insert(k::Cwd, QDir::rootPath());
        }
        // Everything POST /api/buildings checks: fields, limits, {{NAME}} secrets in env (the
        // document's own among them).
        const auto checked =
            m_buildings.check(body, BuildingCheck{sk::AgentName, refs.secretKnown});
        if (!checked)
            return at(where, checked.error());
        if (!entry.agentName.isEmpty() && !refs.agentKnown(entry.agentName))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("%1: no agent named '%2' in the document or in "
                                                 "this service")
                                      .arg(where, entry.agentName));
        entry.config = *checked;
        if (!entry.agentName.isEmpty())
            entry.config.cwd.clear();
        if (!entry.areaRef.isEmpty() && !refs.areaKnown(entry.areaRef)) {
            // As for agents: a buildings-only export keeps areaId, the area may not be part of it.
            warnings.append(QStringLiteral("building '%1': area '%2' is neither in the document "
                                           "nor in this service; imported without an area")
                                .arg(entry.config.name, entry.areaRef));
            entry.areaRef.clear();
        }
        const QString name = entry.config.name.toCaseFolded();
        if (names.contains(name))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("%1: building name '%2' appears twice")
                                      .arg(where, entry.config.name));
        names.insert(name);
        entries.append(entry);
    }
    return transfer::pendingRows(
        {cat::Buildings, entries.size(), QStringLiteral("buildings"), lcBuildings},
        m_buildings.catalog(), [entries, clock = m_clock](const ImportIds &ids) {
            return rowsOf(entries, ids, clock.nowMs());
        });
}

} // namespace flotilla
