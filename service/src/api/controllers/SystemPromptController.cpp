#include "controllers/SystemPromptController.h"

#include "domain/SystemPromptStore.h"
#include "http/HttpServer.h"
#include "protocol/WireNames.h"

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;

SystemPromptController::SystemPromptController(SystemPromptStore &store)
    : m_store(store) {
}

void SystemPromptController::registerRoutes(HttpServer &http) {
    const QString path = QStringLiteral("/api/agents/system-settings/prompt");
    http.route(Method::Get, path, [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Post, path, [this](const ApiRequest &r) { return set(r); });
    http.route(Method::Delete, path, [this](const ApiRequest &r) { return clear(r); });
}

QJsonObject SystemPromptController::current() const {
    return QJsonObject{
        {k::Prompt, m_store.prompt()},
        {k::UpdatedAt, m_store.updatedAt() ? QJsonValue(m_store.updatedAt()) : QJsonValue()}};
}

// GET /api/agents/system-settings/prompt -> 200 {prompt, updatedAt}
Reply SystemPromptController::get(const ApiRequest &) const {
    return Reply::json(current());
}

// POST /api/agents/system-settings/prompt {prompt} -> 200 {success, message, prompt, updatedAt}
// | 400 | 422
Reply SystemPromptController::set(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (it.key() != k::Prompt)
            return Error::invalid(
                c::UnknownField,
                QStringLiteral("unknown field '%1'; only 'prompt' is accepted").arg(it.key()));
    }
    if (!body.contains(k::Prompt))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'prompt' is required"));
    if (!body.value(k::Prompt).isString())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'prompt' must be a string"));
    const QString prompt = body.value(k::Prompt).toString();
    if (prompt.size() > SystemPromptStore::kMaxChars)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'prompt' is longer than %1 characters")
                                  .arg(SystemPromptStore::kMaxChars));
    API_CHECK(m_store.setPrompt(prompt));
    QJsonObject out = current();
    out.insert(k::Success, true);
    out.insert(k::Message,
               prompt.isEmpty()
                   ? QStringLiteral("System prompt cleared")
                   : QStringLiteral("System prompt saved; agents get it on their next message"));
    return Reply::json(out);
}

// DELETE /api/agents/system-settings/prompt -> 200 {success, message}
Reply SystemPromptController::clear(const ApiRequest &) {
    API_CHECK(m_store.clear());
    return Reply::json(
        QJsonObject{{k::Success, true}, {k::Message, QStringLiteral("System prompt cleared")}});
}

} // namespace flotilla
