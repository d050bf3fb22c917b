// libFuzzer target: REST body validation of every endpoint, through the real router and
// controllers (ServiceGraph), without sockets.
//
// Input layout: [route index] [flags] [one byte per :param, maybe followed by its bytes]
// [query length] [query bytes] [body...]. The route comes from HttpServer::routes(), so a new
// endpoint is fuzzed without touching this file. A :param byte below 0xC0 picks a known value
// (an existing agent, the area, the secret, a missing id); from 0xC0 it takes the next
// (byte - 0xC0) input bytes. In the query and the body, AGENT0, AGENT1 and AREA become those
// ids. Flags: bit 0 drops the token, bits 1-2 swap the method (405 paths), bit 3 sends AGENT0's
// own scoped token instead of the service's, bit 4 adds browser headers: four length-prefixed
// strings right after the flags (Host, Origin, Sec-Fetch-Site, Content-Type) that go through the
// RequestPolicy first, as ConnectionGuard does for every request (docs/security.md).
//
// Commands are never run as written: POST /api/exec gets "true" followed by the letters,
// digits, '_', braces and spaces of the fuzzed command (placeholders still expand); a building's
// or a hook's argv is always ["true"].
//
// Invariants: every request is answered (asynchronous routes included) within 10 s; never a
// 5xx but the documented 503 for the missing CLI; no token -> 401 on every route but the open ones
// (/api/health, the web page and its assets); an agent's token -> success only on the agent routes,
// for itself, else 403; an error is {"error", "code"} strings; a JSON success body parses. The
// policy accepts only what an independent QUrl-based check accepts: a Host we serve, our own or a
// listed Origin, no cross-site fetch without one; and a body exactly when its media type is
// application/json.

#include "FuzzSupport.h"
#include "ServiceGraph.h"

#include "http/HttpServer.h"
#include "http/RequestPolicy.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

using namespace flotilla;

