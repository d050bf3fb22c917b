#pragma once
// Uploaded 3D model files (glTF, GLB, OBJ, FBX): Flotilla has no 3D view and never reads them;
// it keeps them as opaque assets so that the `custom-3d-models` config category moves between
// services without loss. Each file is a row of the `assets` table (schema v7: id, kind, data
// JSON, bytes BLOB) of kind "custom-3d-model"; the metadata is kept in memory, the bytes are read
// only when a file is served or exported. Limits: kMaxFileBytes each, kMaxTotalBytes together.
// The wire shape and the refusals are in docs/api.md, "Custom 3D models".

#include "base/Clock.h"
#include "base/Error.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

namespace flotilla {

class Database;

// A model as POST /api/custom-3d-models (or an import entry) sends it, validated and decoded.
struct ModelUpload {
    QString name;   // trimmed, 1..kNameMax characters, unique case-insensitively
    QString format; // gltf | glb | obj | fbx
    QByteArray bytes;
};

// The `custom-3d-models` category of a config document, validated, nothing applied yet.
struct ModelImport {
    QList<ModelUpload> uploads;
    QJsonArray conflicts; // [{category, name}]: a model of that name exists already
};

class AssetStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AssetStore)
public:
    static constexpr qint64 kMaxFileBytes = 10 * 1024 * 1024;
    static constexpr qint64 kMaxTotalBytes = 100 * 1024 * 1024;
    static constexpr int kNameMax = 100;
    // The JSON body that carries the largest file: base64 is 4/3 of it (13,981,016 bytes for
    // 10 MiB), plus the name and the keys. The one route that takes it says so to the HTTP layer
    // (HttpServer::allowLargerBody).
    static constexpr qint64 kUploadBodyBytes = 14 * 1024 * 1024;

    AssetStore(Database &db, Clock clock, QObject *parent = nullptr);
    ~AssetStore() override;

    // Reads the stored models' metadata (not their bytes).
    Status load();

    // {id, name, format, size, sha256, createdAt}, in upload order.
    QList<QJsonObject> models() const;
    const QJsonObject *find(const QString &id) const;
    qint64 totalBytes() const { return m_totalBytes; }
    // The file itself, read from the database.
    Result<QByteArray> bytes(const QString &id) const;

    // A POST body {name, format, dataBase64}: 400 (shape), 422 unknown_field / invalid_value /
    // invalid_model (not a file of its format), 413 too_large (over kMaxFileBytes decoded).
    static Result<ModelUpload> parseUpload(const QJsonObject &body);
    // 409 when the name is taken, 413 quota_exceeded past kMaxTotalBytes.
    Result<QJsonObject> create(const ModelUpload &upload);
    Status remove(const QString &id);

    // Config transfer (`custom-3d-models`): [{name, format, dataBase64}] with every file's bytes
    // (up to kMaxTotalBytes, 4/3 of that in base64).
    Result<QJsonArray> exportItems() const;
    // Each entry as POST takes it; names taken here are conflicts, a name twice in the document
    // 422, and 413 quota_exceeded when the document's files do not fit beside the stored ones.
    Result<ModelImport> validateImport(const QJsonValue &value) const;
    // Stores every file in one transaction (custom_3d_model_created each); returns their ids.
    Result<QStringList> applyImport(const ModelImport &plan);
    // Removes what applyImport stored, when a later step of the import failed.
    Status undoImport(const QStringList &ids);

Q_SIGNALS:
    void modelCreated(const QJsonObject &model);
    void modelDeleted(const QJsonObject &model);

private:
    QJsonObject describe(const ModelUpload &upload) const; // a new id, the digest, now
    Status insertRow(const QJsonObject &model, const QByteArray &bytes);
    void remember(const QJsonObject &model);
    // Drops a model whose row is gone, and says so (custom_3d_model_deleted).
    void forget(const QString &id);
    bool nameTaken(const QString &name) const;

    Database &m_db;
    Clock m_clock;
    QHash<QString, QJsonObject> m_models;
    QStringList m_order; // upload order
    qint64 m_totalBytes = 0;
};

} // namespace flotilla
