#pragma once
// Areas: named, coloured groups of agents (an agent points at its area through Agent::areaId).
// Stored one JSON row per area in the `areas` table (schema v3); every change is written before
// it is acknowledged, then announced by a signal the organization controller turns into events.
// This class only owns the area rows: clearing the agents' areaId on deletion is the caller's job
// (it goes through AgentRegistry, the one owner of agent state).

#include "base/Clock.h"
#include "base/Error.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <optional>

namespace flotilla {

class Database;

struct Area {
    QString id;
    QString name;
    QString color; // "#rrggbb"; empty means JSON null
    // Markdown every agent of the area reads after the global prompt (shaping/InstructionComposer).
    QString instructions;
    qint64 createdAt = 0;

    QJsonObject toJson() const;
    // Lenient decoder for stored rows; false only when id or name is missing.
    static bool fromJson(const QJsonObject &json, Area *out);
};

struct AreaDraft {
    QString name;  // trimmed, 1..kNameMax characters
    QString color; // empty: none
    QString instructions;
};

// PATCH /api/areas/:id: what the body names, the rest unchanged.
struct AreaPatch {
    std::optional<QString> name;
    std::optional<QString> color; // "" clears it
    std::optional<QString> instructions;
};

// Validates a POST /api/areas body (also each area of an imported config): `name` required,
// `color` optional ("#rrggbb" or null), any other field -> 422 naming it.
Result<AreaDraft> parseAreaDraft(const QJsonObject &body);
// Validates a PATCH /api/areas/:id body: name, color, instructions, each optional; the same rules.
Result<AreaPatch> parseAreaPatch(const QJsonObject &body);

class AreaStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AreaStore)
public:
    static constexpr int kNameMax = 100;
    // A UI shows every area at once; far more than this is a client bug, not an organisation.
    static constexpr int kMaxAreas = 500;

    AreaStore(Database &db, Clock clock, QObject *parent = nullptr);
    ~AreaStore() override;

    // Reads every stored area (creation order). Unreadable rows are skipped and logged.
    Status load();

    QList<Area> areas() const;
    const Area *find(const QString &id) const;
    int count() const { return int(m_order.size()); }
    // Conflicts the drafts would cause: names already taken (case-insensitively), by an existing
    // area or by an earlier draft of the same list.
    QStringList nameConflicts(const QList<AreaDraft> &drafts) const;

    Result<Area> create(const AreaDraft &draft);
    // All or nothing, in one transaction (config import). Emits areaCreated for each afterwards.
    Result<QList<Area>> createAll(const QList<AreaDraft> &drafts);
    // Changes an area (404, 409 for a name taken); announced by areaUpdated.
    Result<Area> update(const QString &id, const AreaPatch &patch);
    Status remove(const QString &id);
    // Deletes several areas in one transaction (undoing an import that failed later on).
    Status removeAll(const QStringList &ids);

Q_SIGNALS:
    void areaCreated(const flotilla::Area &area);
    void areaDeleted(const flotilla::Area &area);
    void areaUpdated(const flotilla::Area &area);

private:
    Status insertRows(const QList<Area> &areas);
    void forget(const QString &id);

    Database &m_db;
    Clock m_clock;
    QHash<QString, Area> m_areas;
    QHash<QString, QString> m_idByFoldedName; // names are unique case-insensitively
    QStringList m_order;                      // creation order
};

} // namespace flotilla
