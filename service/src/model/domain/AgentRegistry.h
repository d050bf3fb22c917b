#pragma once
// The set of agents: the one owner of Agent state. Every mutation is written through to the
// database before it is acknowledged, then announced by a Qt signal the event hub turns into
// WebSocket events. The three list serialisations are cached and rebuilt only after a change.

#include "base/Clock.h"
#include "base/Error.h"
#include "domain/AgentValidation.h"
#include "domain/ClassDefaults.h"
#include "domain/ProviderCatalog.h"
#include "domain/WorktreeHooks.h"
#include "protocol/Agent.h"
#include "storage/Transaction.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <functional>

namespace flotilla {

class Database;
class StartupReport;

class AgentRegistry final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentRegistry)
public:
    // Runtime fields (status, current tool, context use) change many times a turn; they are
    // applied and broadcast at once but written to disk at most this often.
    static constexpr int kRuntimeFlushMs = 500;
    // After a failed flush (e.g. a full disk) the state stays dirty and is retried this often.
    static constexpr int kRuntimeFlushRetryMs = 5000;

    // `providers`: the agent CLIs agents may name, which every parser of an agent draft checks
    // against (providers()); it must outlive the registry.
    AgentRegistry(Database &db, const ProviderCatalog &providers, Clock clock,
                  QObject *parent = nullptr);
    ~AgentRegistry() override;

    const ProviderCatalog &providers() const { return m_providers; }

    // Reads every stored agent. An agent that was mid-turn when the service went down is marked
    // `error` with an explanation: its process is gone and the client must know.
    Status load(StartupReport &report);

    // A draft with `worktree` gets its worktree first (WorktreeHooks::create); it is undone if
    // the agent cannot be stored.
    Result<Agent> create(const AgentDraft &draft);
    Result<Agent> patch(const QString &id, const AgentPatch &patch);
    // An agent with a worktree: once it is gone, the hooks remove or keep the worktree as `how`
    // says, and `worktreeReport` (when given) gets what they did.
    Status remove(const QString &id, const WorktreeRemoval &how = {},
                  QJsonObject *worktreeReport = nullptr);

    // Set once by the composition root; without it a draft asking for a worktree is refused.
    void setWorktreeHooks(WorktreeHooks *hooks) { m_worktrees = hooks; }
    // The classes and skills agents are created against (domain/ClassDefaults.h); without it
    // (tests of the registry alone) a class is a label and `skills` are not checked.
    void setClassDefaults(const ClassDefaults *classes) { m_classes = classes; }
    // A create body as every way of creating an agent reads it: its class's defaults applied,
    // then parseAgentDraft, then its skills checked (422 unknown_skill) unless `checkSkills` is
    // off (a config import whose document brings the skills).
    Result<AgentDraft> parseDraft(const QJsonObject &body, bool checkSkills = true) const;
    // 422 unknown_skill naming the slugs that are no skill.
    Status checkSkills(const QStringList &slugs) const;
    // Directories no agent may work in (set once by the composition root): the service's data
    // and worktrees directories and its config directory. An agent there could read the
    // secrets and rewrite the database its own rights live in; its own worktree, which the
    // service places under the worktrees directory itself, is the exception.
    void setForbiddenCwdRoots(const QStringList &roots);
    // Whether a draft can be created as it is, creating nothing (config import checks every
    // entry before the first is made): its cwd, and whether its `worktree` can be honoured.
    Status checkDraft(const AgentDraft &draft) const;
    // Whether an agent's sandbox can be honoured here (set once by the composition root:
    // engine/sandbox/SandboxPolicy): 503 sandbox_unavailable, 422 invalid_sandbox. Asked by
    // create, checkDraft and a PATCH that changes `sandbox`, with the agent as it would be.
    using SandboxCheck = std::function<Status(const Agent &agent)>;
    void setSandboxCheck(SandboxCheck check) { m_sandboxCheck = std::move(check); }
    // Whether the agent's `host` exists and can run it as asked (set once by the composition
    // root: engine/hosts): 422 unknown_host, and what a remote host cannot do yet. Asked by create
    // and checkDraft with the agent as it would be (`worktree` set when it asks for one).
    using HostCheck = std::function<Status(const Agent &agent, bool wantsWorktree)>;
    void setHostCheck(HostCheck check) { m_hostCheck = std::move(check); }

    const Agent *find(const QString &id) const;
    // By name, case-insensitively (names are unique that way); nullptr when none.
    const Agent *findByName(const QString &name) const;
    QList<Agent> agents() const;
    int count() const { return int(m_order.size()); }

    // For the agent runtime: mutate in memory, broadcast the diff, persist soon.
    bool updateRuntime(const QString &id, const std::function<void(Agent &)> &mutate);
    // Writes pending runtime changes now (called on shutdown and by the flush timer).
    Status flush();

    const QByteArray &listJson();
    const QByteArray &statusJson();
    const QByteArray &simpleJson();
    QJsonArray listArray() const;

Q_SIGNALS:
    void agentCreated(const flotilla::Agent &agent);
    void agentUpdated(const QString &id, const QJsonObject &changes);
    void agentDeleted(const QString &id);

private:
    Status persist(const QList<const Agent *> &agents,
                   Durability durability = Durability::PowerLoss);
    // The same for rows serialized already: (id, toJson()).
    Status writeRows(const QList<QPair<QString, QJsonObject>> &rows, Durability durability);
    void invalidateCaches();
    bool nameTaken(const QString &name, const QString &exceptId) const;
    Status checkCwd(const QString &cwd) const;
    Status checkSandbox(const AgentDraft &draft) const;
    Status checkHost(const AgentDraft &draft) const;

    Database &m_db;
    const ProviderCatalog &m_providers;
    Clock m_clock;
    QHash<QString, Agent> m_agents;
    QHash<QString, QString> m_idByFoldedName; // names are unique case-insensitively
    QStringList m_order;                      // creation order
    QSet<QString> m_dirty;
    QTimer m_flushTimer;
    QByteArray m_listCache;
    QByteArray m_statusCache;
    QByteArray m_simpleCache;
    bool m_cachesValid = false;
    const ClassDefaults *m_classes = nullptr;
    WorktreeHooks *m_worktrees = nullptr;
    QStringList m_forbiddenCwdRoots; // canonical absolute paths
    SandboxCheck m_sandboxCheck;
    HostCheck m_hostCheck;
};

} // namespace flotilla
