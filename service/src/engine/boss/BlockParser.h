#pragma once
// What a boss's answer asks the service to do, read from fenced blocks in its final text:
//   ```delegation  {agentId|agentName, task, reasoning?, confidence?}  (or an array of them)
//   ```spawn       {name, class?, cwd?, host?, provider?, model?, worktree?}  (or an array)
//   ```work-plan   {title, description?, tasks: [{description, agentId?|agentName?}]}
// Pure functions (no registry, no I/O), so the rules are unit-tested on their own. Each parser
// validates a whole block and names the bad field (with the item number inside an array); the
// caller rejects a block as a unit, so a boss never gets half of what it asked for.
// Unknown fields inside a block are ignored: the text comes from a model, not from a client
// whose typos we want to catch, and extra commentary fields are common.

#include "base/Error.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace flotilla::boss {

namespace blocklimits {
inline constexpr int kMaxItems = 20;          // delegations or spawns in one block
inline constexpr int kMaxTaskChars = 100'000; // a delegated task (the runtime takes 200'000)
inline constexpr int kMaxReasoningChars = 4'000;
inline constexpr int kMaxTitleChars = 200;
inline constexpr int kMaxDescriptionChars = 20'000;
inline constexpr int kMaxPlanTasks = 50;
} // namespace blocklimits

struct FencedBlock {
    QString tag;  // lower case, e.g. "delegation"
    QString body; // text between the fences
    int line = 0; // 1-based line of the opening fence
    bool closed = true;
};

// The fenced blocks whose tag is one of `tags` (case-insensitive), in order of appearance.
// "```tag" opens a block (text after the tag on that line is kept when it starts a JSON value),
// a line of only backticks closes it. Blocks with other tags (```json, ```cpp) are skipped.
QList<FencedBlock> extractBlocks(const QString &text, const QStringList &tags);

struct DelegationItem {
    QString agentId; // one of agentId / agentName is set
    QString agentName;
    QString task;
    QString reasoning;
    QString confidence; // high | medium | low (numbers 0..1 are mapped; default medium)
    QString planId;     // both or neither: the work plan task this delegation assigns
    QString planTaskId;
};
Result<QList<DelegationItem>> parseDelegationBlock(const QString &body);

// Each item keeps only the create fields (name, class, cwd, provider, model); cwd may be absent.
Result<QList<QJsonObject>> parseSpawnBlock(const QString &body);

struct PlanTaskDraft {
    QString description;
    QString agentId; // empty with agentName empty: the boss assigns it when the plan is approved
    QString agentName;
};
struct WorkPlanDraft {
    QString title;
    QString description;
    QList<PlanTaskDraft> tasks;
};
Result<WorkPlanDraft> parseWorkPlanBlock(const QString &body);

} // namespace flotilla::boss
