#pragma once
// Agents' git worktrees: the registry's hooks for making and removing them
// (WorktreeProvisioner), the diff, review and merge behind WorktreeController, and the check after
// every turn that tells clients when an agent's diff changed (diffChanged ->
// worktree_diff_changed), so they refresh without polling.
//
// The check compares the tree of the agent's whole work (DiffTask: committed, uncommitted and
// untracked) after the turn with the one before it: taken when the agent's turn starts if the
// service has none yet (a new service), and kept in memory. Equal trees: no event, whatever the
// agent did. One check per agent at a time; a turn that ends meanwhile checks again after it.

#include "base/Error.h"
#include "protocol/Agent.h"
#include "worktrees/Git.h"
#include "worktrees/MergeTask.h"
#include "worktrees/WorktreeRequests.h"

#include <QHash>
#include <QJsonArray>
#include <QObject>
#include <QSet>

#include <memory>

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class SandboxPolicy;
class WorktreeHooks;
class WorktreeProvisioner;

class WorktreeService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorktreeService)
public:
    // The patch of a diff is cut after this many bytes (at a line end; truncated: true).
    static constexpr qsizetype kMaxPatchBytes = 512 * 1024;

    // `environment`: what git runs with (the agents' environment); `root`: where worktrees go.
    // `sandbox`: git in a sandboxed agent's worktree runs in the agent's sandbox (worktrees/Git.h).
    WorktreeService(AgentRegistry &agents, AgentRuntime &runtime, const SandboxPolicy &sandbox,
                    const QProcessEnvironment &environment, const QString &root,
                    QObject *parent = nullptr);
    ~WorktreeService() override;

    WorktreeHooks &hooks();
    QString root() const { return m_root; }

    // GET /api/agents/:id/diff: {baseCommit, branch, head, files, patch, truncated}.
    void diff(const QString &agentId, const QString &path,
              const std::function<void(const Result<QJsonObject> &)> &done);
    // POST /api/agents/:id/review: the review as the agent's next message (queued like any):
    // its place in the queue (0: sent now).
    Result<int> review(const QString &agentId, const ReviewRequest &review);
    // POST /api/agents/:id/merge. Refusals that need no git come back at once, through `done`.
    void merge(const QString &agentId, const MergeOptions &options,
               std::function<void(const MergeResult &)> done);

Q_SIGNALS:
    // A turn (or a merge) changed what the agent's diff shows: its files now.
    void diffChanged(const QString &agentId, const QJsonArray &files);
    // A merge brought the agent's work into its target (not emitted when already up to date):
    // hooks on worktree_merged read it.
    void merged(const QString &agentId, const QString &strategy,
                const flotilla::MergeResult &result);

private:
    // The agent, if it has a worktree that still exists: 404, 409 no_worktree otherwise.
    Result<Agent> worktreeAgent(const QString &id) const;
    // Reads the agent's work; `announce`: emit diffChanged if it differs from the last reading
    // (`force`: even if not).
    void check(const QString &agentId, bool announce, bool force = false);
    void onTurnStarted(const QString &agentId);

    AgentRegistry &m_agents;
    AgentRuntime &m_runtime;
    const SandboxPolicy &m_sandbox;
    QProcessEnvironment m_env;
    QString m_root;
    Git m_git;
    std::unique_ptr<WorktreeProvisioner> m_provisioner;
    QHash<QString, QString> m_trees; // agent id -> tree of its work at the last check
    QSet<QString> m_checking;        // a check runs
    QHash<QString, bool> m_again;    // another one after it (force flag)
    QSet<QString> m_merging;         // agent ids
    QSet<QString> m_mergeTargets;    // "<repo>\n<branch>": one merge into a checkout at a time
};

} // namespace flotilla
