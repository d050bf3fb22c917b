#include "mcp/McpTools.h"

#include "domain/AgentRegistry.h"
#include "mcp/McpLogging.h"
#include "protocol/McpNames.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace flotilla::mcp {

namespace rpc = wire::mcp::rpc;
namespace k = wire::key;

namespace {
constexpr int kMaxIdChars = 200;

QLatin1String jsonTypeName(const QJsonValue &v) {
    switch (v.type()) {
    case QJsonValue::String:
        return QLatin1String("string");
    case QJsonValue::Double:
        return QLatin1String("number");
    case QJsonValue::Bool:
        return QLatin1String("boolean");
    case QJsonValue::Array:
        return QLatin1String("array");
    case QJsonValue::Object:
        return QLatin1String("object");
    case QJsonValue::Null:
        return QLatin1String("null");
    default:
        return QLatin1String("undefined");
    }
}

// Whether `v` has one of the schema's types ("type": "string" or ["string", "null"]).
bool hasType(const QJsonValue &v, const QJsonValue &schemaType) {
    const QJsonArray types =
        schemaType.isArray() ? schemaType.toArray() : QJsonArray{schemaType.toString()};
    for (const QJsonValue &t : types) {
        const QString name = t.toString();
        if (name == QLatin1String("integer")) {
            if (v.isDouble() && v.toDouble() == double(qint64(v.toDouble())))
                return true;
        } else if (name == jsonTypeName(v)) {
            return true;
        }
    }
    return false;
}

QJsonObject actingProperty(const QString &what) {
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                       {QStringLiteral("description"),
                        QStringLiteral("The id of the %1 this call acts as (the service token "
                                       "names it; an agent's own token is that agent)")
                            .arg(what)}};
}
} // namespace

bool isPathSafeId(const QString &id) {
    if (id.isEmpty() || id.size() > kMaxIdChars)
        return false;
    for (QChar ch : id) {
        if (ch == QLatin1Char('/') || ch == QLatin1Char('?') || ch == QLatin1Char('#') ||
            ch.unicode() < 0x20)
            return false;
    }
    return true;
}

// --- Outcome -------------------------------------------------------------------------------------

Outcome Outcome::rpcError(int code, QString message) {
    Outcome o;
    o.rpcCode = code;
    o.message = std::move(message);
    return o;
}

Outcome Outcome::ok(const QJsonValue &value) {
    const QJsonObject structured = value.isObject() ? value.toObject()
                                   : value.isArray()
                                       ? QJsonObject{{QStringLiteral("items"), value}}
                                       : QJsonObject{{QStringLiteral("value"), value}};
    Outcome o;
    o.result = QJsonObject{
        {QStringLiteral("content"),
         QJsonArray{QJsonObject{
             {QStringLiteral("type"), QStringLiteral("text")},
             {QStringLiteral("text"),
              QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Compact))}}}},
        {QStringLiteral("structuredContent"), structured},
        {QStringLiteral("isError"), false}};
    return o;
}

namespace {
Outcome failedWith(QJsonObject structured) {
    const QString text = QStringLiteral("%1 (%2)").arg(structured.value(k::Error).toString(),
                                                       structured.value(k::Code).toString());
    Outcome o;
    o.result = QJsonObject{{QStringLiteral("content"),
                            QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                                   {QStringLiteral("text"), text}}}},
                           {QStringLiteral("structuredContent"), structured},
                           {QStringLiteral("isError"), true}};
    return o;
}
} // namespace

Outcome Outcome::failed(const Error &error) {
    return failedWith(QJsonObject{{k::Error, error.message},
                                  {k::Code, error.code},
                                  {QStringLiteral("status"), statusFor(error.kind)}});
}

Outcome Outcome::fromReply(const Reply &reply) {
    const QJsonDocument doc = QJsonDocument::fromJson(reply.body);
    const QJsonValue body = doc.isObject() ? QJsonValue(doc.object())
                            : doc.isArray()
                                ? QJsonValue(doc.array())
                                : QJsonValue(QJsonObject{{QStringLiteral("success"), true}});
    if (reply.status >= 200 && reply.status < 300)
        return ok(body);
    QJsonObject structured = body.toObject();
    structured.insert(QStringLiteral("status"), reply.status);
    if (!structured.contains(k::Error))
        structured.insert(k::Error, QStringLiteral("HTTP %1").arg(reply.status));
    return failedWith(structured);
}

