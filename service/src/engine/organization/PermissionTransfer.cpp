#include "organization/PermissionTransfer.h"

#include "domain/AgentRegistry.h"
#include "organization/OrgLogging.h"
#include "permissions/RuleStore.h"
#include "protocol/OrganizationNames.h"
#include "protocol/PermissionNames.h"

#include <QJsonObject>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace pk = wire::permission::key;

namespace {
const QLatin1String kAgentName("agentName");
}

QJsonArray exportRules(const QList<PermissionRule> &rules, const AgentRegistry &agents) {
    QJsonArray out;
    for (const PermissionRule &r : rules) {
        QJsonObject json = r.toJson();
        json.remove(k::Id);
        json.remove(k::CreatedAt);
        json.remove(pk::Source);
        if (!r.scopeAgentId.isEmpty()) {
            const Agent *a = agents.find(r.scopeAgentId);
            if (!a)
                continue; // its agent is gone: the rule goes with it
            json.insert(pk::Scope, QJsonObject{{kAgentName, a->name}});
        }
        out.append(json);
    }
    return out;
}

Result<QList<RuleImport>> parseRuleImport(const QJsonValue &value, const AgentRegistry &agents,
                                          const QStringList &documentAgentNames,
                                          const RuleStore &store, QStringList *warnings) {
    QStringList knownAgentNames = documentAgentNames;
    for (const Agent &a : agents.agents())
        knownAgentNames.append(a.name);
    if (!value.isArray())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("categories.permissions must be an array"));
    const QJsonArray list = value.toArray();
    QList<RuleImport> out;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("categories.permissions[%1]").arg(i);
        if (!list.at(i).isObject())
            return Error::badRequest(c::WrongType, where + QStringLiteral(" must be an object"));
        QJsonObject body = list.at(i).toObject();
        QString agentName;
        QJsonObject scope = body.value(pk::Scope).toObject();
        if (scope.contains(kAgentName)) {
            if (!scope.value(kAgentName).isString() || scope.value(kAgentName).toString().isEmpty())
                return Error::badRequest(c::WrongType,
                                         where + QStringLiteral(".scope.agentName must be a "
                                                                "non-empty string"));
            agentName = scope.take(kAgentName).toString();
            if (!scope.isEmpty())
                return Error::invalid(c::InvalidValue,
                                      where + QStringLiteral(".scope takes one of agentName or "
                                                             "cwd"));
            body.insert(pk::Scope, scope);
        }
        if (scope.contains(k::AgentId))
            return Error::invalid(c::InvalidValue,
                                  where + QStringLiteral(".scope: name the agent (agentName); "
                                                         "agent ids are this service's own"));
        auto draft = parseRuleDraft(body, store.toolKinds());
        if (!draft)
            return Error{draft.error().kind, draft.error().code,
                         where + QStringLiteral(": ") + draft.error().message};
        if (!agentName.isEmpty() && !knownAgentNames.contains(agentName, Qt::CaseInsensitive)) {
            warnings->append(QStringLiteral("%1: no agent named '%2'; the rule was left out")
                                 .arg(where, agentName));
            continue;
        }
        out.append(RuleImport{*draft, agentName});
    }
    if (store.rules().size() + out.size() > RuleStore::kMaxRules)
        return Error::conflict(c::Conflict,
                               QStringLiteral("categories.permissions: at most %1 rules may exist")
                                   .arg(RuleStore::kMaxRules));
    return out;
}

Result<QStringList> importRules(const QList<RuleImport> &rules, const AgentRegistry &agents,
                                RuleStore &store) {
    if (rules.isEmpty())
        return QStringList();
    QList<PermissionRule> resolved;
    const QList<Agent> all = agents.agents();
    for (const RuleImport &imported : rules) {
        PermissionRule r = imported.rule;
        if (!imported.agentName.isEmpty()) {
            const auto it = std::find_if(all.cbegin(), all.cend(), [&](const Agent &a) {
                return a.name.compare(imported.agentName, Qt::CaseInsensitive) == 0;
            });
            if (it == all.cend())
                continue; // validated against the names there would be: cannot happen
            r.scopeAgentId = it->id;
        }
        resolved.append(r);
    }
    const auto added = store.addAll(resolved, QStringLiteral("import"));
    if (!added)
        return added.error();
    QStringList ids;
    for (const PermissionRule &r : *added)
        ids.append(r.id);
    return ids;
}

void removeImportedRules(const QStringList &ids, RuleStore &store) {
    for (const QString &id : ids) {
        if (Status e = store.remove(id))
            qCCritical(lcOrg).noquote()
                << "undoing import: rule could not be removed:" << e->message;
    }
}

} // namespace flotilla
