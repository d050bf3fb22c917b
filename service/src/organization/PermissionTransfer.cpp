#include "organization/PermissionTransfer.h"

#include "domain/AgentRegistry.h"
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

Result<QList<RuleImport>> parseRuleImport(const QJsonValue &value,
                                          const QStringList &knownAgentNames,
                                          QStringList *warnings) {
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
        auto draft = parseRuleDraft(body);
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
    return out;
}

} // namespace flotilla
