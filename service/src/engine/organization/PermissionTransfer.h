#pragma once
// The `permissions` category of a config document: standing permission rules as
// [{tool, pattern, scope, decision}]. Ids, creation times and sources are this service's own and
// are not carried. A rule scoped to an agent names the agent (`scope: {agentName}`): agent ids
// differ between services, names are unique in each.

#include "base/Error.h"
#include "permissions/RuleMatcher.h"

#include <QJsonArray>
#include <QList>
#include <QStringList>

namespace flotilla {

class AgentRegistry;
class RuleStore;

struct RuleImport {
    PermissionRule rule;
    QString agentName; // scope {agentName}: resolved to an id when the import is applied
};

QJsonArray exportRules(const QList<PermissionRule> &rules, const AgentRegistry &agents);

// Each entry as POST /api/permission-rules takes it, with `scope.agentName` in place of
// `scope.agentId`, resolved against this service's agents and `documentAgentNames`; a rule for
// another agent is left out with a warning (it could never match). 409 past the store's limit.
Result<QList<RuleImport>> parseRuleImport(const QJsonValue &value, const AgentRegistry &agents,
                                          const QStringList &documentAgentNames,
                                          const RuleStore &store, QStringList *warnings);

// Stores the rules (after the agents were created), in one transaction; returns their ids.
Result<QStringList> importRules(const QList<RuleImport> &rules, const AgentRegistry &agents,
                                RuleStore &store);
// Undoes importRules() when a later step of the import fails.
void removeImportedRules(const QStringList &ids, RuleStore &store);

} // namespace flotilla
