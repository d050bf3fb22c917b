#pragma once
// Config export and import of saved prompts (organization/CategoryTransfer.h), the category
// `agent-prompts`: each prompt as POST /api/prompts takes it, an agent's scope by the agent's
// name (`scope.agentName`: ids are each service's own). What each entry may hold and how it is
// checked is PromptStore's (exportItems, validateImport); this class joins it to the import's
// steps. Applied after the agents a scope names.

#include "organization/CategoryTransfer.h"

namespace flotilla {

class PromptStore;

class PromptTransfer final : public CategoryTransfer {
    Q_DISABLE_COPY_MOVE(PromptTransfer)
public:
    explicit PromptTransfer(PromptStore &prompts);
    ~PromptTransfer() override;

    QStringList categories() const override;
    QJsonValue exportCategory(const QString &category, const ExportRefs &refs) const override;
    Result<std::shared_ptr<PendingImport>> validate(const QJsonObject &given,
                                                    const ImportRefs &refs, QJsonArray &conflicts,
                                                    QStringList &warnings) const override;

private:
    PromptStore &m_prompts;
};

} // namespace flotilla
