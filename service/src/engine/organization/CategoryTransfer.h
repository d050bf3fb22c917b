#pragma once
// The seam through which a config category that a feature of its own holds (skills, classes,
// saved prompts, hooks, buildings, 3D models) takes part in config export and import, without
// ConfigTransfer knowing the feature. A transfer answers for one or more categories of the
// document; the composition root registers it (ConfigTransfer::addTransfer).
//
// Import is two steps as for the built-in categories: validate() checks everything and returns
// a PendingImport that holds the parsed items, nothing written; ConfigTransfer then applies the
// pending imports in order (skills and classes before the agents that name them, the rest after
// the agents and areas whose names they resolve) and undoes the applied ones, newest first, when
// a later step fails.
//
// Agents and areas are referred to by name and document id: ids are each service's own.

#include "base/Error.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <functional>
#include <memory>

namespace flotilla {

// What an export may look up about the agents it refers to.
struct ExportRefs {
    std::function<QString(const QString &agentId)> agentName; // empty: no such agent
};

// What an import may check its references against: the document's own agents, areas, skills
// and secrets, and this service's.
struct ImportRefs {
    std::function<bool(const QString &agentName)> agentKnown;
    std::function<bool(const QString &areaRef)> areaKnown; // a document area id or one of ours
    std::function<bool(const QString &skillSlug)> skillKnown;
    // A secret that a {{NAME}} names. The document's `secrets` count: they are written before the
    // transfers of Phase::AfterAgents (buildings), not before those of Phase::BeforeAgents.
    std::function<bool(const QString &name)> secretKnown;
};

// Where the references point once the agents and areas exist.
struct ImportIds {
    std::function<QString(const QString &agentName)> agentId;
    std::function<QString(const QString &areaRef)> areaId;
};

class PendingImport {
public:
    virtual ~PendingImport() = default;
    // {category: number of items} for the import summary.
    virtual QJsonObject counts() const = 0;
    // Writes everything (all or nothing); the error says what failed.
    virtual Status apply(const ImportIds &ids) = 0;
    // Removes what apply() wrote, when a later step of the import failed.
    virtual void undo() = 0;
};

class CategoryTransfer {
public:
    enum class Phase { BeforeAgents, AfterAgents };

    virtual ~CategoryTransfer() = default;
    virtual QStringList categories() const = 0;
    virtual Phase phase() const { return Phase::AfterAgents; }
    virtual QJsonValue exportCategory(const QString &category, const ExportRefs &refs) const = 0;
    // `given` holds the document's values of this transfer's categories that are present.
    // Refusals name where (e.g. "categories.skills[2]: ..."). A name that exists already is a
    // conflict ({category, name} appended to `conflicts`), not an error; `warnings` says what is
    // imported differently from the document.
    virtual Result<std::shared_ptr<PendingImport>> validate(const QJsonObject &given,
                                                            const ImportRefs &refs,
                                                            QJsonArray &conflicts,
                                                            QStringList &warnings) const = 0;
};

} // namespace flotilla
