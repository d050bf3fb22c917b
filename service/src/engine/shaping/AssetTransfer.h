#pragma once
// Config export and import of the stored 3D model files (organization/CategoryTransfer.h), the
// category `custom-3d-models`: [{name, format, dataBase64}], each as POST /api/custom-3d-models
// takes it. What each entry may hold, the quota and the conflicts are AssetStore's
// (exportItems, validateImport); this class joins it to the import's steps.

#include "organization/CategoryTransfer.h"

namespace flotilla {

class AssetStore;

class AssetTransfer final : public CategoryTransfer {
    Q_DISABLE_COPY_MOVE(AssetTransfer)
public:
    explicit AssetTransfer(AssetStore &assets);
    ~AssetTransfer() override;

    QStringList categories() const override;
    QJsonValue exportCategory(const QString &category, const ExportRefs &refs) const override;
    Result<std::shared_ptr<PendingImport>> validate(const QJsonObject &given,
                                                    const ImportRefs &refs, QJsonArray &conflicts,
                                                    QStringList &warnings) const override;

private:
    AssetStore &m_assets;
};

} // namespace flotilla
