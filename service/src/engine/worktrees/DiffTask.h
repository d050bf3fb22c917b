#pragma once
// The state of an agent's worktree against its base, read with git, asynchronously: what
// GET /api/agents/:id/diff answers, what the check after each turn compares, and where a merge
// starts from.
//
// Uncommitted and untracked work is included without touching the agent's own index: a copy of
// it (so git's stat cache still spares unchanged files) becomes a scratch index (GIT_INDEX_FILE),
// `git add -A` puts the working tree in it (what .gitignore ignores stays out), and the diff is
// that index against the merge base of baseRef and HEAD. `git write-tree` of the same index gives
// the tree of everything the agent has, committed or not: equal trees, equal work.

#include "base/Error.h"
#include "base/Sandbox.h"
#include "worktrees/DiffParser.h"

#include <QObject>
#include <QTemporaryDir>

#include <functional>

namespace flotilla {

class Git;
struct GitResult;

struct DiffRequest {
    QString worktree;      // the worktree's directory
    QString baseRef;       // what the diff is against: its merge base with HEAD...
    QString fallbackBase;  // ...or this commit when baseRef no longer resolves
    QString path;          // one file (repository-relative), or empty for all
    bool withFiles = true; // the file list (numstat)
    bool withPatch = true; // the patch text
    qsizetype maxPatchBytes = 512 * 1024;
    SandboxSpec sandbox; // the agent's: git in its worktree runs there (worktrees/Git.h)
};

struct DiffState {
    QString indexPath; // the worktree's own index file
    QString head;      // HEAD's commit
    QString branch;    // the branch checked out, "HEAD" when detached
    QString base;      // the commit the diff is against
    QString tree;      // the tree of the working tree as `git add -A` sees it
    QList<DiffFile> files;
    QString patch;
    bool truncated = false;
};

class DiffTask final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DiffTask)
public:
    using Done = std::function<void(const Result<DiffState> &)>;
    // Runs git while the event loop goes on; `done` is called once, unless `context` is
    // destroyed first.
    static void start(const Git &git, DiffRequest request, QObject *context, Done done);

private:
    DiffTask(const Git &git, DiffRequest request, Done done, QObject *parent);
    void run(const QStringList &args, void (DiffTask::*next)(const GitResult &),
             bool scratchIndex = false, int timeoutMs = 0, qint64 maxOutput = 0);
    void fail(const Error &error);
    void onHead(const GitResult &r);
    void onMergeBase(const GitResult &r);
    void onScratchReady(const GitResult &r);
    void onAdded(const GitResult &r);
    void onTree(const GitResult &r);
    void onFiles(const GitResult &r);
    void onPatch(const GitResult &r);
    void finish();
    QStringList pathspec() const;

    const Git &m_git;
    DiffRequest m_request;
    Done m_done;
    QTemporaryDir m_scratch;
    DiffState m_state;
};

} // namespace flotilla
