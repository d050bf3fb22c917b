#pragma once
// Config export and import of skills and classes (organization/CategoryTransfer.h): the
// categories `skills`, `custom-classes`, `class-instructions` and `custom-class-icons`. A class
// travels as three parts (its definition, its instructions, its icon) because the contract names
// three categories; an import puts them back together, and gives `class-instructions` and
// `custom-class-icons` to classes of the document or of this service (a built-in class included).
// Applied before the agents, which may name these skills and classes.

#include "organization/CategoryTransfer.h"

namespace flotilla {

class ClassCatalog;
class SkillCatalog;

class ShapingTransfer final : public CategoryTransfer {
    Q_DISABLE_COPY_MOVE(ShapingTransfer)
public:
    ShapingTransfer(ClassCatalog &classes, SkillCatalog &skills);
    ~ShapingTransfer() override;

    QStringList categories() const override;
    Phase phase() const override { return Phase::BeforeAgents; }
    QJsonValue exportCategory(const QString &category, const ExportRefs &refs) const override;
    Result<std::shared_ptr<PendingImport>> validate(const QJsonObject &given,
                                                    const ImportRefs &refs, QJsonArray &conflicts,
                                                    QStringList &warnings) const override;

private:
    ClassCatalog &m_classes;
    SkillCatalog &m_skills;
};

} // namespace flotilla