// --- ToolKit -------------------------------------------------------------------------------------

void ToolKit::rest(Method method, const QString &path, const QJsonObject &body,
                   const QString &asAgent, const Done &done, const Shape &shape,
                   const QUrlQuery &query) const {
    ApiRequest request;
    request.method = method;
    request.path = path;
    request.query = query;
    if (method != Method::Get && method != Method::Delete)
        request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    request.authenticated = asAgent.isEmpty();
    request.agentScope = asAgent;
    m_deps.dispatch(std::move(request), [done, shape](const Reply &reply) {
        if (!shape || reply.status < 200 || reply.status >= 300)
            return done(Outcome::fromReply(reply));
        const QJsonDocument doc = QJsonDocument::fromJson(reply.body);
        done(
            Outcome::ok(shape(doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object()))));
    });
}

// --- Tools ---------------------------------------------------------------------------------------

Tools::Tools(ToolDeps deps)
    : m_kit(std::move(deps)) {
    m_tools = agentTools(m_kit) + userTools(m_kit);
}

bool Tools::offers(const Tool &tool, const Caller &caller) const {
    if (caller.isUser())
        return true;
    switch (tool.audience) {
    case Audience::Agent:
    case Audience::Any:
        return true;
    case Audience::Boss:
    case Audience::Team: {
        const Agent *a = m_kit.agents().find(caller.agentId);
        return a && a->isBoss;
    }
    case Audience::User:
        return false;
    }
    return false;
}

QJsonObject Tools::schemaFor(const Tool &tool, const Caller &caller) const {
    QJsonObject properties = tool.properties;
    QJsonArray required = QJsonArray::fromStringList(tool.required);
    if (caller.isUser() && tool.audience == Audience::Agent) {
        properties.insert(k::AgentId, actingProperty(QStringLiteral("agent")));
        required.prepend(QString(k::AgentId));
    } else if (caller.isUser() && tool.audience == Audience::Boss) {
        properties.insert(k::BossId, actingProperty(QStringLiteral("boss")));
        required.prepend(QString(k::BossId));
    }
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("properties"), properties}};
    if (!required.isEmpty())
        schema.insert(QStringLiteral("required"), required);
    if (!tool.openArguments)
        schema.insert(QStringLiteral("additionalProperties"), false);
    return schema;
}

QJsonArray Tools::list(const Caller &caller) const {
    QJsonArray out;
    for (const Tool &tool : m_tools) {
        if (!offers(tool, caller))
            continue;
        QJsonObject entry{{QStringLiteral("name"), tool.name},
                          {QStringLiteral("title"), tool.title},
                          {QStringLiteral("description"), tool.description},
                          {QStringLiteral("inputSchema"), schemaFor(tool, caller)}};
        entry.insert(QStringLiteral("annotations"),
                     QJsonObject{{QStringLiteral("title"), tool.title},
                                 {QStringLiteral("readOnlyHint"), tool.readOnly},
                                 {QStringLiteral("openWorldHint"), false}});
        out.append(entry);
    }
    return out;
}

Outcome Tools::checkArguments(const Tool &tool, const Caller &caller,
                              const QJsonObject &arguments) const {
    // What schemaFor() lists, read without building it (this runs on every call).
    QLatin1String acting;
    if (caller.isUser() && tool.audience == Audience::Agent)
        acting = k::AgentId;
    else if (caller.isUser() && tool.audience == Audience::Boss)
        acting = k::BossId;
    if (!acting.isEmpty() && !arguments.contains(acting))
        return Outcome::rpcError(
            rpc::InvalidParams,
            QStringLiteral("%1: missing required argument '%2'").arg(tool.name, acting));
    for (const QString &name : tool.required) {
        if (!arguments.contains(name))
            return Outcome::rpcError(
                rpc::InvalidParams,
                QStringLiteral("%1: missing required argument '%2'").arg(tool.name, name));
    }
    const QJsonObject &properties = tool.properties;
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
        if (!acting.isEmpty() && it.key() == acting) {
            if (!it->isString())
                return Outcome::rpcError(rpc::InvalidParams,
                                         QStringLiteral("%1: argument '%2' must be string, not %3")
                                             .arg(tool.name, acting, jsonTypeName(*it)));
            continue;
        }
        const auto declared = properties.constFind(it.key());
        if (declared == properties.constEnd()) {
            if (tool.openArguments)
                continue;
            const QString takes =
                properties.isEmpty()
                    ? QStringLiteral("it takes no arguments")
                    : QStringLiteral("it takes: ") + properties.keys().join(QStringLiteral(", "));
            return Outcome::rpcError(rpc::InvalidParams,
                                     QStringLiteral("%1: unknown argument '%2' (%3)")
                                         .arg(tool.name, it.key().left(60), takes));
        }
        const QJsonValue type = declared->toObject().value(QStringLiteral("type"));
        if (!type.isUndefined() && !hasType(*it, type))
            return Outcome::rpcError(
                rpc::InvalidParams,
                QStringLiteral("%1: argument '%2' must be %3, not %4")
                    .arg(tool.name, it.key(),
                         type.isArray() ? type.toVariant().toStringList().join(QStringLiteral("|"))
                                        : type.toString(),
                         jsonTypeName(*it)));
    }
    return {};
}

