// ConfigTransfer, part two: what an export and an import accept. The categories of an export's
// query, and the import document checked whole (shapes, values, references, conflicts) into an
// ImportPlan without touching anything; writing the plan is ConfigTransfer.cpp's.

#include "organization/ConfigTransfer.h"

#include "domain/AgentRegistry.h"
#include "domain/SystemPromptStore.h"
#include "organization/SecretTransfer.h"
#include "organization/TransferSupport.h"
#include "permissions/RuleStore.h"
#include "protocol/HostNames.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WorktreeNames.h"

#include <QSet>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace ok = wire::org::key;
namespace oc = wire::org::code;
namespace cat = wire::org::category;
namespace wk = wire::worktree::key;
namespace sk = wire::shaping::key;

using transfer::at;
using transfer::wrongType;

namespace {

Status rejectUnknownKeys(const QJsonObject &o, const QStringList &allowed, const QString &where) {
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            return Error::invalid(c::UnknownField,
                                  QStringLiteral("%1: unknown field '%2'; allowed: %3")
                                      .arg(where, it.key(), allowed.join(QStringLiteral(", "))));
    }
    return std::nullopt;
}

QJsonObject pick(const QJsonObject &o, const QStringList &keys) {
    QJsonObject out;
    for (const QString &key : keys) {
        if (o.contains(key))
            out.insert(key, o.value(key));
    }
    return out;
}

bool isEmptyValue(const QJsonValue &v) {
    return v.isNull() || (v.isArray() && v.toArray().isEmpty()) ||
           (v.isObject() && v.toObject().isEmpty());
}

const QStringList kCreateKeys{QString(k::Name_),
                              QString(k::Class),
                              QString(k::Cwd),
                              QString(k::Provider),
                              QString(k::Model),
                              QString(wk::Worktree),
                              QString(sk::CustomInstructions),
                              QString(sk::Skills),
                              QString(wire::host::key::Host)};
const QStringList kLabelKeys{QString(k::TaskLabel), QString(k::TrackingStatus),
                             QString(k::TrackingStatusDetail)};

// The one refusal for category names Flotilla does not know, in export and import alike.
Error unknownCategories(const QStringList &unknown) {
    return Error::invalid(
        oc::UnknownCategory,
        QStringLiteral("unknown categor%1 '%2'; known: %3")
            .arg(unknown.size() == 1 ? QStringLiteral("y") : QStringLiteral("ies"),
                 unknown.join(QStringLiteral("', '")),
                 ConfigTransfer::allCategories().join(QStringLiteral(", "))));
}

} // namespace

Result<QStringList> ConfigTransfer::parseCategories(const QString &csv, bool present) const {
    if (!present)
        return supportedCategories();
    QStringList names, unknown;
    const QStringList parts = csv.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        const QString name = part.trimmed();
        if (name.isEmpty() || names.contains(name))
            continue;
        if (!allCategories().contains(name))
            unknown.append(name);
        names.append(name);
    }
    if (!unknown.isEmpty())
        return unknownCategories(unknown);
    if (names.isEmpty())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("query parameter 'categories' names no category"));
    return names;
}

// The registered transfers' categories, with references resolved against the document's agents,
// areas, skills and secrets and this service's; then the agents' own skills, which may name a
// skill of the document.
Status ConfigTransfer::validateTransfers(const QJsonObject &categories, ImportPlan &plan) const {
    QSet<QString> docAgents, docSkills, docSecrets;
    for (const ImportPlan::AgentEntry &e : std::as_const(plan.agents))
        docAgents.insert(e.draft.name.toCaseFolded());
    for (const SecretStore::NamedValue &secret : std::as_const(plan.secrets))
        docSecrets.insert(secret.name);
    const QJsonArray skills = categories.value(cat::Skills).toArray();
    for (const QJsonValue &skill : skills)
        docSkills.insert(skill.toObject().value(sk::Slug).toString());
    const ImportRefs refs{
        [this, &docAgents](const QString &name) {
            return docAgents.contains(name.toCaseFolded()) || m_agents.findByName(name);
        },
        [this, &plan](const QString &ref) {
            return plan.areaRefs.contains(ref) || m_areas.find(ref) != nullptr;
        },
        [this, &docSkills](const QString &slug) {
            return docSkills.contains(slug) || (m_skillKnown && m_skillKnown(slug));
        },
        [this, &docSecrets](const QString &name) {
            return docSecrets.contains(name) || m_secrets.contains(name);
        }};
    for (const CategoryTransfer *t : m_transfers) {
        QJsonObject given;
        const QStringList names = t->categories();
        for (const QString &name : names) {
            if (categories.contains(name))
                given.insert(name, categories.value(name));
        }
        if (given.isEmpty())
            continue;
        auto pending = t->validate(given, refs, plan.conflicts, plan.warnings);
        if (!pending)
            return pending.error();
        (t->phase() == CategoryTransfer::Phase::BeforeAgents ? plan.beforeAgents : plan.afterAgents)
            .push_back(*pending);
    }
    for (qsizetype i = 0; i < plan.agents.size(); ++i) {
        for (const QString &slug : std::as_const(plan.agents.at(i).draft.skills)) {
            if (!refs.skillKnown(slug))
                return Error::invalid(
                    wire::shaping::code::UnknownSkill,
                    QStringLiteral("categories.agents[%1]: no skill '%2' in the document or in "
                                   "this service")
                        .arg(i)
                        .arg(slug));
        }
    }
    return std::nullopt;
}

