#pragma once
// Wire names of agents' git worktrees: the agent's `worktree` field, the diff, review and merge
// routes, the delete report and the worktree_diff_changed event. Shared by service, monitor and
// tests. Keys every area uses (id, agentId, message, status...) stay in WireNames.h.

#include "protocol/WireNames.h"

namespace flotilla::wire::worktree {

using ::flotilla::wire::Name;

// Server -> client.
namespace msg {
// {agentId, files}: a turn of the agent changed what its diff shows (files as in the diff).
inline constexpr Name WorktreeDiffChanged{"worktree_diff_changed"};
} // namespace msg

namespace key {
// The agent's field, and the create request's: true or {baseRef?, branch?}.
inline constexpr Name Worktree{"worktree"};
// Inside it
inline constexpr Name Repo{"repo"};
inline constexpr Name Path{"path"};
inline constexpr Name Branch{"branch"};
inline constexpr Name BaseRef{"baseRef"};
inline constexpr Name BaseCommit{"baseCommit"};
// GET /api/agents/:id/diff
inline constexpr Name Head{"head"};
inline constexpr Name Files{"files"};
inline constexpr Name Patch{"patch"};
inline constexpr Name Truncated{"truncated"};
inline constexpr Name OldPath{"oldPath"};
inline constexpr Name Additions{"additions"};
inline constexpr Name Deletions{"deletions"};
inline constexpr Name Binary{"binary"};
// POST /api/agents/:id/review
inline constexpr Name Comments{"comments"};
inline constexpr Name Line{"line"};
inline constexpr Name Body{"body"};
// POST /api/agents/:id/merge
inline constexpr Name Strategy{"strategy"};
inline constexpr Name Target{"target"};
inline constexpr Name TargetPath{"targetPath"};
inline constexpr Name Commit{"commit"};
inline constexpr Name AutoCommit{"autoCommit"};
inline constexpr Name AlreadyUpToDate{"alreadyUpToDate"};
inline constexpr Name Conflicts{"conflicts"};
// The delete report: DELETE /api/agents/:id, POST /api/agents/bulk/delete
inline constexpr Name Worktrees{"worktrees"};
inline constexpr Name Removed{"removed"};
inline constexpr Name BranchDeleted{"branchDeleted"};
inline constexpr Name UncommittedPaths{"uncommittedPaths"};
} // namespace key

// Query parameters.
namespace param {
inline constexpr Name Path{"path"};                 // GET diff: one file
inline constexpr Name DeleteBranch{"deleteBranch"}; // DELETE: the branch goes too
inline constexpr Name Discard{"discard"};           // DELETE: uncommitted changes go too
} // namespace param

// `strategy` of a merge.
namespace strategy {
inline constexpr Name Merge{"merge"};
inline constexpr Name Squash{"squash"};
inline constexpr Name Rebase{"rebase"};
} // namespace strategy

// `status` of a diff file.
namespace file {
inline constexpr Name Added{"added"};
inline constexpr Name Modified{"modified"};
inline constexpr Name Deleted{"deleted"};
inline constexpr Name Renamed{"renamed"};
inline constexpr Name Copied{"copied"};
inline constexpr Name TypeChanged{"typechange"};
} // namespace file

// Machine codes beside the common ones of WireNames.h.
namespace code {
inline constexpr Name NotARepository{"not_a_repository"}; // 422: worktree asked, cwd not in git
inline constexpr Name UnknownRef{"unknown_ref"};       // 422: baseRef or target resolves to nothing
inline constexpr Name NoWorktree{"no_worktree"};       // 409: the agent has no worktree
inline constexpr Name AgentWorking{"agent_working"};   // 409: merge while the agent works
inline constexpr Name MergeConflict{"merge_conflict"}; // 409: with `conflicts`, nothing changed
inline constexpr Name MergeRefused{"merge_refused"};   // 409: git or a checkout's state refused
inline constexpr Name GitFailed{"git_failed"};         // 500: git failed or timed out
inline constexpr Name GitUnavailable{"git_unavailable"}; // 503: no git binary
} // namespace code

} // namespace flotilla::wire::worktree
