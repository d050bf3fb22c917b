#pragma once
// An agent's own git worktree, as the agent object carries it: `worktree: {repo, path, branch,
// baseRef, baseCommit}`, or null for an agent that works in its cwd as given.

#include <QJsonValue>
#include <QString>

namespace flotilla {

struct AgentWorktree {
    QString repo;       // the repository's main checkout
    QString path;       // the worktree's directory (the agent's cwd is in it)
    QString branch;     // the branch checked out there, made for the agent
    QString baseRef;    // what the branch started from, as asked (default: the checkout's branch)
    QString baseCommit; // the commit the agent's changes are counted from (after a merge: the tip)

    bool isSet() const { return !path.isEmpty(); }
    // null when not set.
    QJsonValue toJson() const;
    // Anything that is not an object with a path: not set.
    static AgentWorktree fromJson(const QJsonValue &value);

    friend bool operator==(const AgentWorktree &a, const AgentWorktree &b) {
        return a.repo == b.repo && a.path == b.path && a.branch == b.branch &&
               a.baseRef == b.baseRef && a.baseCommit == b.baseCommit;
    }
    friend bool operator!=(const AgentWorktree &a, const AgentWorktree &b) { return !(a == b); }
};

} // namespace flotilla
