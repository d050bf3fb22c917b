#include "controllers/HistoryController.h"

#include "domain/AgentRegistry.h"
#include "history/CodexRollout.h"
#include "history/HistoryService.h"
#include "history/HistoryWire.h"
#include "history/IndexCache.h"
#include "history/SessionSource.h"
#include "http/HttpServer.h"
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

using SourceFactory = history::SessionSourcePtr (*)(const QString &home, const QString &cwd);

// What a worker needs to find the session: no AgentRegistry access off the event loop.
struct Target {
    SourceFactory makeSource; // the agent's provider's layout
    QString home;             // that CLI's config dir
    QString cwd;
    history::SessionSelector selector;
};

// The one place the provider matters: which CLI wrote the agent's sessions.
struct Homes {
    const QString &claude;
    const QString &codex;
};

Result<Target> targetFor(const AgentRegistry &agents, const Homes &homes, const ApiRequest &r) {
    const QString id = r.param(QStringLiteral("id"));
    const Agent *agent = agents.find(id);
    if (!agent)
        return unknownAgent(id);
    const bool codex = agent->provider == QLatin1String("codex");
    Target t{codex ? &history::codexSessions : &history::claudeSessions,
             codex ? homes.codex : homes.claude,
             agent->cwd,
             {}};
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
    s.source = t.makeSource(t.home, t.cwd);
    return s;
}

Reply toReply(const Result<QJsonObject> &r) {
    return r ? Reply::json(*r) : Reply(r.error());
}

} // namespace

HistoryController::HistoryController(HttpServer &http, const AgentRegistry &agents,
                                     QString claudeHome, QString codexHome, QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_claudeHome(std::move(claudeHome))
    , m_codexHome(std::move(codexHome))
    , m_cache(std::make_unique<history::IndexCache>()) {
    m_pool.setMaxThreadCount(kWorkers);
    m_pool.setObjectName(QStringLiteral("flotilla-history"));

    // GET /api/agents/:id/history?limit=50&offset=0&includeSubagents=true
    //     &subagentEntriesLimit=200&sessionId= -> 200 page | 400 | 404 | 422
    http.routeAsync(Method::Get, QStringLiteral("/api/agents/:id/history"),
                    [this](const ApiRequest &r, const ReplyCallback &done) {
                        const auto target = targetFor(m_agents, {m_claudeHome, m_codexHome}, r);
                        if (!target)
                            return done(target.error());
                        const auto limit = r.intQuery(p::Limit, 50, 0, kMaxLimit);
                        if (!limit)
                            return done(limit.error());
                        const auto offset = r.intQuery(p::Offset, 0, 0, INT_MAX);
                        if (!offset)
                            return done(offset.error());
                        const auto withSubagents = r.boolQuery(p::IncludeSubagents, true);
                        if (!withSubagents)
                            return done(withSubagents.error());
                        const auto subLimit =
                            r.intQuery(p::SubagentEntriesLimit, 200, 0, kMaxSubagentEntries);
                        if (!subLimit)
                            return done(subLimit.error());
                        history::HistoryRequest req;
                        req.limit = *limit;
                        req.offset = *offset;
                        req.includeSubagents = *withSubagents;
                        req.subagentEntriesLimit = *subLimit;
                        runAsync(done, [cache = m_cache.get(), t = *target, req]() mutable {
                            req.session = resolveDirs(t);
                            return toReply(history::history(*cache, req));
                        });
                    });

    // GET /api/agents/:id/search?q=...&limit=50&sessionId= -> 200 matches | 400 | 404 | 422
    http.routeAsync(
        Method::Get, QStringLiteral("/api/agents/:id/search"),
        [this](const ApiRequest &r, const ReplyCallback &done) {
            const auto target = targetFor(m_agents, {m_claudeHome, m_codexHome}, r);
            if (!target)
                return done(target.error());
            const QString q = r.queryValue(p::Q);
            if (q.trimmed().isEmpty())
                return done(Error::badRequest(c::MissingField,
                                              QStringLiteral("query parameter 'q' is required")));
            if (q.size() > kMaxQueryChars)
                return done(Error::invalid(
                    c::InvalidValue,
                    QStringLiteral("query parameter 'q' must be at most %1 characters")
                        .arg(kMaxQueryChars)));
            const auto limit = r.intQuery(p::Limit, 50, 1, kMaxLimit);
            if (!limit)
                return done(limit.error());
            history::SearchRequest req;
            req.query = q;
            req.limit = *limit;
            runAsync(done, [cache = m_cache.get(), t = *target, req]() mutable {
                req.session = resolveDirs(t);
                return toReply(history::search(*cache, req));
            });
        });

    // GET /api/agents/:id/sessions -> 200 {sessions, currentSessionId} | 404
    http.routeAsync(Method::Get, QStringLiteral("/api/agents/:id/sessions"),
                    [this](const ApiRequest &r, const ReplyCallback &done) {
                        const auto target = targetFor(m_agents, {m_claudeHome, m_codexHome}, r);
                        if (!target)
                            return done(target.error());
                        runAsync(done, [cache = m_cache.get(), t = *target] {
                            history::SessionSelector s = resolveDirs(t);
                            s.requestedSessionId = QString(); // not a parameter of this route
                            return toReply(history::sessions(*cache, s));
                        });
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
