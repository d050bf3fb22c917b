#include "shaping/AssetTransfer.h"

#include "protocol/OrganizationNames.h"
#include "shaping/AssetStore.h"
#include "shaping/ShapingLogging.h"

namespace flotilla {

namespace cat = wire::org::category;

namespace {

class PendingModels final : public PendingImport {
public:
    PendingModels(AssetStore &store, ModelImport plan)
        : m_store(store)
        , m_plan(std::move(plan)) {}

    QJsonObject counts() const override {
        return QJsonObject{{cat::Custom3dModels, m_plan.uploads.size()}};
    }

    Status apply(const ImportIds &) override {
        const auto created = m_store.applyImport(m_plan); // one transaction
        if (!created)
            return created.error();
        m_created = *created;
        return std::nullopt;
    }

    void undo() override {
        if (Status e = m_store.undoImport(m_created))
            qCCritical(lcShaping).noquote()
                << "undoing import: 3D models could not be removed:" << e->message;
        m_created.clear();
    }

private:
    AssetStore &m_store;
    ModelImport m_plan;
    QStringList m_created;
};

} // namespace

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
    return std::shared_ptr<PendingImport>(
        std::make_shared<PendingModels>(m_assets, std::move(plan.value())));
}

} // namespace flotilla
