#include "shaping/AssetStore.h"

#include "domain/DisplayText.h"
#include "organization/TransferSupport.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "shaping/ShapingLogging.h"
#include "storage/Database.h"
#include "storage/Transaction.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QSet>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace sc = wire::shaping::code;
namespace fmt = wire::shaping::modelformat;

using transfer::at;

namespace {

// The `kind` of these rows in the assets table.
const QString kKind = QStringLiteral("custom-3d-model");
// How much of a text format's start is looked at for its marks.
constexpr qsizetype kSniffBytes = 64 * 1024;

Error wrongType(const QString &field, const QString &what) {
    return Error::badRequest(c::WrongType,
                             QStringLiteral("field '%1' must be %2").arg(field, what));
}

Error invalidModel(const QString &why) {
    return Error::invalid(sc::InvalidModel, why);
}

Error quotaExceeded(qint64 stored, qint64 adding) {
    return Error{ErrorKind::TooLarge, sc::QuotaExceeded,
                 QStringLiteral("stored 3D models may take %1 bytes together; %2 are stored and "
                                "this adds %3")
                     .arg(AssetStore::kMaxTotalBytes)
                     .arg(stored)
                     .arg(adding)};
}

// A light check that the bytes are a file of the format, not a proof: enough to refuse a file
// uploaded under the wrong format or a truncated or mis-encoded upload.
Status checkFormat(const QString &format, const QByteArray &bytes) {
    if (bytes.isEmpty())
        return invalidModel(QStringLiteral("the file is empty"));
    if (format == fmt::Glb) {
        // The 12-byte header starts with the magic "glTF" (glTF 2.0 spec, "Binary glTF Layout").
        if (bytes.size() < 12 || !bytes.startsWith("glTF"))
            return invalidModel(QStringLiteral("a GLB file starts with the 12-byte header whose "
                                               "magic is \"glTF\""));
        return std::nullopt;
    }
    if (format == fmt::Gltf) {
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject())
            return invalidModel(QStringLiteral("a glTF file is a JSON object: %1")
                                    .arg(error.error == QJsonParseError::NoError
                                             ? QStringLiteral("not an object")
                                             : error.errorString()));
        if (!doc.object().value(QLatin1String("asset")).isObject())
            return invalidModel(QStringLiteral("a glTF file has an \"asset\" object"));
        return std::nullopt;
    }
    const bool text = !bytes.contains('\0');
    if (format == fmt::Obj) {
        if (!text)
            return invalidModel(QStringLiteral("an OBJ file is text, and this one has NUL bytes"));
        return std::nullopt;
    }
    // FBX: binary files start with "Kaydara FBX Binary  \0"; text ones carry a
    // FBXHeaderExtension block at their start.
    if (bytes.startsWith(QByteArrayView("Kaydara FBX Binary  \0", 21)))
        return std::nullopt;
    if (text && bytes.left(kSniffBytes).contains("FBXHeaderExtension"))
        return std::nullopt;
    return invalidModel(QStringLiteral("not an FBX file: neither the binary magic \"Kaydara FBX "
                                       "Binary\" nor a text file with an FBXHeaderExtension"));
}

} // namespace

AssetStore::AssetStore(Database &db, Clock clock, QObject *parent)
    : QObject(parent)
    , m_db(db)
    , m_clock(std::move(clock)) {
}

AssetStore::~AssetStore() = default;

Status AssetStore::load() {
    m_models.clear();
    m_order.clear();
    m_totalBytes = 0;
    int unreadable = 0;
    // The size is the row's own, not what its metadata says: the quota counts what is stored.
    Status e = m_db.query(
        QStringLiteral("SELECT id, data, length(bytes) FROM assets WHERE kind = "
                       "? ORDER BY rowid"),
        {kKind}, [&](const QVariantList &row) {
            QJsonObject model = QJsonDocument::fromJson(row.value(1).toByteArray()).object();
            const QString id = row.value(0).toString();
            if (model.value(k::Id).toString() != id || model.value(k::Name_).toString().isEmpty()) {
                ++unreadable;
                return;
            }
            model.insert(sk::Size, row.value(2).toLongLong());
            remember(model);
        });
    if (e)
        return e;
    if (unreadable > 0)
        qCCritical(lcShaping) << unreadable
                              << "stored 3D model record(s) could not be read and were skipped";
    qCInfo(lcShaping) << "loaded" << m_order.size() << "3D model(s)," << m_totalBytes << "bytes";
    return std::nullopt;
}

