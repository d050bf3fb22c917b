#include "controllers/HistoryController.h"

#include "agents/Provider.h"
#include "domain/AgentRegistry.h"
#include "history/HistoryService.h"
#include "history/HistoryWire.h"
#include "history/IndexCache.h"
#include "history/SessionSource.h"
#include "hosts/HostDirectory.h"
#include "hosts/HostsLogging.h"
#include "http/HttpServer.h"
#include "protocol/HostNames.h"
#include "protocol/WireNames.h"

#include <climits>
#include <new>

namespace flotilla {

namespace {

namespace p = history::param;
namespace c = wire::code;

constexpr int kMaxLimit = 1000;
constexpr int kMaxSubagentEntries = 10'000;
constexpr int kMaxQueryChars = 1000;

Error unknownAgent(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(id));
}

// What a worker needs to find the session: no AgentRegistry or ProviderRegistry access off the
// event loop.
struct Target {
    history::SessionFinder findSessions; // the agent's provider's layout; empty: none
    QString cwd;
    history::SessionSelector selector;
};

// The one place the provider matters: which CLI wrote the agent's sessions.
Result<Target> targetFor(const AgentRegistry &agents, const ProviderRegistry &providers,
                         const HostDirectory *hosts, const ApiRequest &r) {
    const QString id = r.param(QStringLiteral("id"));
    const Agent *agent = agents.find(id);
    if (!agent)
        return unknownAgent(id);
    const Provider *provider = providers.find(agent->provider);
    Target t{provider ? provider->sessionFinder() : history::SessionFinder(), agent->cwd, {}};
    if (!agent->host.isEmpty() && provider) {
        // Another machine's sessions: the worker first brings this machine's copy up to date
        // (only what the files gained), then reads the copy as it reads local sessions.
        if (!hosts)
            return Error::invalid(wire::host::code::UnknownHost,
                                  QStringLiteral("no host named '%1'").arg(agent->host));
        auto mirror = hosts->mirrorFor(agent->host);
        if (!mirror)
            return mirror.error();
        t.findSessions = [target = *mirror, locations = provider->sessionLocations(agent->cwd),
                          finder = provider->sessionFinderAt(mirror->mirrorHome),
                          host = agent->host](const QString &cwd) {
            auto synced = syncSessions(target, locations);
            if (!synced)
                qCWarning(lcHosts).noquote() << "history of host" << host << "reads the last "
                                             << "copy:" << synced.error().message;
            return finder ? finder(cwd) : history::noSessions();
        };
    }
    t.selector.agentSessionId = agent->sessionId;
    if (r.hasQuery(p::SessionId)) {
        t.selector.requestedSessionId = r.queryValue(p::SessionId);
        if (t.selector.requestedSessionId.isNull()) // present but empty: refused, not ignored
            t.selector.requestedSessionId = QLatin1String("");
    }
    return t;
}

// Runs on a worker: where the sessions are is a file system question too.
history::SessionSelector resolveDirs(const Target &t) {
    history::SessionSelector s = t.selector;
    s.source = t.findSessions ? t.findSessions(t.cwd) : history::noSessions();
    return s;
}

Reply toReply(const Result<QJsonObject> &r) {
    return r ? Reply::json(*r) : Reply(r.error());
}

} // namespace