namespace {

class Input {
public:
    Input(const uint8_t *data, size_t size)
        : m_data(data)
        , m_size(size) {}
    bool empty() const { return m_pos >= m_size; }
    uint8_t byte() { return empty() ? 0 : m_data[m_pos++]; }
    QByteArray take(size_t n) {
        n = std::min(n, m_size - m_pos);
        QByteArray out(reinterpret_cast<const char *>(m_data + m_pos), qsizetype(n));
        m_pos += n;
        return out;
    }
    QByteArray rest() { return take(m_size - m_pos); }

private:
    const uint8_t *m_data;
    size_t m_size;
    size_t m_pos = 0;
};

QByteArray harmlessExecBody(const QByteArray &body) {
    QJsonParseError err{};
    QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return body; // rejected before any command could run
    QJsonObject o = doc.object();
    const QJsonValue command = o.value(QLatin1String("command"));
    if (command.isString()) {
        QString safe = QStringLiteral("true ");
        for (QChar c : command.toString()) {
            const bool asciiAlnum = c.isLetterOrNumber() && c.unicode() < 128;
            if (asciiAlnum || c == QLatin1Char('_') || c == QLatin1Char('{') ||
                c == QLatin1Char('}') || c == QLatin1Char(' '))
                safe += c;
        }
        o.insert(QLatin1String("command"), safe);
    } else if (!command.isUndefined()) {
        o.insert(QLatin1String("command"), 42); // still the wrong type, never a command
    }
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

// Buildings and hooks run an argv without a shell: any array `command` becomes ["true"], so a
// building the fuzzer starts or a hook an event triggers runs nothing; other types stay (and
// are refused as they are).
QByteArray harmlessArgvBody(const QByteArray &body) {
    QJsonParseError err{};
    QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return body;
    QJsonObject o = doc.object();
    if (o.value(QLatin1String("command")).isArray())
        o.insert(QLatin1String("command"), QJsonArray{QStringLiteral("true")});
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

Method swapped(Method m, int how) {
    static const Method all[] = {Method::Get, Method::Post, Method::Put, Method::Delete};
    return how == 0 ? m : all[(int(m) + how) % 4];
}

// --- Independent checks of RequestPolicy's decisions (QUrl does the parsing here) ---

constexpr quint16 kPort = 5174;
const QStringList kHosts{QStringLiteral("localhost"), QStringLiteral("127.0.0.1"),
                         QStringLiteral("::1"), QStringLiteral("flotilla.lan")};
const QByteArray kListedOrigin = "https://app.example";

const RequestPolicy &policy() {
    static const RequestPolicy p = [] {
        RequestPolicy made(
            {{QStringLiteral("flotilla.lan")}, {QString::fromLatin1(kListedOrigin)}});
        made.bind(QHostAddress(QHostAddress::LocalHost), kPort);
        return made;
    }();
    return p;
}

QByteArray trimmedSpaces(QByteArray v) {
    while (!v.isEmpty() && (v.front() == ' ' || v.front() == '\t'))
        v.remove(0, 1);
    while (!v.isEmpty() && (v.back() == ' ' || v.back() == '\t'))
        v.chop(1);
    return v;
}

// "http://" + authority as QUrl sees it: a served host, nothing but host and port.
bool servedAuthority(const QByteArray &authority, int *port) {
    const QUrl url = QUrl::fromEncoded("http://" + authority, QUrl::StrictMode);
    if (!url.isValid() || !url.userInfo().isEmpty() || !url.path().isEmpty() || url.hasQuery() ||
        url.hasFragment())
        return false;
    *port = url.port(80);
    return kHosts.contains(url.host().toLower());
}

void checkPolicy(const PolicyFields &f) {
    const auto source = policy().checkSource(f);
    if (source) {
        FUZZ_CHECK(source->status == 403 && (source->code == wire::code::ForbiddenHost ||
                                             source->code == wire::code::ForbiddenOrigin),
                   "a refused source is not 403 forbidden_host/forbidden_origin");
    } else {
        int port = 0;
        const QByteArray host = trimmedSpaces(f.host.toByteArray());
        FUZZ_CHECK(host.isEmpty() || servedAuthority(host, &port),
                   qUtf8Printable(QStringLiteral("accepted Host '%1'")
                                      .arg(QString::fromUtf8(host.toPercentEncoding()))));
        const QByteArray origin = trimmedSpaces(f.origin.toByteArray());
        if (!origin.isEmpty() && !policy().isListedOrigin(origin)) {
            const bool http = origin.size() > 7 && origin.left(7).toLower() == "http://";
            const QByteArray authority = origin.mid(7);
            FUZZ_CHECK(http && servedAuthority(authority, &port) &&
                           (port == kPort || authority.toLower() == host.toLower()),
                       qUtf8Printable(QStringLiteral("accepted Origin '%1' with Host '%2'")
                                          .arg(QString::fromUtf8(origin.toPercentEncoding()),
                                               QString::fromUtf8(host.toPercentEncoding()))));
        }
        if (origin.isEmpty())
            FUZZ_CHECK(trimmedSpaces(f.secFetchSite.toByteArray()).toLower() != "cross-site",
                       "accepted a cross-site fetch without an Origin");
    }
    if (policy().isListedOrigin(f.origin))
        FUZZ_CHECK(!source || source->code == wire::code::ForbiddenHost,
                   "a listed origin was refused");
    QByteArray type = f.contentType.toByteArray();
    if (type.contains(';'))
        type = type.left(type.indexOf(';'));
    const bool json = trimmedSpaces(type).toLower() == "application/json";
    const auto body = policy().checkBody(f);
    FUZZ_CHECK(bool(body) == (f.hasBody && !json),
               qUtf8Printable(QStringLiteral("Content-Type '%1' (body: %2) -> %3")
                                  .arg(QString::fromUtf8(f.contentType.toByteArray()))
                                  .arg(f.hasBody)
                                  .arg(body ? body->status : 0)));
    FUZZ_CHECK(!body || body->status == 415, "a refused body is not 415");
}

// Routes an agent's own token may reach (Access::Agent), by method and pattern.
bool isAgentRoute(Method m, const QString &pattern) {
    static const QList<QPair<Method, QString>> routes{
        {Method::Get, QStringLiteral("/api/agents/:id")},
        {Method::Patch, QStringLiteral("/api/agents/:id")},
        {Method::Post, QStringLiteral("/api/agents/:id/report-task")},
        {Method::Post, QStringLiteral("/api/agents/:id/permission-check")},
        {Method::Post, QStringLiteral("/api/notify")},
        // MCP: an agent's token opens a session there; its tools check its rights (fuzz_mcp).
        {Method::Post, QStringLiteral("/mcp")},
        {Method::Delete, QStringLiteral("/mcp")}};
    return routes.contains(qMakePair(m == Method::Head ? Method::Get : m, pattern));
}

} // namespace

// FLOTILLA_FUZZ_LIST_ROUTES=1 prints "index method pattern" per route and exits: what
// corpus/make_rest_seeds.py needs to write seeds for a given route.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    if (qEnvironmentVariableIsSet("FLOTILLA_FUZZ_LIST_ROUTES")) {
        const auto routes = fuzz::ServiceGraph::get().app().http().routes();
        for (qsizetype i = 0; i < routes.size(); ++i)
            std::printf("%d %s %s\n", int(i), methodName(routes[i].method).data(),
                        qUtf8Printable(routes[i].pattern));
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto &graph = fuzz::ServiceGraph::get();
    static const QList<HttpServer::RouteInfo> routes = graph.app().http().routes();
    FUZZ_CHECK(!routes.isEmpty(), "no routes registered");

    Input in(data, size);
    const HttpServer::RouteInfo &route = routes[in.byte() % routes.size()];
    const uint8_t flags = in.byte();

    ApiRequest request;
    const bool asAgent = (flags & 8) != 0;
    request.authenticated = (flags & 1) == 0 && !asAgent;
    if (asAgent)
        request.agentScope = graph.agentIds().value(0);
    request.method = swapped(route.method, (flags >> 1) & 3);
    QByteArray browser[4]; // Host, Origin, Sec-Fetch-Site, Content-Type
    if (flags & 16) {
        for (QByteArray &field : browser)
            field = in.take(in.byte() % 64);
    }
    const QStringList known = {graph.agentIds().value(0), graph.agentIds().value(1), graph.areaId(),
                               QStringLiteral("FUZZ_SECRET"), QStringLiteral("no-such-id")};
    QStringList segments = route.pattern.split(QLatin1Char('/'));
    for (QString &s : segments) {
        if (!s.startsWith(QLatin1Char(':')))
            continue;
        const uint8_t pick = in.byte();
        s = pick < 0xC0 ? known[pick % known.size()] : QString::fromUtf8(in.take(pick - 0xC0));
    }
    request.path = segments.join(QLatin1Char('/'));
    auto knownIds = [&graph](QByteArray bytes) {
        return bytes.replace("AGENT0", graph.agentIds().value(0).toUtf8())
            .replace("AGENT1", graph.agentIds().value(1).toUtf8())
            .replace("AREA", graph.areaId().toUtf8());
    };
    request.query = QUrlQuery(QString::fromUtf8(knownIds(in.take(in.byte()))));
    request.body = knownIds(in.rest());
    if (request.method == Method::Post && route.pattern == QLatin1String("/api/exec"))
        request.body = harmlessExecBody(request.body);
    if (route.pattern.startsWith(QLatin1String("/api/buildings")) ||
        route.pattern.startsWith(QLatin1String("/api/hooks")))
        request.body = harmlessArgvBody(request.body);
    if (flags & 16) {
        // What the connection guard asks before the request reaches the router.
        const PolicyFields fields{browser[0], browser[1], browser[2], browser[3],
                                  !request.body.isEmpty()};
        checkPolicy(fields);
        if (policy().checkSource(fields) || policy().checkBody(fields))
            return 0; // refused: never dispatched
    }

    Reply reply;
    const bool answered = graph.request(request, &reply);
    FUZZ_CHECK(answered, qUtf8Printable(QStringLiteral("no reply from %1").arg(route.pattern)));
    // 503 is the documented answer while the CLI is unusable (ours does not exist, on purpose).
    const bool cliUnavailable =
        reply.status == 503 &&
        QJsonDocument::fromJson(reply.body).object().value(QLatin1String("code")).toString() ==
            QLatin1String("cli_unavailable");
    FUZZ_CHECK((reply.status >= 200 && reply.status < 500) || cliUnavailable,
               qUtf8Printable(QStringLiteral("%1 %2 -> %3: %4")
                                  .arg(methodName(request.method), route.pattern)
                                  .arg(reply.status)
                                  .arg(QString::fromUtf8(reply.body))));
    // Open routes (health, the web page and its assets) answer anyone; every other one needs a
    // token.
    const bool open = route.access == Access::Open;
    if (!request.authenticated && !asAgent && !open)
        FUZZ_CHECK(reply.status == 401,
                   qUtf8Printable(QStringLiteral("%1 %2 answered %3 without a token")
                                      .arg(methodName(request.method), route.pattern)
                                      .arg(reply.status)));
    if (asAgent && reply.status < 400 && !open) {
        FUZZ_CHECK(isAgentRoute(request.method, route.pattern),
                   qUtf8Printable(QStringLiteral("an agent's token reached %1 %2")
                                      .arg(methodName(request.method), route.pattern)));
        FUZZ_CHECK(!route.pattern.contains(QLatin1String(":id")) ||
                       request.path.section(QLatin1Char('/'), 3, 3) == request.agentScope,
                   "an agent's token acted on another agent");
        if (route.pattern == QLatin1String("/api/notify"))
            FUZZ_CHECK(QJsonDocument::fromJson(request.body)
                               .object()
                               .value(QLatin1String("agentId"))
                               .toString() == request.agentScope,
                       "an agent's token notified for another agent");
    }
    if (asAgent)
        FUZZ_CHECK(reply.status != 401, "a valid agent token was taken for no token");
    if (reply.status >= 400 && route.pattern == QLatin1String("/mcp") &&
        request.method == Method::Post && reply.status != 401 && reply.status != 405) {
        // MCP answers in JSON-RPC's shape: {jsonrpc, id, error: {code, message}}.
        const QJsonObject e =
            QJsonDocument::fromJson(reply.body).object().value(QLatin1String("error")).toObject();
        FUZZ_CHECK(e.value(QLatin1String("message")).isString() &&
                       e.value(QLatin1String("code")).isDouble(),
                   "MCP error body is not JSON-RPC");
    } else if (reply.status >= 400) {
        const QJsonObject e = QJsonDocument::fromJson(reply.body).object();
        FUZZ_CHECK(e.value(QLatin1String("error")).isString() &&
                       e.value(QLatin1String("code")).isString(),
                   "error body is not {error, code}");
    } else if (reply.status != 204 && reply.contentType == "application/json") {
        QJsonParseError err{};
        QJsonDocument::fromJson(reply.body, &err);
        FUZZ_CHECK(err.error == QJsonParseError::NoError, "success body is not JSON");
    }
    fuzz::ServiceGraph::settle();
    return 0;
}
