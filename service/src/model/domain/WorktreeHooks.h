#pragma once
// The seam between the agent registry and git worktrees (worktrees/WorktreeProvisioner): the
// registry asks it when an agent with `worktree` is created and when an agent that has one is
// deleted, so every way of creating and deleting agents (POST /api/agents, spawn_boss_agent, a
// boss's spawn blocks, config import and its undo, DELETE and bulk delete) behaves the same.
// Domain code never runs git itself.

#include "base/Error.h"
#include "domain/AgentValidation.h"
#include "protocol/Agent.h"

#include <QJsonObject>

namespace flotilla {

// What deleting an agent does to its worktree (DELETE ?deleteBranch=&discard=, bulk delete).
struct WorktreeRemoval {
    bool deleteBranch = false; // the branch goes too (only once merged, unless discard)
    bool discard = false;      // uncommitted changes and unmerged commits are thrown away
};

// Where a new agent's worktree went, and the working directory the agent gets in it.
struct WorktreePlacement {
    AgentWorktree worktree;
    QString cwd;
};

class WorktreeHooks {
public:
    WorktreeHooks() = default;
    virtual ~WorktreeHooks() = default;
    Q_DISABLE_COPY_MOVE(WorktreeHooks)

    // Whether `draft.worktree` can be honoured (cwd in a repository, the base resolves, the branch
    // name is valid), creating nothing: config import checks a whole document first.
    virtual Status check(const AgentDraft &draft) = 0;
    // Creates the branch and the worktree for the agent `draft` describes.
    virtual Result<WorktreePlacement> create(const AgentDraft &draft) = 0;
    // After the agent is gone: removes or keeps its worktree and branch; what was done, for the
    // client ({path, branch, removed, branchDeleted, uncommittedPaths, reason}).
    virtual QJsonObject release(const Agent &agent, const WorktreeRemoval &how) = 0;
};

} // namespace flotilla
