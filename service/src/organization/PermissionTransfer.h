#pragma once
// The `permissions` category of a config document: standing permission rules as
// [{tool, pattern, scope, decision}]. Ids, creation times and sources are this service's own and
// are not carried. A rule scoped to an agent names the agent (`scope: {agentName}`): agent ids
// differ between services, names are unique in each.

#include "domain/Error.h"
#include "permissions/RuleMatcher.h"

#include <QJsonArray>
#include <QList>
#include <QStringList>

namespace flotilla {

class AgentRegistry;

struct RuleImport {
    PermissionRule rule;
    QString agentName; // scope {agentName}: resolved to an id when the import is applied
};

QJsonArray exportRules(const QList<PermissionRule> &rules, const AgentRegistry &agents);

// Each entry as POST /api/permission-rules takes it, with `scope.agentName` in place of
// `scope.agentId`. `knownAgentNames`: the agents there will be (this service's and the
// document's); a rule for another agent is left out with a warning (it could never match).
Result<QList<RuleImport>>
parseRuleImport(const QJsonValue &value, const QStringList &knownAgentNames, QStringList *warnings);

} // namespace flotilla
