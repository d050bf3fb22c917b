#pragma once
// What controllers see of HTTP: a request with path parameters and a JSON body, and a Reply.
// No QHttpServer type appears here, so a Qt upgrade only touches HttpServer.cpp.

#include "base/Error.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QUrlQuery>

#include <functional>

namespace flotilla {

enum class Method { Get, Head, Post, Put, Patch, Delete, Options, Other };

QLatin1String methodName(Method m);

class ApiRequest final {
public:
    Method method = Method::Other;
    QString path;
    QUrlQuery query;
    QByteArray body;
    QHash<QString, QString> params; // from ":name" segments of the route pattern
    bool authenticated = false;     // full rights: the service token (or no token is required)
    // An agent's own token came with the request (security/AgentTokens.h): the caller may act
    // only as this agent. The dispatcher lets it reach Access::Agent routes for its own :id;
    // a handler of a route without :id checks the agent named in the body against it.
    QString agentScope;
    // The few request header fields a handler may need besides the body (empty: absent). The
    // page and its assets (web/StaticSite) negotiate with them; every other route ignores them.
    QByteArray host;
    QByteArray ifNoneMatch;
    QByteArray acceptEncoding;
    // Came in on the agents' callback listener (HttpServer::listenForAgents): only Access::Agent
    // routes answer there.
    bool viaAgentListener = false;
    // The agent whose own valid token came with the request, also in an open service (no
    // service token), where agentScope stays empty because every caller has full rights. The MCP
    // endpoint acts as this agent (its tools are the agent's own); nothing else reads it.
    QString callerAgent;
    // MCP's transport headers (Mcp-Session-Id, MCP-Protocol-Version), read on POST/DELETE /mcp
    // only.
    QByteArray mcpSessionId;
    QByteArray mcpProtocolVersion;

    QString param(const QString &name) const { return params.value(name); }
    bool hasQuery(const QString &key) const { return query.hasQueryItem(key); }
    QString queryValue(const QString &key) const {
        return query.queryItemValue(key, QUrl::FullyDecoded);
    }

    // The body as a JSON object, or BadRequest naming what is wrong with it.
    Result<QJsonObject> jsonObject() const;
    // An integer query parameter within [min, max]; absent -> fallback; malformed -> BadRequest,
    // out of range -> Invalid.
    Result<int> intQuery(const QString &key, int fallback, int min, int max) const;
    // A boolean query parameter: true/false/1/0 (any case); absent -> fallback; else BadRequest.
    Result<bool> boolQuery(const QString &key, bool fallback) const;
};

class Reply final {
public:
    int status = 200;
    QByteArray body;
    QByteArray contentType = QByteArrayLiteral("application/json");
    QList<QPair<QByteArray, QByteArray>> headers;

    static Reply json(const QJsonObject &o, int status = 200);
    static Reply json(const QJsonArray &a, int status = 200);
    static Reply rawJson(QByteArray bytes, int status = 200);
    static Reply noContent();
    Reply() = default;
    Reply(const Error &e); // NOLINT(google-explicit-constructor): handlers `return error;`
};

using Handler = std::function<Reply(const ApiRequest &)>;
using ReplyCallback = std::function<void(const Reply &)>;
using AsyncHandler = std::function<void(const ApiRequest &, ReplyCallback)>;

// Result propagation in handlers, so that none unwraps a Result by hand. A step is a Result<T>
// or a Status; the first one that failed ends the enclosing function with its Error, which a
// handler answers as every Error is answered (Reply(const Error &): statusFor(kind) and
// errorBody(code, message)). The enclosing function returns a Reply, a Result<U> or a Status.
//   API_TRY(body, request.jsonObject()); // `body`: a const reference to the value
//   API_CHECK(store.setPrompt(prompt));  // nothing to bind: only the Error, if any
// In an asynchronous handler the Error goes to its ReplyCallback instead:
//   API_TRY_ASYNC(done, body, request.jsonObject());
//   API_CHECK_ASYNC(done, service.start(...));
namespace detail {
template <typename T> const Error *failureOf(const Result<T> &step) {
    return step ? nullptr : &step.error();
}
inline const Error *failureOf(const Status &step) {
    return step ? &*step : nullptr;
}
} // namespace detail

#define API_TRY(name, step)                                                                        \
    const auto &name##Step_ = (step);                                                              \
    if (!name##Step_)                                                                              \
        return name##Step_.error();                                                                \
    const auto &name = *name##Step_ // NOLINT(bugprone-macro-parentheses): declares `name`

#define API_CHECK(step)                                                                            \
    do {                                                                                           \
        const auto &apiStep_ = (step);                                                             \
        if (const ::flotilla::Error *apiError_ = ::flotilla::detail::failureOf(apiStep_))          \
            return *apiError_;                                                                     \
    } while (false)

#define API_TRY_ASYNC(done, name, step)                                                            \
    const auto &name##Step_ = (step);                                                              \
    if (!name##Step_)                                                                              \
        return (done)(name##Step_.error());                                                        \
    const auto &name = *name##Step_ // NOLINT(bugprone-macro-parentheses): declares `name`

#define API_CHECK_ASYNC(done, step)                                                                \
    do {                                                                                           \
        const auto &apiStep_ = (step);                                                             \
        if (const ::flotilla::Error *apiError_ = ::flotilla::detail::failureOf(apiStep_))          \
            return (done)(*apiError_);                                                             \
    } while (false)

// On every response of the port (API answers and refusals alike): never sniffed into another
// type, never read by another site's page as a no-cors resource.
inline constexpr char kNosniffHeader[] = "X-Content-Type-Options: nosniff\r\n";
inline constexpr char kCorpHeader[] = "Cross-Origin-Resource-Policy: same-origin\r\n";

// {"error": "<message>", "code": "<code>"} — the one error body shape.
QByteArray errorBody(QLatin1String code, const QString &message);
// The one mapping from ErrorKind to HTTP status.
int statusFor(ErrorKind kind);
QByteArray reasonPhrase(int status);

} // namespace flotilla
