#pragma once
// The real service graph (ServiceApp: every controller, the router, the event hub) on a
// throw-away data dir, for the REST and WebSocket fuzzers. Requests and messages are dispatched
// in-process (HttpServer::dispatchInProcess, EventHub::dispatchInProcess): no sockets.
//
// Agents are given a CLI that does not exist, so a fuzzed "message" or "spawn" fails to start a
// process instead of running anything. The graph is rebuilt every kRebuildEvery inputs, so state
// (agents, areas, notifications...) cannot grow without bound over a long run.

#include "app/ServiceApp.h"
#include "http/ApiTypes.h"

#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace flotilla::fuzz {

class ServiceGraph final {
public:
    static constexpr int kRebuildEvery = 2000;

    // The graph for the next input (built or rebuilt as needed).
    static ServiceGraph &get();

    ServiceApp &app() { return *m_app; }
    // Ids that exist right after (re)building: two agents, an area, a secret name.
    const QStringList &agentIds() const { return m_agentIds; }
    const QString &areaId() const { return m_areaId; }
    QString workDir() const { return m_work.path(); }

    // Dispatches one request and runs the event loop until it is answered (asynchronous routes),
    // at most `timeoutMs`; false if no reply came.
    bool request(ApiRequest request, Reply *reply, int timeoutMs = 10'000);
    // Runs what the request left for the event loop (deleteLater, queued signals).
    static void settle();

private:
    ServiceGraph();
    void seed();

    QTemporaryDir m_base;
    QTemporaryDir m_work;
    std::unique_ptr<ServiceApp> m_app;
    QStringList m_agentIds;
    QString m_areaId;
    int m_uses = 0;
};

} // namespace flotilla::fuzz
