#pragma once
// What each agent is told and given, composed from everything that shapes it (AgentShaper):
//   instructions: the global system prompt, the agent's area's instructions, its class's
//   instructions, its own customInstructions, in that order (broadest first, so the most
//   specific is read last); boss context comes in the boss's messages themselves;
//   skills: its class's, then its own, each once, those that exist and are enabled, written
//   where its CLI reads them (SkillMaterializer);
//   tools: its class's allowedTools and disallowedTools.

#include "agents/AgentShaper.h"
#include "shaping/SkillMaterializer.h"

namespace flotilla {

class AreaStore;
class ClassCatalog;
class SkillCatalog;
class SystemPromptStore;

class InstructionComposer final : public AgentShaper {
    Q_DISABLE_COPY_MOVE(InstructionComposer)
public:
    InstructionComposer(const SystemPromptStore &prompt, const AreaStore &areas,
                        const ClassCatalog &classes, const SkillCatalog &skills,
                        SkillMaterializer &materializer);
    ~InstructionComposer() override;

    AgentShape shapeFor(const Agent &agent) override;
    // The instructions alone (no files written): what GET /api/agents/:id/instructions shows.
    QString instructionsFor(const Agent &agent) const;
    // The slugs of the skills the agent gets, in order.
    QStringList skillsFor(const Agent &agent) const;

private:
    const SystemPromptStore &m_prompt;
    const AreaStore &m_areas;
    const ClassCatalog &m_classes;
    const SkillCatalog &m_skills;
    SkillMaterializer &m_materializer;
};

} // namespace flotilla
