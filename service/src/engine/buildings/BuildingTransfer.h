#pragma once
// Config export and import of buildings (organization/CategoryTransfer.h), the category
// `buildings`: each building as POST /api/buildings takes it, with its agent named (`agentName`
// in place of `agentId`, ids are each service's own) and its area by the document's area id.
// `env` travels as stored: a secret stays its {{NAME}} placeholder, never its value. Applied after
// the agents and areas it names.

#include "base/Clock.h"
#include "organization/CategoryTransfer.h"

namespace flotilla {

class BuildingStore;

class BuildingTransfer final : public CategoryTransfer {
    Q_DISABLE_COPY_MOVE(BuildingTransfer)
public:
    BuildingTransfer(BuildingStore &buildings, Clock clock);
    ~BuildingTransfer() override;

    QStringList categories() const override;
    QJsonValue exportCategory(const QString &category, const ExportRefs &refs) const override;
    Result<std::shared_ptr<PendingImport>> validate(const QJsonObject &given,
                                                    const ImportRefs &refs, QJsonArray &conflicts,
                                                    QStringList &warnings) const override;

private:
    BuildingStore &m_buildings;
    Clock m_clock;
};

} // namespace flotilla
