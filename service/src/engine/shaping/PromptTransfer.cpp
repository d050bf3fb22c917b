#include "shaping/PromptTransfer.h"

#include "organization/TransferSupport.h"
#include "protocol/OrganizationNames.h"
#include "shaping/PromptStore.h"
#include "shaping/ShapingLogging.h"

namespace flotilla {

namespace cat = wire::org::category;

PromptTransfer::PromptTransfer(PromptStore &prompts)
    : m_prompts(prompts) {
}

PromptTransfer::~PromptTransfer() = default;

QStringList PromptTransfer::categories() const {
    return {cat::AgentPrompts};
}

QJsonValue PromptTransfer::exportCategory(const QString &, const ExportRefs &refs) const {
    return m_prompts.exportItems(refs.agentName);
}

Result<std::shared_ptr<PendingImport>> PromptTransfer::validate(const QJsonObject &given,
                                                                const ImportRefs &refs,
                                                                QJsonArray &conflicts,
                                                                QStringList &warnings) const {
    const QJsonValue value = given.value(cat::AgentPrompts);
    // null as [] (as the other categories take it)
    auto plan = m_prompts.validateImport(value.isNull() ? QJsonValue(QJsonArray()) : value,
                                         refs.agentKnown);
    if (!plan)
        return plan.error();
    for (const QJsonValue &conflict : std::as_const(plan->conflicts))
        conflicts.append(conflict);
    warnings.append(plan->warnings);
    const qsizetype count = plan->drafts.size();
    return transfer::pendingImport(
        {cat::AgentPrompts, count, QStringLiteral("saved prompts"), lcShaping},
        [&prompts = m_prompts, drafts = std::move(plan.value())](const ImportIds &ids) {
            return prompts.applyImport(drafts, ids.agentId); // one transaction
        },
        [&prompts = m_prompts](const QStringList &ids) { return prompts.undoImport(ids); });
}

} // namespace flotilla
