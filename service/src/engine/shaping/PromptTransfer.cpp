#include "shaping/PromptTransfer.h"

#include "protocol/OrganizationNames.h"
#include "shaping/PromptStore.h"
#include "shaping/ShapingLogging.h"

namespace flotilla {

namespace cat = wire::org::category;

namespace {

class PendingPrompts final : public PendingImport {
public:
    PendingPrompts(PromptStore &store, PromptImport plan)
        : m_store(store)
        , m_plan(std::move(plan)) {}

    QJsonObject counts() const override {
        return QJsonObject{{cat::AgentPrompts, m_plan.drafts.size()}};
    }

    Status apply(const ImportIds &ids) override {
        const auto created = m_store.applyImport(m_plan, ids.agentId); // one transaction
        if (!created)
            return created.error();
        m_created = *created;
        return std::nullopt;
    }

    void undo() override {
        if (Status e = m_store.undoImport(m_created))
            qCCritical(lcShaping).noquote()
                << "undoing import: saved prompts could not be removed:" << e->message;
        m_created.clear();
    }

private:
    PromptStore &m_store;
    PromptImport m_plan;
    QStringList m_created;
};

} // namespace

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
    return std::shared_ptr<PendingImport>(
        std::make_shared<PendingPrompts>(m_prompts, std::move(plan.value())));
}

} // namespace flotilla
