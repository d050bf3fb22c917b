#include "shaping/InstructionComposer.h"

#include "domain/SystemPromptStore.h"
#include "organization/AreaStore.h"
#include "protocol/Agent.h"
#include "shaping/ClassCatalog.h"
#include "shaping/SkillCatalog.h"

namespace flotilla {

InstructionComposer::InstructionComposer(const SystemPromptStore &prompt, const AreaStore &areas,
                                         const ClassCatalog &classes, const SkillCatalog &skills,
                                         SkillMaterializer &materializer)
    : m_prompt(prompt)
    , m_areas(areas)
    , m_classes(classes)
    , m_skills(skills)
    , m_materializer(materializer) {
}

InstructionComposer::~InstructionComposer() = default;

QString InstructionComposer::instructionsFor(const Agent &agent) const {
    QStringList parts;
    const QString global = m_prompt.prompt().trimmed();
    if (!global.isEmpty())
        parts << m_prompt.prompt();
    // Each part names where it comes from: the model, and a user reading a transcript, can tell
    // a project's rules from a role's.
    if (const Area *area = m_areas.find(agent.areaId);
        area && !area->instructions.trimmed().isEmpty())
        parts << QStringLiteral("# Instructions for the area \"%1\"\n\n%2")
                     .arg(area->name, area->instructions);
    if (const auto cls = m_classes.find(agent.agentClass);
        cls && !cls->instructions.trimmed().isEmpty())
        parts << QStringLiteral("# Instructions for your class \"%1\"\n\n%2")
                     .arg(cls->name, cls->instructions);
    if (!agent.customInstructions.trimmed().isEmpty())
        parts << QStringLiteral("# Instructions for you, %1\n\n%2")
                     .arg(agent.name, agent.customInstructions);
    return parts.join(QStringLiteral("\n\n"));
}

QStringList InstructionComposer::skillsFor(const Agent &agent) const {
    QStringList slugs;
    if (const auto cls = m_classes.find(agent.agentClass))
        slugs << cls->skills;
    for (const QString &slug : agent.skills) {
        if (!slugs.contains(slug))
            slugs << slug;
    }
    QStringList out;
    for (const QString &slug : std::as_const(slugs)) {
        if (!m_skills.stamp(slug).isEmpty()) // exists and is enabled
            out << slug;
    }
    return out;
}

AgentShape InstructionComposer::shapeFor(const Agent &agent) {
    AgentShape shape;
    shape.instructions = instructionsFor(agent);
    shape.instructionsFile = m_materializer.writeInstructions(agent.id, shape.instructions);
    const QStringList slugs = skillsFor(agent);
    QStringList stamps;
    for (const QString &slug : slugs)
        stamps << m_skills.stamp(slug);
    const SkillMaterializer::Written written =
        m_materializer.write(agent.id, stamps, [this, &slugs] {
            QList<Skill> skills;
            for (const QString &slug : slugs)
                skills << *m_skills.find(slug);
            return skills;
        });
    shape.skillsDir = written.dir;
    shape.skillsFingerprint = written.fingerprint;
    if (const auto cls = m_classes.find(agent.agentClass)) {
        shape.allowedTools = cls->allowedTools.value_or(QStringList());
        shape.disallowedTools = cls->disallowedTools.value_or(QStringList());
    }
    return shape;
}

} // namespace flotilla
