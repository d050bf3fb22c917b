#include "shaping/AssetTransfer.h"

#include "organization/TransferSupport.h"
#include "protocol/OrganizationNames.h"
#include "shaping/AssetStore.h"
#include "shaping/ShapingLogging.h"

namespace flotilla {

namespace cat = wire::org::category;

AssetTransfer::AssetTransfer(AssetStore &assets)
    : m_assets(assets) {
}

AssetTransfer::~AssetTransfer() = default;

QStringList AssetTransfer::categories() const {
    return {cat::Custom3dModels};
}

QJsonValue AssetTransfer::exportCategory(const QString &, const ExportRefs &) const {
    const auto items = m_assets.exportItems();
    if (!items) {
        // An export cannot fail part-way through the seam: the category goes out empty, loudly.
        qCCritical(lcShaping).noquote()
            << "config export: the 3D model files could not be read:" << items.error().message;
        return QJsonArray();
    }
    return *items;
}

Result<std::shared_ptr<PendingImport>> AssetTransfer::validate(const QJsonObject &given,
                                                               const ImportRefs &,
                                                               QJsonArray &conflicts,
                                                               QStringList &) const {
    const QJsonValue value = given.value(cat::Custom3dModels);
    // null as [] (as the other categories take it)
    auto plan = m_assets.validateImport(value.isNull() ? QJsonValue(QJsonArray()) : value);
    if (!plan)
        return plan.error();
    for (const QJsonValue &conflict : std::as_const(plan->conflicts))
        conflicts.append(conflict);
    const qsizetype count = plan->uploads.size();
    return transfer::pendingImport(
        {cat::Custom3dModels, count, QStringLiteral("3D models"), lcShaping},
        [&assets = m_assets, models = std::move(plan.value())](const ImportIds &) {
            return assets.applyImport(models); // one transaction
        },
        [&assets = m_assets](const QStringList &ids) { return assets.undoImport(ids); });
}

} // namespace flotilla
