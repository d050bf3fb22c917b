#pragma once
// Runs the hooks an event matches (HookFeed hands it the events), without a shell and without
// ever holding up whoever emitted the event:
//  - submit() only picks the hooks (event, enabled, filter against the event's agent) and queues
//    one job per hook; starting happens later from the event loop.
//  - At most maxConcurrent (4) processes run at once; the rest wait in a FIFO queue of at most
//    maxQueued jobs (beyond it a job is dropped, counted and logged).
//  - Each process: argv from the hook (argv[0] absolute, or looked up in the hook environment's
//    PATH), its own process group (base/ChildProcess), the event JSON on stdin (then closed), the
//    agents' environment minus the service's token plus FLOTILLA_EVENT, FLOTILLA_AGENT_ID and
//    FLOTILLA_HOOK_ID, stdout and stderr merged, the first outputMax bytes kept (the pipe is
//    always drained).
//  - timeoutSeconds: SIGTERM to the group, SIGKILL killGraceMs later. When the process ended,
//    whatever it left in its group is SIGKILLed: no hook outlives its run.
// Each finished run is stored (HookStore::recordRun) and announced (runFinished).

#include "base/Clock.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QProcessEnvironment>
#include <QQueue>

#include <memory>
#include <optional>

namespace flotilla {

class AgentRegistry;
class HookStore;

struct HookRunnerConfig {
    // The agents' environment (ServiceApp); the service's token is removed whatever it holds.
    QProcessEnvironment environment;
    // cwd of a hook with cwd null, or "agent" for an event without an agent.
    QString homeDir;
    int maxConcurrent = 4;
    int maxQueued = 1000;
    int killGraceMs = 2000;
    qsizetype outputMax = 64 * 1024;
};

class HookRunner final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HookRunner)
public:
    HookRunner(HookStore &hooks, const AgentRegistry &agents, HookRunnerConfig config, Clock clock,
               QObject *parent = nullptr);
    ~HookRunner() override; // SIGKILLs every running hook's group

    // An event happened: queues a run of each enabled hook on `event` whose filter matches
    // `agentId`'s agent (empty: the event has none; then only hooks without a filter run).
    void submit(QLatin1String event, const QString &agentId, const QJsonObject &payload);
    // Service shutdown: the queue is dropped, running hooks are killed (their runs are not
    // recorded), and later events run nothing.
    void shutdown();

    int runningCount() const { return int(m_running.size()); }
    int queuedCount() const { return int(m_queue.size()); }
    quint64 droppedCount() const { return m_dropped; }

Q_SIGNALS:
    // A hook's process started (`pid` leads its process group).
    void runStarted(const QString &hookId, qint64 pid);
    // A run ended (the run as GET /api/hooks/:id/runs lists it, with `failed`), after it was
    // stored. Not emitted for a hook deleted while it ran.
    void runFinished(const QJsonObject &run);

private:
    struct Job {
        QString hookId;
        QString event;
        QString agentId;
        QString agentCwd;
        QByteArray input; // the event JSON for stdin
    };
    struct Running;

    void schedulePump();
    void pump();
    void start(const Job &job, const QJsonObject &hook);
    void read(Running &run);
    void finish(quint64 key, std::optional<int> exitCode, std::optional<int> signal,
                const QString &error);
    void record(const QJsonObject &run);
    QProcessEnvironment environmentFor(const Job &job) const;

    HookStore &m_hooks;
    const AgentRegistry &m_agents;
    HookRunnerConfig m_config;
    Clock m_clock;
    QQueue<Job> m_queue;
    QHash<quint64, std::shared_ptr<Running>> m_running;
    quint64 m_nextKey = 1;
    quint64 m_dropped = 0;
    bool m_pumpScheduled = false;
    bool m_shutDown = false;
};

} // namespace flotilla
