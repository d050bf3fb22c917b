#pragma once
// The text of every message the boss service sends to an agent. A boss is a real Claude Code
// agent: it learns its team and the answer format from these messages (there is no per-agent
// system prompt), so each boss message carries the team as it is now and the block formats.
//
// Every message starts with a marker line "[<Kind> <id>]" that TurnTracker recognises in the
// agent's currentTask (the runtime keeps the first 200 characters of the message there).

#include <QList>
#include <QString>

namespace flotilla {
struct Agent;
}

namespace flotilla::boss {

struct PlanTask;
struct WorkPlan;

// The id in a leading marker, or empty when the text does not start with one of ours.
QString markerIdOf(const QString &text);

// The boss's team, one line per member: name, id, class, status, current task, context use.
QString teamListing(const QList<Agent> &team);

// send_boss_command: identity, team, how to answer, then the user's command last.
QString commandMessage(const QString &ref, const Agent &boss, const QList<Agent> &team,
                       const QString &command);

// The task as a subordinate receives it, with how to report back.
QString taskMessage(const QString &delegationId, const Agent &boss, const Agent &subordinate,
                    const QString &task);

// A report-task forwarded to the boss, with its team and the answer format (it may delegate
// follow-up work).
QString reportMessage(const QString &ref, const Agent &boss, const QList<Agent> &team,
                      const Agent &subordinate, bool success, const QString &summary,
                      const QString &originalTask);

// An approved work plan whose listed tasks have no agent yet: the boss assigns them.
QString planAssignMessage(const QString &ref, const Agent &boss, const QList<Agent> &team,
                          const WorkPlan &plan, const QList<PlanTask> &unassigned);

} // namespace flotilla::boss
