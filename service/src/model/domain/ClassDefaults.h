#pragma once
// What agent creation asks of the classes and skills a user defined (shaping/ClassCatalog
// implements it, a floor up): the defaults an agent of a class gets for fields its create body
// leaves out, and which skill slugs exist. Every way an agent is created (POST /api/agents, a
// boss's spawn block, spawn_boss_agent, config import) goes through AgentRegistry::parseDraft,
// which applies both.

#include <QJsonObject>
#include <QStringList>

namespace flotilla {

class ClassDefaults {
public:
    virtual ~ClassDefaults() = default;
    // `body` with its class's defaults added where it has no value; unchanged for a class that
    // is not defined.
    virtual QJsonObject withDefaults(const QJsonObject &body) const = 0;
    // The slugs of `slugs` that name no skill.
    virtual QStringList unknownSkills(const QStringList &slugs) const = 0;
};

} // namespace flotilla
