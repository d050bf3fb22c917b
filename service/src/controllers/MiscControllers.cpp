#include "controllers/MiscControllers.h"

#include "domain/NotificationService.h"
#include "domain/SystemPromptStore.h"
#include "http/HttpServer.h"
#include "protocol/WireNames.h"
#include "storage/StartupReport.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;

NotificationsController::NotificationsController(HttpServer &http,
                                                 NotificationService &notifications,
                                                 QObject *parent)
    : QObject(parent) {
    // POST /api/notify {agentId, title, message, iconUrl?, imageUrl?} -> 201 {success,
    // notification} | 400 | 403 (an agent's token, another agent) | 404 | 422
    http.route(
        Method::Post, QStringLiteral("/api/notify"),
        [&notifications](const ApiRequest &r) -> Reply {
            const auto body = r.jsonObject();
            if (!body)
                return body.error();
            // An agent's own token notifies for that agent only.
            if (!r.agentScope.isEmpty() && body->value(k::AgentId) != r.agentScope)
                return Error::forbidden(wire::code::Forbidden,
                                        QStringLiteral("an agent's token may notify only "
                                                       "for its own agent"));
            const auto n = notifications.post(*body);
            if (!n)
                return n.error();
            return Reply::json(QJsonObject{{k::Success, true}, {k::Notification, n->toJson()}},
                               201);
        },
        Access::Agent);

    // GET /api/notifications?limit=50 -> 200 [notification], newest first | 400 | 422
    http.route(Method::Get, QStringLiteral("/api/notifications"),
               [&notifications](const ApiRequest &r) -> Reply {
                   const auto limit =
                       r.intQuery(QStringLiteral("limit"), NotificationService::kDefaultListLimit,
                                  1, NotificationService::kRetained);
                   if (!limit)
                       return limit.error();
                   const auto list = notifications.list(*limit);
                   if (!list)
                       return list.error();
                   QJsonArray out;
                   for (const Notification &n : *list)
                       out.append(n.toJson());
                   return Reply::json(out);
               });
}

SystemPromptController::SystemPromptController(HttpServer &http, SystemPromptStore &store,
                                               QObject *parent)
    : QObject(parent) {
    const QString path = QStringLiteral("/api/agents/system-settings/prompt");
    auto current = [&store] {
        return QJsonObject{
            {k::Prompt, store.prompt()},
            {k::UpdatedAt, store.updatedAt() ? QJsonValue(store.updatedAt()) : QJsonValue()}};
    };

    // GET -> 200 {prompt, updatedAt}
    http.route(Method::Get, path, [current](const ApiRequest &) { return Reply::json(current()); });

    // POST {prompt} -> 200 {success, message, prompt, updatedAt} | 400 | 422
    http.route(Method::Post, path, [&store, current](const ApiRequest &r) -> Reply {
        const auto body = r.jsonObject();
        if (!body)
            return body.error();
        for (auto it = body->constBegin(); it != body->constEnd(); ++it) {
            if (it.key() != k::Prompt)
                return Error::invalid(
                    c::UnknownField,
                    QStringLiteral("unknown field '%1'; only 'prompt' is accepted").arg(it.key()));
        }
        if (!body->contains(k::Prompt))
            return Error::badRequest(c::MissingField, QStringLiteral("field 'prompt' is required"));
        if (!body->value(k::Prompt).isString())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("field 'prompt' must be a string"));
        const QString prompt = body->value(k::Prompt).toString();
        if (prompt.size() > SystemPromptStore::kMaxChars)
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field 'prompt' is longer than %1 characters")
                                      .arg(SystemPromptStore::kMaxChars));
        if (Status e = store.setPrompt(prompt))
            return *e;
        QJsonObject out = current();
        out.insert(k::Success, true);
        out.insert(
            k::Message,
            prompt.isEmpty()
                ? QStringLiteral("System prompt cleared")
                : QStringLiteral("System prompt saved; agents get it on their next message"));
        return Reply::json(out);
    });

    // DELETE -> 200 {success, message}
    http.route(Method::Delete, path, [&store](const ApiRequest &) -> Reply {
        if (Status e = store.clear())
            return *e;
        return Reply::json(
            QJsonObject{{k::Success, true}, {k::Message, QStringLiteral("System prompt cleared")}});
    });
}

ConfigController::ConfigController(HttpServer &http, QObject *parent)
    : QObject(parent) {
    // GET /api/config/categories -> 200 [name] (the spec's twelve, in its order)
    http.route(Method::Get, QStringLiteral("/api/config/categories"), [](const ApiRequest &) {
        static const QJsonArray categories{QStringLiteral("agents"),
                                           QStringLiteral("areas"),
                                           QStringLiteral("buildings"),
                                           QStringLiteral("skills"),
                                           QStringLiteral("custom-classes"),
                                           QStringLiteral("class-instructions"),
                                           QStringLiteral("agent-prompts"),
                                           QStringLiteral("custom-3d-models"),
                                           QStringLiteral("custom-class-icons"),
                                           QStringLiteral("hooks"),
                                           QStringLiteral("permissions"),
                                           QStringLiteral("system-settings")};
        return Reply::json(categories);
    });
}

HealthController::HealthController(HttpServer &http, const StartupReport &report, bool authRequired,
                                   QObject *parent)
    : QObject(parent) {
    // GET /api/health -> 200 {status: ok|degraded, version, authRequired, warnings}; open, no token
    http.route(
        Method::Get, QStringLiteral("/api/health"),
        [&report, authRequired](const ApiRequest &r) {
            QJsonObject o{{k::Status, report.warnings().isEmpty() ? QStringLiteral("ok")
                                                                  : QStringLiteral("degraded")},
                          {k::Version, QStringLiteral(FLOTILLA_VERSION)},
                          {QStringLiteral("authRequired"), authRequired}};
            // Details of what start-up repaired only for an authenticated caller.
            if (r.authenticated)
                o.insert(k::Warnings, QJsonArray::fromStringList(report.warnings()));
            return Reply::json(o);
        },
        Access::Open);
}

} // namespace flotilla