Result<ImportPlan> ConfigTransfer::validate(const QJsonObject &doc) const {
    if (Status e = rejectUnknownKeys(doc, {k::Version, ok::ExportedAt, ok::Categories, ok::Secrets},
                                     QStringLiteral("document")))
        return *e;
    for (QLatin1String required : {k::Version, ok::Categories}) {
        if (!doc.contains(required))
            return Error::badRequest(c::MissingField,
                                     QStringLiteral("field '%1' is required").arg(required));
    }
    const QJsonValue version = doc.value(k::Version);
    if (!version.isDouble() || version.toDouble() != double(version.toInteger()))
        return wrongType(QStringLiteral("field 'version'"), QStringLiteral("an integer"));
    if (version.toInteger() != kFormatVersion)
        return Error::invalid(oc::UnsupportedVersion,
                              QStringLiteral("document version %1 is not supported; this "
                                             "flotillad reads version %2")
                                  .arg(version.toInteger())
                                  .arg(kFormatVersion));
    if (doc.contains(ok::ExportedAt) && !doc.value(ok::ExportedAt).isDouble())
        return wrongType(QStringLiteral("field 'exportedAt'"), QStringLiteral("a number"));
    if (!doc.value(ok::Categories).isObject())
        return wrongType(QStringLiteral("field 'categories'"), QStringLiteral("an object"));

    const QJsonObject categories = doc.value(ok::Categories).toObject();
    QStringList unknown;
    for (auto it = categories.constBegin(); it != categories.constEnd(); ++it) {
        if (!allCategories().contains(it.key()))
            unknown.append(it.key());
    }
    if (!unknown.isEmpty())
        return unknownCategories(unknown);

    ImportPlan plan;
    for (auto it = categories.constBegin(); it != categories.constEnd(); ++it) {
        if (supportedCategories().contains(it.key()))
            continue;
        // Refusing beats dropping: all or nothing means nothing silently lost.
        if (!isEmptyValue(it.value()))
            return Error::invalid(oc::UnsupportedCategory,
                                  QStringLiteral("category '%1' holds data, but Flotilla has no "
                                                 "%1; remove it or leave it empty")
                                      .arg(it.key()));
        plan.skipped.append(it.key());
    }
    if (categories.contains(cat::Areas)) {
        if (Status e = validateAreas(categories.value(cat::Areas), plan))
            return *e;
    }
    if (categories.contains(cat::Agents)) {
        if (Status e = validateAgents(categories.value(cat::Agents), plan.areaRefs, plan))
            return *e;
    }
    // Before the transfers, which may name a secret the document brings (a building's env).
    if (doc.contains(ok::Secrets)) {
        auto secrets = parseSecretImport(doc.value(ok::Secrets), m_secrets);
        if (!secrets)
            return secrets.error();
        plan.secrets = std::move(secrets.value().secrets);
        for (const QJsonValue &conflict : std::as_const(secrets->conflicts))
            plan.conflicts.append(conflict);
    }
    if (Status e = validateTransfers(categories, plan))
        return *e;
    if (categories.contains(cat::SystemSettings)) {
        if (Status e = validateSettings(categories.value(cat::SystemSettings), plan))
            return *e;
    }
    if (categories.contains(cat::Permissions)) {
        QStringList names;
        for (const ImportPlan::AgentEntry &e : std::as_const(plan.agents))
            names.append(e.draft.name);
        auto rules = parseRuleImport(categories.value(cat::Permissions), m_agents, names, m_rules,
                                     &plan.warnings);
        if (!rules)
            return rules.error();
        plan.rules = *rules;
    }
    return plan;
}