Outcome Tools::resolve(const Tool &tool, const Caller &caller, const QJsonObject &arguments,
                       Call *call) const {
    call->caller = caller;
    call->args = arguments;
    const auto forbidden = [&tool](const QString &why) {
        return Outcome::rpcError(rpc::Forbidden, QStringLiteral("%1: %2").arg(tool.name, why));
    };
    const auto namedAgent = [&](QLatin1String key, QString *id) -> Outcome {
        *id = arguments.value(key).toString();
        if (!isPathSafeId(*id))
            return Outcome::rpcError(
                rpc::InvalidParams,
                QStringLiteral("%1: '%2' is not an agent id").arg(tool.name, key));
        return {};
    };
    const Agent *self = caller.isUser() ? nullptr : m_kit.agents().find(caller.agentId);
    if (!caller.isUser() && !self)
        return forbidden(QStringLiteral("the calling agent no longer exists"));
    switch (tool.audience) {
    case Audience::Agent:
        if (!caller.isUser()) {
            call->self = caller.agentId;
            return {};
        }
        call->args.remove(k::AgentId);
        return namedAgent(k::AgentId, &call->self);
    case Audience::Any:
        return {};
    case Audience::Boss:
        if (!caller.isUser()) {
            if (!self->isBoss)
                return forbidden(QStringLiteral("only a boss agent may call this tool"));
            call->self = caller.agentId;
            return {};
        }
        call->args.remove(k::BossId);
        return namedAgent(k::BossId, &call->self);
    case Audience::Team: {
        if (Outcome o = namedAgent(k::AgentId, &call->self); o.rpcCode)
            return o;
        if (caller.isUser())
            return {};
        if (!self->isBoss)
            return forbidden(QStringLiteral("only a boss agent may call this tool"));
        const Agent *target = m_kit.agents().find(call->self);
        if (!target || target->bossId != caller.agentId)
            return forbidden(QStringLiteral("agent '%1' is not on your team").arg(call->self));
        return {};
    }
    case Audience::User:
        if (!caller.isUser())
            return forbidden(QStringLiteral("only the user's own MCP clients (the service token) "
                                            "may call this tool"));
        return {};
    }
    return {};
}

void Tools::call(const Caller &caller, const QString &name, const QJsonObject &arguments,
                 const Done &done) const {
    const auto tool = std::find_if(m_tools.cbegin(), m_tools.cend(),
                                   [&name](const Tool &t) { return t.name == name; });
    if (tool == m_tools.cend())
        return done(Outcome::rpcError(rpc::InvalidParams,
                                      QStringLiteral("unknown tool '%1'").arg(name.left(80))));
    Call call;
    if (Outcome o = resolve(*tool, caller, arguments, &call); o.rpcCode) {
        qCInfo(lcMcp).noquote() << "refused" << tool->name << "for"
                                << (caller.isUser() ? QStringLiteral("the user") : caller.agentId)
                                << "-" << o.message;
        return done(o);
    }
    if (Outcome o = checkArguments(*tool, caller, arguments); o.rpcCode)
        return done(o);
    qCDebug(lcMcp).noquote() << "call" << tool->name << "by"
                             << (caller.isUser() ? QStringLiteral("the user") : caller.agentId);
    tool->run(call, done);
}

} // namespace flotilla::mcp
