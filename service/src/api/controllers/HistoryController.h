#pragma once
// GET /api/agents/:id/history, /search, /sessions: read the session files of an agent's working
// directory, in the layout of its provider's CLI. The provider (ProviderRegistry, by the agent's
// `provider` field) only gives the history::SessionSource; the routes and the answers are the
// same for every provider.
//
// The event loop only validates the request and looks the agent up; the file work (a cold index
// of a 1 GiB session takes about a second) runs on this controller's own QThreadPool and the
// answer comes back through a queued call, so other clients are never held up. Workers get
// plain data and share only the thread-safe IndexCache; they touch no QObject of the service.

#include "http/ApiTypes.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <functional>
#include <memory>

namespace flotilla {

class AgentRegistry;
class HttpServer;
class ProviderRegistry;

namespace history {
class IndexCache;
}

class HostDirectory;

class HistoryController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryController)
public:
    // `providers` says where each agent's CLI keeps its sessions (Provider::sessionFinder()).
    // `hosts`: where agents on other machines keep theirs (a copy synced on each request:
    // hosts/SessionMirror.h); null: every agent is local.
    HistoryController(const AgentRegistry &agents, const ProviderRegistry &providers,
                      const HostDirectory *hosts = nullptr, QObject *parent = nullptr);
    ~HistoryController() override;

    void registerRoutes(HttpServer &http);

    // Two workers: this machine class has two cores, and one slow cold build must not queue
    // every other history request behind it.
    static constexpr int kWorkers = 2;

private:
    void historyPage(const ApiRequest &request, const ReplyCallback &done);
    void search(const ApiRequest &request, const ReplyCallback &done);
    void sessions(const ApiRequest &request, const ReplyCallback &done);
    // Runs `work` on a worker; its Reply is delivered to `done` on this object's thread.
    void runAsync(ReplyCallback done, std::function<Reply()> work);

    const AgentRegistry &m_agents;
    const ProviderRegistry &m_providers;
    const HostDirectory *m_hosts = nullptr;
    std::unique_ptr<history::IndexCache> m_cache;
    QHash<quint64, ReplyCallback> m_waiting;
    quint64 m_nextJob = 0;
    QThreadPool m_pool; // last member: destroyed (and drained) before what workers use
};

} // namespace flotilla
