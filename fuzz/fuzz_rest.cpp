// libFuzzer target: REST body validation of every endpoint, through the real router and
// controllers (ServiceGraph), without sockets.
//
// Input layout: [route index] [flags] [one byte per :param, maybe followed by its bytes]
// [query length] [query bytes] [body...]. The route comes from HttpServer::routes(), so a new
// endpoint is fuzzed without touching this file. A :param byte below 0xC0 picks a known value
// (an existing agent, the area, the secret, a missing id); from 0xC0 it takes the next
// (byte - 0xC0) input bytes. In the query and the body, AGENT0, AGENT1 and AREA become those
// ids. Flags: bit 0 drops the token, bits 1-2 swap the method (405 paths).
//
// Commands are never run as written: POST /api/exec gets "true" followed by the letters,
// digits, '_', braces and spaces of the fuzzed command (placeholders still expand).
//
// Invariants: every request is answered (asynchronous routes included) within 10 s; never a
// 5xx but the documented 503 for the missing CLI; no token -> 401 on every route but /api/health;
// an error is {"error", "code"} strings; a JSON success body parses.

#include "FuzzSupport.h"
#include "ServiceGraph.h"

#include "http/HttpServer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

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

Method swapped(Method m, int how) {
    static const Method all[] = {Method::Get, Method::Post, Method::Put, Method::Delete};
    return how == 0 ? m : all[(int(m) + how) % 4];
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
    request.authenticated = (flags & 1) == 0;
    request.method = swapped(route.method, (flags >> 1) & 3);
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
    if (!request.authenticated && request.path != QLatin1String("/api/health"))
        FUZZ_CHECK(reply.status == 401, "a route answered without a token");
    if (reply.status >= 400) {
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