Status ConfigTransfer::validateAreas(const QJsonValue &value, ImportPlan &plan) const {
    if (!value.isArray())
        return wrongType(QStringLiteral("categories.areas"), QStringLiteral("an array"));
    const QJsonArray list = value.toArray();
    if (m_areas.count() + list.size() > AreaStore::kMaxAreas)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("categories.areas: at most %1 areas may exist, "
                                             "%2 exist and the document adds %3")
                                  .arg(AreaStore::kMaxAreas)
                                  .arg(m_areas.count())
                                  .arg(list.size()));
    QSet<QString> names;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("categories.areas[%1]").arg(i);
        if (!list.at(i).isObject())
            return wrongType(where, QStringLiteral("an object"));
        QJsonObject o = list.at(i).toObject();
        const QJsonValue id = o.take(k::Id);
        if (!id.isUndefined() && !id.isNull() && (!id.isString() || id.toString().isEmpty()))
            return wrongType(where + QStringLiteral(".id"), QStringLiteral("a non-empty string"));
        const QString ref = id.toString();
        if (!ref.isEmpty() && plan.areaRefs.contains(ref))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("%1: id '%2' appears twice").arg(where, ref));
        const auto draft = parseAreaDraft(o);
        if (!draft)
            return at(where, draft.error());
        const QString folded = draft->name.toCaseFolded();
        if (names.contains(folded))
            return Error::invalid(
                c::InvalidValue,
                QStringLiteral("%1: area name '%2' appears twice").arg(where, draft->name));
        names.insert(folded);
        if (!m_areas.nameConflicts({*draft}).isEmpty())
            plan.conflicts.append(transfer::conflict(cat::Areas, draft->name));
        plan.areas.append(*draft);
        plan.areaRefs.append(ref);
    }
    return std::nullopt;
}

Status ConfigTransfer::validateAgents(const QJsonValue &value, const QStringList &docAreaIds,
                                      ImportPlan &plan) const {
    if (!value.isArray())
        return wrongType(QStringLiteral("categories.agents"), QStringLiteral("an array"));
    const QJsonArray list = value.toArray();
    if (list.size() > kMaxImportAgents)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("categories.agents: at most %1 agents per import")
                                  .arg(kMaxImportAgents));
    QSet<QString> existing, names;
    const QList<Agent> all = m_agents.agents();
    for (const Agent &a : all)
        existing.insert(a.name.toCaseFolded());
    const QStringList allowed = kCreateKeys + kLabelKeys + QStringList{QString(k::AreaId)};
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("categories.agents[%1]").arg(i);
        if (!list.at(i).isObject())
            return wrongType(where, QStringLiteral("an object"));
        const QJsonObject o = list.at(i).toObject();
        if (Status e = rejectUnknownKeys(o, allowed, where))
            return e;
        ImportPlan::AgentEntry entry;
        // The same parsers as POST /api/agents and PATCH: an import accepts nothing they refuse.
        const auto draft = m_agents.parseDraft(pick(o, kCreateKeys), false);
        if (!draft)
            return at(where, draft.error());
        if (Status e = m_agents.checkDraft(*draft)) // its cwd; a repository, a base that resolves
            return at(where, *e);
        const auto labels = parseAgentPatch(pick(o, kLabelKeys));
        if (!labels)
            return at(where, labels.error());
        entry.draft = *draft;
        entry.labels = *labels;
        const QJsonValue area = o.value(k::AreaId);
        if (!area.isUndefined() && !area.isNull() && !area.isString())
            return wrongType(where + QStringLiteral(".areaId"), QStringLiteral("a string or null"));
        entry.areaRef = area.toString();
        if (!entry.areaRef.isEmpty() && !docAreaIds.contains(entry.areaRef) &&
            !m_areas.find(entry.areaRef)) {
            // An agents-only export keeps areaId; the area may simply not be part of it.
            plan.warnings.append(
                QStringLiteral("agent '%1': area '%2' is neither in the document nor in this "
                               "service; imported without an area")
                    .arg(entry.draft.name, entry.areaRef));
            entry.areaRef.clear();
        }
        const QString folded = entry.draft.name.toCaseFolded();
        if (names.contains(folded))
            return Error::invalid(
                c::InvalidValue,
                QStringLiteral("%1: agent name '%2' appears twice").arg(where, entry.draft.name));
        names.insert(folded);
        if (existing.contains(folded))
            plan.conflicts.append(transfer::conflict(cat::Agents, entry.draft.name));
        plan.agents.append(entry);
    }
    return std::nullopt;
}

Status ConfigTransfer::validateSettings(const QJsonValue &value, ImportPlan &plan) const {
    const QString where = QStringLiteral("categories.system-settings");
    if (!value.isObject())
        return wrongType(where, QStringLiteral("an object"));
    const QJsonObject o = value.toObject();
    if (Status e = rejectUnknownKeys(o, {k::Prompt}, where))
        return e;
    if (!o.contains(k::Prompt))
        return Error::badRequest(c::MissingField,
                                 QStringLiteral("%1: field 'prompt' is required").arg(where));
    if (!o.value(k::Prompt).isString())
        return wrongType(where + QStringLiteral(".prompt"), QStringLiteral("a string"));
    const QString prompt = o.value(k::Prompt).toString();
    if (prompt.size() > SystemPromptStore::kMaxChars)
        return Error::invalid(c::InvalidValue, QStringLiteral("%1: prompt is longer than %2 "
                                                              "characters")
                                                   .arg(where)
                                                   .arg(SystemPromptStore::kMaxChars));
    plan.prompt = prompt;
    return std::nullopt;
}

} // namespace flotilla
