#pragma once
// Config export and import of hooks (organization/CategoryTransfer.h), the category `hooks`: each
// hook as POST /api/hooks takes it, its filter naming the agent (`filter.agentName` in place of
// `filter.agentId`: ids are each service's own) and the area by the document's area id. Runs are
// this service's history and stay. Applied after the agents and areas a filter names.

#include "base/Clock.h"
#include "organization/CategoryTransfer.h"

namespace flotilla {

class HookStore;

class HookTransfer final : public CategoryTransfer {
    Q_DISABLE_COPY_MOVE(HookTransfer)
public:
    HookTransfer(HookStore &hooks, Clock clock);
    ~HookTransfer() override;

    QStringList categories() const override;
    QJsonValue exportCategory(const QString &category, const ExportRefs &refs) const override;
    Result<std::shared_ptr<PendingImport>> validate(const QJsonObject &given,
                                                    const ImportRefs &refs, QJsonArray &conflicts,
                                                    QStringList &warnings) const override;

private:
    HookStore &m_hooks;
    Clock m_clock;
};

} // namespace flotilla
