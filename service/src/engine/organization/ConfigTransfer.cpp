// ConfigTransfer, part one: the categories, export, and writing a validated import (apply, its
// undo, the summary). What an import accepts is ConfigValidation.cpp's.

#include "organization/ConfigTransfer.h"

#include "domain/AgentRegistry.h"
#include "domain/SystemPromptStore.h"
#include "organization/ActivityLog.h"
#include "organization/OrgLogging.h"
#include "permissions/RuleStore.h"
#include "protocol/HostNames.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WorktreeNames.h"

#include <QDir>

namespace flotilla {

namespace k = wire::key;
namespace ok = wire::org::key;
namespace cat = wire::org::category;
namespace wk = wire::worktree::key;
namespace sk = wire::shaping::key;

namespace {

QStringList secretNames(const ImportPlan &plan) {
    QStringList names;
    for (const SecretStore::NamedValue &s : plan.secrets)
        names.append(s.name);
    return names;
}

} // namespace

ConfigTransfer::ConfigTransfer(AgentRegistry &agents, AreaStore &areas, SystemPromptStore &prompt,
                               SecretStore &secrets, ActivityLog &activity, RuleStore &rules,
                               Clock clock)
    : m_agents(agents)
    , m_areas(areas)
    , m_prompt(prompt)
    , m_secrets(secrets)
    , m_activity(activity)
    , m_rules(rules)
    , m_clock(std::move(clock)) {
}

const QStringList &ConfigTransfer::allCategories() {
    // The spec's order (GET /api/config/categories).
    static const QStringList list{cat::Agents,       cat::Areas,          cat::Buildings,
                                  cat::Skills,       cat::CustomClasses,  cat::ClassInstructions,
                                  cat::AgentPrompts, cat::Custom3dModels, cat::CustomClassIcons,
                                  cat::Hooks,        cat::Permissions,    cat::SystemSettings};
    return list;
}

QStringList ConfigTransfer::supportedCategories() const {
    QStringList list{cat::Agents, cat::Areas, cat::Permissions, cat::SystemSettings};
    for (const CategoryTransfer *t : m_transfers)
        list << t->categories();
    return list;
}

void ConfigTransfer::addTransfer(const CategoryTransfer &transfer) {
    m_transfers.append(&transfer);
}

void ConfigTransfer::setSkillLookup(std::function<bool(const QString &)> known) {
    m_skillKnown = std::move(known);
}

const CategoryTransfer *ConfigTransfer::transferFor(const QString &category) const {
    for (const CategoryTransfer *t : m_transfers) {
        if (t->categories().contains(category))
            return t;
    }
    return nullptr;
}

QJsonObject ConfigTransfer::exportDocument(const QStringList &categories,
                                           bool includeSecrets) const {
    QJsonObject out;
    for (const QString &name : categories) {
        if (name == cat::Agents) {
            QJsonArray agents;
            const QList<Agent> all = m_agents.agents();
            for (const Agent &a : all) {
                // What a user chose, not what the agent is doing: no status, session, tokens.
                QJsonObject agent{
                    {k::Name_, a.name},
                    {k::Class, a.agentClass},
                    {k::Cwd, a.cwd},
                    {k::Provider, a.provider},
                    {k::Model, a.model},
                    {k::TaskLabel, a.taskLabel},
                    {k::TrackingStatus,
                     a.trackingStatus.isEmpty() ? QJsonValue() : QJsonValue(a.trackingStatus)},
                    {k::TrackingStatusDetail, a.trackingStatusDetail},
                    {k::AreaId, a.areaId.isEmpty() ? QJsonValue() : QJsonValue(a.areaId)},
                    {sk::CustomInstructions, a.customInstructions},
                    {sk::Skills, QJsonArray::fromStringList(a.skills)},
                    // By name: the hosts themselves are not exported (docs/api.md "Config
                    // export and import"); an import needs a host of that name.
                    {wire::host::key::Host, a.host.isEmpty() ? QString(wire::host::Local) : a.host},
                };
                if (a.worktree.isSet()) {
                    // As it was asked for: the place in the repository, and a worktree to make
                    // there on import (its branch taken already: -2, never the same one).
                    agent.insert(k::Cwd,
                                 QDir::cleanPath(a.worktree.repo + QLatin1Char('/') +
                                                 QDir(a.worktree.path).relativeFilePath(a.cwd)));
                    agent.insert(wk::Worktree, QJsonObject{{wk::BaseRef, a.worktree.baseRef},
                                                           {wk::Branch, a.worktree.branch}});
                }
                agents.append(agent);
            }
            out.insert(name, agents);
        } else if (name == cat::Areas) {
            QJsonArray areas;
            const QList<Area> all = m_areas.areas();
            for (const Area &a : all) {
                areas.append(
                    QJsonObject{{k::Id, a.id},
                                {k::Name_, a.name},
                                {ok::Color, a.color.isEmpty() ? QJsonValue() : QJsonValue(a.color)},
                                {sk::Instructions, a.instructions}});
            }
            out.insert(name, areas);
        } else if (name == cat::SystemSettings) {
            out.insert(name, QJsonObject{{k::Prompt, m_prompt.prompt()}});
        } else if (name == cat::Permissions) {
            out.insert(name, exportRules(m_rules.rules(), m_agents));
        } else if (const CategoryTransfer *t = transferFor(name)) {
            const ExportRefs refs{[this](const QString &id) {
                const Agent *a = m_agents.find(id);
                return a ? a->name : QString();
            }};
            out.insert(name, t->exportCategory(name, refs));
        } else {
            out.insert(name, QJsonArray()); // a category Flotilla has no data for
        }
    }
    QJsonObject doc{
        {k::Version, kFormatVersion}, {ok::ExportedAt, m_clock.nowMs()}, {ok::Categories, out}};
    if (includeSecrets) {
        doc.insert(ok::Secrets, m_secrets.exportValues());
        qCInfo(lcOrg).noquote() << "config export includes" << m_secrets.count() << "secret(s)";
    }
    return doc;
}

// Order matters for all-or-nothing: areas (one transaction), then agents (the registry writes
// each in its own transaction), then their labels and area in one flush, the secrets file (one
// atomic write) and the prompt file last, only once every database write has committed. A failure
// at any step removes what the earlier steps created. What this cannot cover: the service dying
// mid-way (the agents created so far stay), and clients seeing agent_created then agent_deleted for
// an undone import. True single-transaction import needs a batch create in AgentRegistry.
Result<QJsonObject> ConfigTransfer::apply(const ImportPlan &plan) {
    QStringList agentIds, areaIds;
    QHash<QString, QString> areaIdByRef;
    QJsonArray agentsOut, areasOut;
    // Applied transfers, newest last: a failure undoes them newest first.
    std::vector<PendingImport *> applied;
    const auto undoTransfers = [&applied] {
        for (auto it = applied.rbegin(); it != applied.rend(); ++it)
            (*it)->undo();
    };
    const ImportIds ids{[this](const QString &name) {
                            const Agent *a = m_agents.findByName(name);
                            return a ? a->id : QString();
                        },
                        [&areaIdByRef](const QString &ref) { return areaIdByRef.value(ref, ref); }};
    for (const auto &pending : plan.beforeAgents) {
        if (Status e = pending->apply(ids)) {
            undoTransfers();
            return Error::internal(e->code,
                                   QStringLiteral("import failed and was undone: ") + e->message);
        }
        applied.push_back(pending.get());
    }
    if (!plan.areas.isEmpty()) {
        const auto created = m_areas.createAll(plan.areas);
        if (!created) {
            undoTransfers();
            return created.error();
        }
        for (qsizetype i = 0; i < created->size(); ++i) {
            const Area &a = created->at(i);
            areaIds.append(a.id);
            areasOut.append(QJsonObject{{k::Id, a.id}, {k::Name_, a.name}});
            if (!plan.areaRefs.at(i).isEmpty())
                areaIdByRef.insert(plan.areaRefs.at(i), a.id);
        }
    }
    auto fail = [&](const Error &e) -> Error {
        undoTransfers();
        undo(agentIds, areaIds);
        qCWarning(lcOrg).noquote() << "config import failed and was undone:" << e.message;
        return Error::internal(e.code,
                               QStringLiteral("import failed and was undone: ") + e.message);
    };
    for (const ImportPlan::AgentEntry &entry : plan.agents) {
        const auto created = m_agents.create(entry.draft);
        if (!created)
            return fail(created.error());
        agentIds.append(created->id);
        agentsOut.append(QJsonObject{{k::Id, created->id}, {k::Name_, created->name}});
    }
    for (qsizetype i = 0; i < plan.agents.size(); ++i) {
        const ImportPlan::AgentEntry &entry = plan.agents.at(i);
        const QString areaId = areaIdByRef.value(entry.areaRef, entry.areaRef);
        m_agents.updateRuntime(agentIds.at(i), [&entry, &areaId](Agent &a) {
            if (entry.labels.taskLabel)
                a.taskLabel = *entry.labels.taskLabel;
            if (entry.labels.trackingStatus)
                a.trackingStatus = *entry.labels.trackingStatus;
            if (entry.labels.trackingStatusDetail)
                a.trackingStatusDetail = *entry.labels.trackingStatusDetail;
            a.areaId = areaId;
        });
    }
    if (Status e = m_agents.flush())
        return fail(*e);
    const auto ruleIds = importRules(plan.rules, m_agents, m_rules);
    if (!ruleIds)
        return fail(ruleIds.error());
    const auto removeRules = [this, &ruleIds] { removeImportedRules(*ruleIds, m_rules); };
    if (!plan.secrets.isEmpty()) {
        if (Status e = m_secrets.addAll(plan.secrets)) { // one atomic file write
            removeRules();
            return fail(*e);
        }
    }
    for (const auto &pending : plan.afterAgents) {
        if (Status e = pending->apply(ids)) {
            removeRules();
            if (Status undone = m_secrets.removeAll(secretNames(plan)))
                qCCritical(lcOrg).noquote()
                    << "undoing import: secrets could not be removed:" << undone->message;
            return fail(*e);
        }
        applied.push_back(pending.get());
    }
    if (plan.prompt) {
        if (Status e = m_prompt.setPrompt(*plan.prompt)) {
            if (Status undone = m_secrets.removeAll(secretNames(plan)))
                qCCritical(lcOrg).noquote()
                    << "undoing import: secrets could not be removed:" << undone->message;
            removeRules();
            return fail(*e);
        }
    }

    QStringList parts{QStringLiteral("%1 agent(s)").arg(agentIds.size()),
                      QStringLiteral("%1 area(s)").arg(areaIds.size())};
    if (!plan.secrets.isEmpty())
        parts.append(QStringLiteral("%1 secret(s)").arg(plan.secrets.size()));
    if (plan.prompt)
        parts.append(QStringLiteral("the system prompt"));
    if (!plan.rules.isEmpty())
        parts.append(QStringLiteral("%1 permission rule(s)").arg(plan.rules.size()));
    for (const auto *list : {&plan.beforeAgents, &plan.afterAgents}) {
        for (const auto &pending : *list) {
            const QJsonObject counts = pending->counts();
            for (auto it = counts.constBegin(); it != counts.constEnd(); ++it) {
                if (it.value().toInt() > 0)
                    parts.append(QStringLiteral("%1 %2").arg(it.value().toInt()).arg(it.key()));
            }
        }
    }
    m_activity.record(wire::org::activity::ConfigImported,
                      QStringLiteral("Imported ") + parts.join(QStringLiteral(", ")));
    qCInfo(lcOrg).noquote() << "config imported:" << parts.join(QStringLiteral(", "));
    return summary(plan, false, agentsOut, areasOut);
}

void ConfigTransfer::undo(const QStringList &agentIds, const QStringList &areaIds) {
    for (const QString &id : agentIds) {
        // Worktrees and branches made by this import go with it.
        if (Status e = m_agents.remove(id, WorktreeRemoval{true, true}))
            qCCritical(lcOrg).noquote()
                << "undoing import: agent" << id << "could not be removed:" << e->message;
    }
    if (Status e = m_areas.removeAll(areaIds))
        qCCritical(lcOrg).noquote() << "undoing import: areas could not be removed:" << e->message;
}

QJsonObject ConfigTransfer::summary(const ImportPlan &plan, bool dryRun,
                                    const QJsonArray &agentsCreated,
                                    const QJsonArray &areasCreated) {
    QJsonArray agents = agentsCreated, areas = areasCreated;
    if (dryRun) {
        // What would be created; ids are assigned only by a real import.
        for (const ImportPlan::AgentEntry &e : plan.agents)
            agents.append(QJsonObject{{k::Id, QJsonValue()}, {k::Name_, e.draft.name}});
        for (const AreaDraft &a : plan.areas)
            areas.append(QJsonObject{{k::Id, QJsonValue()}, {k::Name_, a.name}});
    }
    QJsonObject imported{{cat::Agents, plan.agents.size()},
                         {cat::Areas, plan.areas.size()},
                         {cat::SystemSettings, plan.prompt ? 1 : 0},
                         {cat::Permissions, plan.rules.size()},
                         {ok::Secrets, plan.secrets.size()}};
    for (const auto *list : {&plan.beforeAgents, &plan.afterAgents}) {
        for (const auto &pending : *list) {
            const QJsonObject counts = pending->counts();
            for (auto it = counts.constBegin(); it != counts.constEnd(); ++it)
                imported.insert(it.key(), it.value());
        }
    }
    return QJsonObject{
        {k::Success, true},
        {ok::DryRun, dryRun},
        {ok::Imported, imported},
        {ok::Agents, agents},
        {ok::Areas, areas},
        {ok::Skipped, QJsonArray::fromStringList(plan.skipped)},
        {k::Warnings, QJsonArray::fromStringList(plan.warnings)},
    };
}

} // namespace flotilla