QList<QJsonObject> AssetStore::models() const {
    QList<QJsonObject> out;
    out.reserve(m_order.size());
    for (const QString &id : m_order)
        out.append(m_models.value(id));
    return out;
}

const QJsonObject *AssetStore::find(const QString &id) const {
    const auto it = m_models.constFind(id);
    return it == m_models.constEnd() ? nullptr : &*it;
}

Result<QByteArray> AssetStore::bytes(const QString &id) const {
    QByteArray out;
    bool found = false;
    Status e = m_db.query(QStringLiteral("SELECT bytes FROM assets WHERE id = ? AND kind = ?"),
                          {id, kKind}, [&](const QVariantList &row) {
                              out = row.value(0).toByteArray();
                              found = true;
                          });
    if (e)
        return *e;
    if (!found)
        return Error::notFound(c::NotFound, QStringLiteral("no 3D model with id '%1'").arg(id));
    return out;
}

Result<ModelUpload> AssetStore::parseUpload(const QJsonObject &body) {
    static const QStringList allowed{k::Name_, sk::Format, sk::DataBase64};
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            return Error::invalid(c::UnknownField,
                                  QStringLiteral("unknown field '%1'; allowed: %2")
                                      .arg(it.key(), allowed.join(QStringLiteral(", "))));
    }
    for (const QString &field : allowed) {
        if (!body.contains(field))
            return Error::badRequest(c::MissingField,
                                     QStringLiteral("field '%1' is required").arg(field));
        if (!body.value(field).isString())
            return wrongType(field, QStringLiteral("a string"));
    }
    ModelUpload u;
    u.name = body.value(k::Name_).toString().trimmed();
    if (u.name.isEmpty())
        return Error::invalid(c::InvalidValue, QStringLiteral("field 'name' must not be empty"));
    if (u.name.size() > kNameMax)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'name' is longer than %1 characters").arg(kNameMax));
    if (Status e = validateNameText(k::Name_, u.name))
        return *e;
    u.format = body.value(sk::Format).toString();
    if (u.format != fmt::Gltf && u.format != fmt::Glb && u.format != fmt::Obj &&
        u.format != fmt::Fbx)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'format' must be one of gltf, glb, obj, fbx; "
                                             "got '%1'")
                                  .arg(u.format.left(40)));
    const QByteArray encoded = body.value(sk::DataBase64).toString().toLatin1();
    auto decoded = QByteArray::fromBase64Encoding(
        encoded, QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'dataBase64' is not valid base64"));
    u.bytes = std::move(decoded.decoded);
    if (u.bytes.size() > kMaxFileBytes)
        return Error{ErrorKind::TooLarge, sc::TooLarge,
                     QStringLiteral("the file has %1 bytes; a 3D model may have at most %2")
                         .arg(u.bytes.size())
                         .arg(kMaxFileBytes)};
    if (Status e = checkFormat(u.format, u.bytes))
        return *e;
    return u;
}

bool AssetStore::nameTaken(const QString &name) const {
    const QString folded = name.toCaseFolded();
    for (const QJsonObject &m : m_models) {
        if (m.value(k::Name_).toString().toCaseFolded() == folded)
            return true;
    }
    return false;
}

QJsonObject AssetStore::describe(const ModelUpload &upload) const {
    return QJsonObject{
        {k::Id, QUuid::createUuid().toString(QUuid::WithoutBraces)},
        {k::Name_, upload.name},
        {sk::Format, upload.format},
        {sk::Size, qint64(upload.bytes.size())},
        {sk::Sha256,
         QString::fromLatin1(
             QCryptographicHash::hash(upload.bytes, QCryptographicHash::Sha256).toHex())},
        {k::CreatedAt, m_clock.nowMs()},
    };
}

Status AssetStore::insertRow(const QJsonObject &model, const QByteArray &bytes) {
    return m_db.exec(
        QStringLiteral("INSERT INTO assets (id, kind, data, bytes) VALUES (?, ?, ?, ?)"),
        {model.value(k::Id).toString(), kKind, QJsonDocument(model).toJson(QJsonDocument::Compact),
         bytes});
}

void AssetStore::remember(const QJsonObject &model) {
    const QString id = model.value(k::Id).toString();
    m_models.insert(id, model);
    m_order.append(id);
    m_totalBytes += model.value(sk::Size).toInteger();
}

