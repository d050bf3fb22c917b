#pragma once
// Config export and import: one JSON document {version, exportedAt, categories: {...}} that
// carries what a user set up (agents' create fields and labels, areas, the global system prompt),
// never runtime state (status, sessions, token counts); secrets only when asked for (a top-level
// "secrets" array, see SecretTransfer.h).
//
// Import is two steps so a refusal never leaves a trace: validate() checks the whole document
// (shapes, values, cwd directories, name uniqueness, conflicts with what exists) without touching
// anything; apply() then writes it, undoing what it wrote if a later step fails. The validation
// is in ConfigValidation.cpp, export and apply in ConfigTransfer.cpp.

#include "base/Clock.h"
#include "base/Error.h"
#include "domain/AgentValidation.h"
#include "exec/SecretStore.h"
#include "organization/AreaStore.h"
#include "organization/CategoryTransfer.h"
#include "organization/PermissionTransfer.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace flotilla {

class ActivityLog;
class AgentRegistry;
class RuleStore;
class SystemPromptStore;

// A validated import document, nothing applied yet.
struct ImportPlan {
    struct AgentEntry {
        AgentDraft draft;
        AgentPatch labels; // taskLabel, trackingStatus, trackingStatusDetail
        QString areaRef;   // an area id of the document, or of this service; empty: none
    };
    QList<AreaDraft> areas;
    QStringList areaRefs; // document id of each area (may be empty), parallel to `areas`
    QList<AgentEntry> agents;
    std::optional<QString> prompt;
    QList<RuleImport> rules; // the permissions category
    QList<SecretStore::NamedValue> secrets;
    // The registered transfers' parsed categories, in the order they are applied.
    std::vector<std::shared_ptr<PendingImport>> beforeAgents, afterAgents;
    QStringList skipped;  // categories present but empty, that Flotilla has no data for
    QStringList warnings; // what is imported differently from the document
    QJsonArray conflicts; // [{category, name}] clashing with existing state: 409, nothing applied
};

class ConfigTransfer final {
    Q_DISABLE_COPY_MOVE(ConfigTransfer)
public:
    static constexpr int kFormatVersion = 1;
    // Each agent costs one durable write on import; a document with more is not a config.
    static constexpr int kMaxImportAgents = 500;
    // The body limit of POST /api/config/import (the general one is 1 MiB).
    static constexpr qint64 kImportBodyBytes = 32 * 1024 * 1024;

    ConfigTransfer(AgentRegistry &agents, AreaStore &areas, SystemPromptStore &prompt,
                   SecretStore &secrets, ActivityLog &activity, RuleStore &rules, Clock clock);

    // The twelve names of GET /api/config/categories, and the ones Flotilla holds data for.
    static const QStringList &allCategories();
    QStringList supportedCategories() const;
    // "agents,areas" -> names; absent -> the supported ones; unknown or empty -> 422.
    Result<QStringList> parseCategories(const QString &csv, bool present) const;
    // A feature's categories (CategoryTransfer.h); `transfer` outlives this object.
    void addTransfer(const CategoryTransfer &transfer);
    // Whether this service has a skill of that slug (agents' `skills` on import).
    void setSkillLookup(std::function<bool(const QString &slug)> known);

    // includeSecrets adds the top-level "secrets": [{name, value}] (every stored secret).
    QJsonObject exportDocument(const QStringList &categories, bool includeSecrets = false) const;

    Result<ImportPlan> validate(const QJsonObject &document) const;
    // Writes a validated plan (all or nothing, see the .cpp) and returns the summary.
    Result<QJsonObject> apply(const ImportPlan &plan);
    static QJsonObject summary(const ImportPlan &plan, bool dryRun,
                               const QJsonArray &agentsCreated = {},
                               const QJsonArray &areasCreated = {});

private:
    Status validateAgents(const QJsonValue &value, const QStringList &docAreaIds,
                          ImportPlan &plan) const;
    Status validateAreas(const QJsonValue &value, ImportPlan &plan) const;
    Status validateSettings(const QJsonValue &value, ImportPlan &plan) const;
    void undo(const QStringList &agentIds, const QStringList &areaIds);
    const CategoryTransfer *transferFor(const QString &category) const;
    Status validateTransfers(const QJsonObject &categories, ImportPlan &plan) const;

    AgentRegistry &m_agents;
    AreaStore &m_areas;
    SystemPromptStore &m_prompt;
    SecretStore &m_secrets;
    ActivityLog &m_activity;
    RuleStore &m_rules;
    Clock m_clock;
    QList<const CategoryTransfer *> m_transfers;
    std::function<bool(const QString &)> m_skillKnown;
};

} // namespace flotilla
