#include "ServiceGraph.h"

#include "FuzzSupport.h"

#include "http/HttpServer.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

namespace flotilla::fuzz {

namespace {

QString scratchBase() {
    // tmpfs when there is one: SQLite syncs every acknowledged write.
    return QFileInfo::exists(QStringLiteral("/dev/shm"))
               ? QStringLiteral("/dev/shm/flotilla-fuzz-XXXXXX")
               : QDir::tempPath() + QStringLiteral("/flotilla-fuzz-XXXXXX");
}

// Never destroyed at exit: Qt's own statics (the SQL driver registry) are gone by then. Still
// reachable, so not a leak for LeakSanitizer.
ServiceGraph *&current() {
    static ServiceGraph *graph = nullptr;
    return graph;
}

} // namespace

ServiceGraph &ServiceGraph::get() {
    ServiceGraph *&g = current();
    if (g && ++g->m_uses > kRebuildEvery) {
        delete g;
        g = nullptr;
        settle();
    }
    if (!g) {
        initQt();
        g = new ServiceGraph();
        g->seed();
    }
    return *g;
}

ServiceGraph::ServiceGraph()
    : m_base(scratchBase())
    , m_work(scratchBase()) {
    FUZZ_CHECK(m_base.isValid() && m_work.isValid(), "no scratch directory");
    ServerConfig config;
    config.host = QHostAddress(QHostAddress::LocalHost);
    config.port = 0;
    config.dataDir = m_base.path() + QStringLiteral("/data");
    config.claudeHome = m_base.path() + QStringLiteral("/claude-home");
    config.claudeBin = m_base.path() + QStringLiteral("/no-such-claude");
    config.authToken = QByteArrayLiteral("fuzz-token");
    config.permissionTimeoutMs = 5; // a held permission request is denied at once
    QDir().mkpath(config.claudeHome);
    m_app = std::make_unique<ServiceApp>(config);
    const auto failure = m_app->start();
    FUZZ_CHECK(!failure, qUtf8Printable(failure ? failure->message : QString()));
}

bool ServiceGraph::request(ApiRequest request, Reply *reply, int timeoutMs) {
    bool answered = false;
    m_app->http().dispatchInProcess(std::move(request), [&answered, reply](const Reply &r) {
        *reply = r;
        answered = true;
    });
    const QDeadlineTimer deadline(timeoutMs);
    while (!answered && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
    return answered;
}

void ServiceGraph::settle() {
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

void ServiceGraph::seed() {
    auto post = [this](const QString &path, const QJsonObject &body) {
        ApiRequest r;
        r.method = Method::Post;
        r.path = path;
        r.authenticated = true;
        r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
        Reply reply;
        FUZZ_CHECK(request(r, &reply) && reply.status < 300, qUtf8Printable(path));
        return QJsonDocument::fromJson(reply.body).object();
    };
    for (int i = 0; i < 2; ++i) {
        const QJsonObject agent =
            post(QStringLiteral("/api/agents"),
                 {{QStringLiteral("name"), QStringLiteral("fuzz-agent-%1").arg(i)},
                  {QStringLiteral("cwd"), m_work.path()}});
        m_agentIds.append(agent.value(QLatin1String("id")).toString());
    }
    const QJsonObject area =
        post(QStringLiteral("/api/areas"), {{QStringLiteral("name"), QStringLiteral("fuzz-area")}});
    m_areaId = area.value(QLatin1String("id")).toString();
    ApiRequest secret;
    secret.method = Method::Put;
    secret.path = QStringLiteral("/api/secrets/FUZZ_SECRET");
    secret.authenticated = true;
    secret.body = QByteArrayLiteral("{\"value\":\"s3cr3t-value\"}");
    Reply reply;
    FUZZ_CHECK(request(secret, &reply) && reply.status < 300, "seeding a secret");
    settle();
}

} // namespace flotilla::fuzz