HistoryController::HistoryController(const AgentRegistry &agents, const ProviderRegistry &providers,
                                     const HostDirectory *hosts, QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_providers(providers)
    , m_hosts(hosts)
    , m_cache(std::make_unique<history::IndexCache>()) {
    m_pool.setMaxThreadCount(kWorkers);
    m_pool.setObjectName(QStringLiteral("flotilla-history"));
}

void HistoryController::registerRoutes(HttpServer &http) {
    http.routeAsync(
        Method::Get, QStringLiteral("/api/agents/:id/history"),
        [this](const ApiRequest &r, const ReplyCallback &done) { historyPage(r, done); });
    http.routeAsync(Method::Get, QStringLiteral("/api/agents/:id/search"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { search(r, done); });
    http.routeAsync(Method::Get, QStringLiteral("/api/agents/:id/sessions"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { sessions(r, done); });
}

// GET /api/agents/:id/history?limit=50&offset=0&includeSubagents=true
//     &subagentEntriesLimit=200&sessionId= -> 200 page | 400 | 404 | 422
void HistoryController::historyPage(const ApiRequest &r, const ReplyCallback &done) {
    API_TRY_ASYNC(done, target, targetFor(m_agents, m_providers, m_hosts, r));
    API_TRY_ASYNC(done, limit, r.intQuery(p::Limit, 50, 0, kMaxLimit));
    API_TRY_ASYNC(done, offset, r.intQuery(p::Offset, 0, 0, INT_MAX));
    API_TRY_ASYNC(done, withSubagents, r.boolQuery(p::IncludeSubagents, true));
    API_TRY_ASYNC(done, subLimit, r.intQuery(p::SubagentEntriesLimit, 200, 0, kMaxSubagentEntries));
    history::HistoryRequest req;
    req.limit = limit;
    req.offset = offset;
    req.includeSubagents = withSubagents;
    req.subagentEntriesLimit = subLimit;
    runAsync(done, [cache = m_cache.get(), t = target, req]() mutable {
        req.session = resolveDirs(t);
        return toReply(history::history(*cache, req));
    });
}

// GET /api/agents/:id/search?q=...&limit=50&sessionId= -> 200 matches | 400 | 404 | 422
void HistoryController::search(const ApiRequest &r, const ReplyCallback &done) {
    API_TRY_ASYNC(done, target, targetFor(m_agents, m_providers, m_hosts, r));
    const QString q = r.queryValue(p::Q);
    if (q.trimmed().isEmpty())
        return done(
            Error::badRequest(c::MissingField, QStringLiteral("query parameter 'q' is required")));
    if (q.size() > kMaxQueryChars)
        return done(Error::invalid(
            c::InvalidValue, QStringLiteral("query parameter 'q' must be at most %1 characters")
                                 .arg(kMaxQueryChars)));
    API_TRY_ASYNC(done, limit, r.intQuery(p::Limit, 50, 1, kMaxLimit));
    history::SearchRequest req;
    req.query = q;
    req.limit = limit;
    runAsync(done, [cache = m_cache.get(), t = target, req]() mutable {
        req.session = resolveDirs(t);
        return toReply(history::search(*cache, req));
    });
}

// GET /api/agents/:id/sessions -> 200 {sessions, currentSessionId} | 404
void HistoryController::sessions(const ApiRequest &r, const ReplyCallback &done) {
    API_TRY_ASYNC(done, target, targetFor(m_agents, m_providers, m_hosts, r));
    runAsync(done, [cache = m_cache.get(), t = target] {
        history::SessionSelector s = resolveDirs(t);
        s.requestedSessionId = QString(); // not a parameter of this route
        return toReply(history::sessions(*cache, s));
    });
}

HistoryController::~HistoryController() {
    // Queued jobs are dropped, running ones finish; their queued replies die with this object.
    m_pool.clear();
    m_pool.waitForDone();
}

void HistoryController::runAsync(ReplyCallback done, std::function<Reply()> work) {
    const quint64 job = ++m_nextJob;
    m_waiting.emplace(job, std::move(done));
    m_pool.start([this, job, work = std::move(work)] {
        Reply reply;
        try {
            reply = work();
        } catch (const std::bad_alloc &) {
            reply = Error::internal(c::Internal, QStringLiteral("out of memory reading history"));
        }
        // Back to the event loop: callbacks touch sockets, which live there.
        QMetaObject::invokeMethod(
            this,
            [this, job, reply] {
                const ReplyCallback callback = m_waiting.take(job);
                if (callback)
                    callback(reply);
            },
            Qt::QueuedConnection);
    });
}

} // namespace flotilla
