#pragma once
// Makes and removes agents' worktrees (the registry's WorktreeHooks), synchronously with bounded
// timeouts (Git.h says why).
//
// Where: <root>/<repo-name>-<8 hex of SHA-1 of the repository's path>/<agent-name slug>, root
// being --worktrees-dir (default: the data directory's sibling "<data dir>-worktrees"). Not in the
// data directory: that holds the service's secrets and database and is off limits to agents' tool
// uses (permissions/ProtectedPaths), so an agent could not edit its own files there. Not in the
// repository: a worktree nested in the main checkout would show in its `git status`, builds,
// searches and IDE indexes (one more copy of the sources per agent). The hash keeps two
// repositories of the same name apart; an existing directory is never reused (-2, -3...).
//
// Branch: worktree.branch or flotilla/<agent-name slug>; one that exists already is never
// touched: -2, -3... is appended until the name is free.

#include "domain/WorktreeHooks.h"
#include "worktrees/Git.h"

namespace flotilla {

class WorktreeProvisioner final : public WorktreeHooks {
public:
    // At most this many `-n` suffixes are tried for a branch or a directory.
    static constexpr int kMaxSuffix = 100;
    // Listed in a delete report: the first uncommitted paths that kept a worktree.
    static constexpr int kMaxReportedPaths = 50;

    WorktreeProvisioner(const Git &git, QString root);

    Status check(const AgentDraft &draft) override;
    Result<WorktreePlacement> create(const AgentDraft &draft) override;
    QJsonObject release(const Agent &agent, const WorktreeRemoval &how) override;

    // An agent name as a path and branch component: [A-Za-z0-9._-], no "..", at most 60.
    static QString slug(const QString &name);

private:
    struct Facts {
        QString toplevel; // the checkout cwd is in
        QString repo;     // the main checkout
        QString prefix;   // cwd relative to toplevel ("" at the top)
        QString baseRef;
        QString baseCommit;
        QString branch; // as asked or the default, before collisions are resolved
    };
    Result<Facts> inspect(const AgentDraft &draft) const;
    Result<QString> freeBranch(const Facts &facts) const;
    QString freeDirectory(const Facts &facts, const QString &agentName) const;
    GitResult git(const QString &dir, const QStringList &args, int timeoutMs = Git::kQuickMs) const;

    const Git &m_git;
    QString m_root;
};

} // namespace flotilla
