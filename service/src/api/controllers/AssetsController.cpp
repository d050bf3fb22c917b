#include "controllers/AssetsController.h"

#include "controllers/Replies.h"
#include "http/HttpServer.h"
#include "protocol/ShapingNames.h"
#include "shaping/AssetStore.h"
#include "ws/EventHub.h"

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace sm = wire::shaping::msg;
namespace fmt = wire::shaping::modelformat;

namespace {
const QString kId = QStringLiteral("id");
const QString kModels = QStringLiteral("/api/custom-3d-models");

Error unknownModel(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no 3D model with id '%1'").arg(id));
}

// The media types IANA registered for glTF (model/gltf+json, model/gltf-binary) and OBJ
// (model/obj); FBX has none.
QByteArray mediaTypeOf(const QString &format) {
    if (format == fmt::Gltf)
        return QByteArrayLiteral("model/gltf+json");
    if (format == fmt::Glb)
        return QByteArrayLiteral("model/gltf-binary");
    if (format == fmt::Obj)
        return QByteArrayLiteral("model/obj");
    return QByteArrayLiteral("application/octet-stream");
}

// The download's file name: the model's name reduced to characters that need no quoting in a
// header, with the format as extension.
QByteArray fileNameOf(const QJsonObject &model) {
    QByteArray name;
    const QString given = model.value(k::Name_).toString();
    for (const QChar ch : given) {
        const char16_t u = ch.unicode();
        const bool plain = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                           (u >= '0' && u <= '9') || u == '-' || u == '_' || u == '.';
        name += plain ? char(u) : '_';
    }
    return name + '.' + model.value(sk::Format).toString().toLatin1();
}
} // namespace

AssetsController::AssetsController(AssetStore &models, EventHub &hub)
    : m_models(models) {
    QObject::connect(&models, &AssetStore::modelCreated, &hub,
                     [&hub](const QJsonObject &m) { hub.broadcast(sm::ModelCreated, m); });
    QObject::connect(&models, &AssetStore::modelDeleted, &hub, [&hub](const QJsonObject &m) {
        hub.broadcast(sm::ModelDeleted,
                      QJsonObject{{k::Id, m.value(k::Id)}, {k::Name_, m.value(k::Name_)}});
    });
}

void AssetsController::registerRoutes(HttpServer &http) {
    const QString one = kModels + QStringLiteral("/:id");
    http.route(Method::Get, kModels, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Post, kModels, [this](const ApiRequest &r) { return create(r); });
    http.route(Method::Get, one, [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Delete, one, [this](const ApiRequest &r) { return remove(r); });
    http.route(Method::Get, one + QStringLiteral("/file"),
               [this](const ApiRequest &r) { return file(r); });
    // A 10 MiB file is 13.4 MiB of base64: more than the general body limit. Only this route
    // takes that much (docs/api.md "Custom 3D models").
    http.allowLargerBody(Method::Post, kModels, AssetStore::kUploadBodyBytes);
}

// GET /api/custom-3d-models -> 200 [{id, name, format, size, sha256, createdAt}], upload order
Reply AssetsController::list(const ApiRequest &) const {
    QJsonArray out;
    const QList<QJsonObject> all = m_models.models();
    for (const QJsonObject &m : all)
        out.append(m);
    return Reply::json(out);
}

// GET /api/custom-3d-models/:id -> 200 model | 404
Reply AssetsController::get(const ApiRequest &r) const {
    const QJsonObject *m = m_models.find(r.param(kId));
    if (!m)
        return unknownModel(r.param(kId));
    return Reply::json(*m);
}

// GET /api/custom-3d-models/:id/file -> 200 the file as uploaded (Content-Type of its format,
// Content-Disposition: attachment, nosniff) | 404
Reply AssetsController::file(const ApiRequest &r) const {
    const QJsonObject *m = m_models.find(r.param(kId));
    if (!m)
        return unknownModel(r.param(kId));
    API_TRY(bytes, m_models.bytes(r.param(kId)));
    Reply reply;
    reply.body = bytes;
    reply.contentType = mediaTypeOf(m->value(sk::Format).toString());
    reply.headers.append({QByteArrayLiteral("Content-Disposition"),
                          QByteArrayLiteral("attachment; filename=\"") + fileNameOf(*m) + '"'});
    reply.headers.append(
        {QByteArrayLiteral("X-Content-Type-Options"), QByteArrayLiteral("nosniff")});
    // Never a document of this origin, even if a browser were asked to render it.
    reply.headers.append(
        {QByteArrayLiteral("Content-Security-Policy"), QByteArrayLiteral("sandbox")});
    return reply;
}

// POST /api/custom-3d-models {name, format: gltf|glb|obj|fbx, dataBase64} -> 201 model
// (Location) | 400 | 409 (name taken) | 413 too_large (over 10 MiB decoded) | 413
// quota_exceeded (over 100 MiB together) | 413 payload_too_large (body over 14 MiB) | 422
// (unknown_field, invalid_value, invalid_model); custom_3d_model_created
Reply AssetsController::create(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(upload, AssetStore::parseUpload(body));
    API_TRY(created, m_models.create(upload));
    return createdReply(created, kModels, created.value(k::Id).toString());
}

// DELETE /api/custom-3d-models/:id -> 204 | 404; custom_3d_model_deleted {id, name}
Reply AssetsController::remove(const ApiRequest &r) {
    API_CHECK(m_models.remove(r.param(kId)));
    return Reply::noContent();
}

} // namespace flotilla