Result<QJsonObject> AssetStore::create(const ModelUpload &upload) {
    if (nameTaken(upload.name))
        return Error::conflict(
            c::Conflict, QStringLiteral("a 3D model named '%1' exists already").arg(upload.name));
    if (m_totalBytes + upload.bytes.size() > kMaxTotalBytes)
        return quotaExceeded(m_totalBytes, upload.bytes.size());
    const QJsonObject model = describe(upload);
    if (Status e = insertRow(model, upload.bytes))
        return *e;
    remember(model);
    qCDebug(lcShaping).noquote() << "stored 3D model" << model.value(k::Id).toString() << "of"
                                 << upload.bytes.size() << "bytes";
    Q_EMIT modelCreated(model);
    return model;
}

void AssetStore::forget(const QString &id) {
    if (!m_models.contains(id))
        return;
    const QJsonObject model = m_models.take(id);
    m_order.removeOne(id);
    m_totalBytes -= model.value(sk::Size).toInteger();
    Q_EMIT modelDeleted(model);
}

Status AssetStore::remove(const QString &id) {
    if (!m_models.contains(id))
        return Error::notFound(c::NotFound, QStringLiteral("no 3D model with id '%1'").arg(id));
    if (Status e =
            m_db.exec(QStringLiteral("DELETE FROM assets WHERE id = ? AND kind = ?"), {id, kKind}))
        return e;
    forget(id);
    return std::nullopt;
}

Result<QJsonArray> AssetStore::exportItems() const {
    QJsonArray out;
    for (const QString &id : m_order) {
        const QJsonObject &model = m_models[id];
        const auto data = bytes(id);
        if (!data)
            return data.error();
        out.append(QJsonObject{{k::Name_, model.value(k::Name_)},
                               {sk::Format, model.value(sk::Format)},
                               {sk::DataBase64, QString::fromLatin1(data->toBase64())}});
    }
    return out;
}

Result<ModelImport> AssetStore::validateImport(const QJsonValue &value) const {
    const QString category = QString(wire::org::category::Custom3dModels);
    const QString listWhere = QStringLiteral("categories.") + category;
    if (!value.isArray())
        return transfer::wrongType(listWhere, QStringLiteral("an array"));
    const QJsonArray list = value.toArray();
    ModelImport plan;
    QSet<QString> names;
    qint64 adding = 0;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("%1[%2]").arg(listWhere).arg(i);
        if (!list.at(i).isObject())
            return transfer::wrongType(where, QStringLiteral("an object"));
        auto upload = parseUpload(list.at(i).toObject());
        if (!upload)
            return at(where, upload.error());
        const QString folded = upload->name.toCaseFolded();
        if (names.contains(folded))
            return at(where,
                      Error::invalid(
                          c::InvalidValue,
                          QStringLiteral("3D model name '%1' appears twice").arg(upload->name)));
        names.insert(folded);
        if (nameTaken(upload->name))
            plan.conflicts.append(transfer::conflict(category, upload->name));
        adding += upload->bytes.size();
        plan.uploads.append(std::move(upload.value()));
    }
    if (m_totalBytes + adding > kMaxTotalBytes)
        return at(listWhere, quotaExceeded(m_totalBytes, adding));
    return plan;
}

Result<QStringList> AssetStore::applyImport(const ModelImport &plan) {
    if (plan.uploads.isEmpty())
        return QStringList();
    QList<QJsonObject> stored;
    {
        Transaction tx(m_db);
        if (!tx.isOpen())
            return Transaction::beginError();
        for (const ModelUpload &u : plan.uploads) {
            const QJsonObject model = describe(u);
            if (Status e = insertRow(model, u.bytes))
                return *e;
            stored.append(model);
        }
        if (!tx.commit())
            return m_db.commitError(QStringLiteral("cannot store the imported 3D models"));
    }
    QStringList ids;
    for (const QJsonObject &model : std::as_const(stored)) {
        remember(model);
        ids.append(model.value(k::Id).toString());
    }
    for (const QJsonObject &model : std::as_const(stored))
        Q_EMIT modelCreated(model);
    return ids;
}

Status AssetStore::undoImport(const QStringList &ids) {
    if (ids.isEmpty())
        return std::nullopt;
    {
        Transaction tx(m_db);
        if (!tx.isOpen())
            return Transaction::beginError();
        for (const QString &id : ids) {
            if (Status e = m_db.exec(QStringLiteral("DELETE FROM assets WHERE id = ? AND kind = ?"),
                                     {id, kKind}))
                return e;
        }
        if (!tx.commit())
            return m_db.commitError(QStringLiteral("cannot remove the imported 3D models"));
    }
    for (const QString &id : ids)
        forget(id);
    return std::nullopt;
}

} // namespace flotilla
