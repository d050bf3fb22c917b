#pragma once
// Runs the buildings: start, stop, restart on request; restarts after an exit as the building's
// policy says, with backoff; starts the autostart ones with the service and stops every one with
// it. Each building's state (stopped | starting | running | exited | crashed, pid, exit code,
// restarts, start time) lives here, in memory; its configuration is BuildingStore's.
//
// States: a start makes the building `starting` (its process exists); after `settleMs` still up
// it is `running`. When the process ends: `stopped` if a stop asked for it, else `exited` (exit
// code 0) or `crashed` (any other code, a signal, or a program that could not start). A restart
// waits base, 2 x base, 4 x base... up to `restartMaxMs`; a run that stayed up `resetAfterMs`
// (read from the service's Clock) starts the sequence again from `restartBaseMs`.
//
// A change of configuration applies at the building's next start; a running building keeps its
// process. Every state change is announced by changed(id), the output by output().

#include "base/Clock.h"
#include "base/Error.h"
#include "buildings/BuildingRun.h"
#include "buildings/BuildingStore.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QProcessEnvironment>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace flotilla {

class AgentRegistry;
class SecretStore;
class SandboxPolicy;

struct BuildingTiming {
    int stopGraceMs = 10'000;     // SIGTERM to the group, SIGKILL this much later
    int restartBaseMs = 1000;     // first automatic restart's delay; doubles each time
    int restartMaxMs = 60'000;    // the delay never grows past this
    qint64 resetAfterMs = 60'000; // a run this long starts the backoff over
    int settleMs = 1000;          // `starting` until the process stayed up this long
    int shutdownGraceMs = 5000;   // at service shutdown, SIGKILL after this (for all together)
};

struct BuildingsConfig {
    BuildingTiming timing;
    // What every building's environment starts from (the service's, without its token); the
    // building's own `env` is added on top.
    QProcessEnvironment environment;
    // Batching and pacing of building_output (exec's rules); `stream.budget` is the supervisor's.
    StreamConfig stream;
    qint64 streamBudgetBytes = 8 * 1024 * 1024;
    qsizetype logBytes = 1024 * 1024;
};

class BuildingSupervisor final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BuildingSupervisor)
public:
    using CredentialSource = std::function<QList<QByteArray>()>;
    using Done = std::function<void(const Status &)>;

    // `credentials`: the service token and the agents' live tokens, masked like secrets.
    // `sandbox`: a building of a sandboxed agent runs in the same kind of sandbox
    // (sandbox/SandboxPolicy.h); others as they are.
    BuildingSupervisor(BuildingStore &store, const AgentRegistry &agents,
                       const SecretStore &secrets, const SandboxPolicy &sandbox, Clock clock,
                       BuildingsConfig config, CredentialSource credentials = {},
                       QObject *parent = nullptr);
    ~BuildingSupervisor() override; // SIGKILLs every group still running

    // Delays for tests (a crash loop measured in milliseconds, not seconds).
    void setTiming(const BuildingTiming &timing) { m_config.timing = timing; }
    const BuildingTiming &timing() const { return m_config.timing; }

    // The building with its state, as clients see it (env values masked).
    QJsonObject describe(const BuildingConfig &building) const;
    std::optional<QJsonObject> describe(const QString &id) const;
    QJsonArray list() const;

    // NotFound; Conflict already_running when it runs (or is starting); Invalid when its
    // directory, program or a secret is missing (the building is then `crashed` and its log
    // says why). A pending automatic restart is replaced by this start.
    Status start(const QString &id);
    // Ends the run (SIGTERM to the group, SIGKILL after the grace); `done` once it ended (at
    // once when nothing runs). A pending automatic restart is cancelled.
    Status stop(const QString &id, Done done);
    // stop, then start.
    Status restart(const QString &id, Done done);
    // stop, then delete the building from the store; `done` with the store's answer.
    Status remove(const QString &id, Done done);
    // The buildings marked autostart (at service start).
    void startAutostart();
    // Every building stops, synchronously: SIGTERM to every group at once, SIGKILL after
    // `shutdownGraceMs`. Nothing is announced afterwards. Idempotent.
    void shutdown();

    // GET /api/buildings/:id/logs: the newest `count` lines.
    Result<QList<BuildingLog::Line>> logs(const QString &id, int count, bool *truncated) const;

Q_SIGNALS:
    void changed(const QString &id);
    // Masked, batched output of a building's process.
    void output(const QString &id, const QByteArray &utf8, bool isError, qint64 skippedBefore);

private:
    struct Slot {
        QString state;
        BuildingRun *run = nullptr;
        std::optional<int> exitCode;
        std::optional<int> signal;
        qint64 startedAt = 0; // epoch ms, 0: never started
        int restarts = 0;     // automatic restarts since the last start on request
        int backoffStep = 0;
        bool stopping = false;
        QList<Done> whenStopped;
        QTimer restartTimer;
        QTimer settleTimer;
        BuildingLog log;
        explicit Slot(qsizetype logBytes)
            : log(logBytes) {}
    };
    Slot &slot(const QString &id);
    const Slot *findSlot(const QString &id) const;
    Result<BuildingLaunch> prepare(const BuildingConfig &b) const;
    Status spawn(const QString &id);
    void scheduleRestart(const QString &id);
    void onRunFinished(const QString &id, BuildingRun *run, const BuildingOutcome &outcome);
    void note(const QString &id, const QString &line);
    void setState(Slot &s, const QString &id, QLatin1String state);
    QString effectiveCwd(const BuildingConfig &b) const;
    QList<QByteArray> maskValues() const;

    BuildingStore &m_store;
    const AgentRegistry &m_agents;
    const SecretStore &m_secrets;
    const SandboxPolicy &m_sandbox;
    Clock m_clock;
    BuildingsConfig m_config;
    CredentialSource m_credentials;
    StreamBudget m_budget;
    QHash<QString, std::shared_ptr<Slot>> m_slots;
    bool m_shutDown = false;
};

} // namespace flotilla
