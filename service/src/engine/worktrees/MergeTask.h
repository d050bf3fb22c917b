#pragma once
// POST /api/agents/:id/merge, as a sequence of git commands run asynchronously.
//
// Nothing is changed until git says the merge is clean: the agent's whole state (uncommitted and
// untracked work included, DiffTask) becomes a commit object that no branch points at yet
// (`commit-tree`), and `git merge-tree --write-tree` merges it with the target in memory. A
// conflict is answered with its paths and both checkouts exactly as they were. Only then is the
// uncommitted work really committed in the agent's worktree (the message says so), and the
// strategy runs:
//   merge   `git merge --no-ff` of the agent's branch in the target's checkout;
//   squash  `git merge --squash` + `git commit` there; the agent's branch then restarts from the
//           target's new tip (`reset --keep`; its work is in the squash), so its next diff starts
//           from there;
//   rebase  `git rebase <target>` in the agent's worktree, then `git merge --ff-only` in the
//           target's checkout.
// If git still fails after that (a hook, a file git will not overwrite, a rebase that conflicts
// commit by commit), everything is undone: the target's merge aborted, the agent's commit taken
// back (`reset --soft`) and its index file restored byte for byte, so `git status` of both reads
// as before.

#include "base/Error.h"
#include "protocol/AgentWorktree.h"
#include "worktrees/DiffTask.h"

#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTemporaryDir>

#include <functional>

namespace flotilla {

class Git;
struct GitResult;

struct MergeRequest {
    QString agentName;
    AgentWorktree worktree;
    QString strategy;    // merge | squash | rebase (WorktreeNames.h)
    QString target;      // a branch checked out in some worktree of the repository
    QString message;     // the merge or squash commit's message; empty: a default naming the agent
    SandboxSpec sandbox; // the agent's: git in its worktree runs there (worktrees/Git.h)
};

struct MergeResult {
    Status error;          // set: nothing was merged, and nothing is changed
    QStringList conflicts; // with merge_conflict: the paths both sides changed
    QString branch;        // the agent's branch that was merged
    QString target;        // the branch merged into
    QString targetPath;    // the checkout of the target
    QString commit;        // the target's tip afterwards
    QString autoCommit;    // the commit made of uncommitted work, or empty
    QString newBase;       // merge base of target and branch afterwards (the agent's baseCommit)
    bool alreadyUpToDate = false;
};

class MergeTask final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MergeTask)
public:
    using Done = std::function<void(const MergeResult &)>;
    // `environment`: for the committer identity check (GIT_AUTHOR_NAME...).
    static void start(const Git &git, const QProcessEnvironment &environment, MergeRequest request,
                      QObject *context, Done done);

private:
    using Next = std::function<void(const GitResult &)>;
    MergeTask(const Git &git, const QProcessEnvironment &environment, MergeRequest request,
              Done done, QObject *parent);
    void run(const QString &dir, const QStringList &args, Next next, bool slow = false,
             const SandboxSpec &sandbox = {});
    // In the agent's worktree: inside its sandbox, if it has one.
    void inAgent(const QStringList &args, Next next, bool slow = false) {
        run(m_request.worktree.path, args, std::move(next), slow, m_request.sandbox);
    }
    // In the user's checkout of the target: the user's own git, as is.
    void inTarget(const QStringList &args, Next next, bool slow = false) {
        run(m_result.targetPath, args, std::move(next), slow);
    }
    void finish();
    void fail(const Error &error, const QStringList &conflicts = {});
    // Takes back the agent's commit and index, then fails.
    void undoThenFail(const Error &error, const QStringList &conflicts = {});
    // A strategy's git command failed: find what conflicts, run `abort`, undo, fail.
    void recover(const GitResult &failed, const QString &verb, const QString &dir,
                 const QStringList &abort);
    QString targetRef() const { return QStringLiteral("refs/heads/") + m_request.target; }
    QString branchRef() const { return QStringLiteral("refs/heads/") + m_result.branch; }

    void checkTarget();
    void readIdentity();
    void readState();
    void checkMerge();
    void commitWork();
    void runStrategy();
    void conclude();

    const Git &m_git;
    QProcessEnvironment m_env;
    MergeRequest m_request;
    Done m_done;
    QTemporaryDir m_scratch;
    MergeResult m_result;
    QStringList m_identity; // -c user.name=... when git knows no committer (docs/api.md)
    DiffState m_state;
    QString m_candidate; // the commit the merge is checked with
    bool m_dirty = false;
    bool m_committed = false;
};

} // namespace flotilla
