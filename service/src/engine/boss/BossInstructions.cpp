#include "boss/BossInstructions.h"

#include "boss/WorkPlanStore.h"
#include "protocol/Agent.h"

#include <QRegularExpression>

namespace flotilla::boss {

namespace {

const QString kCommand = QStringLiteral("Boss command");
const QString kTask = QStringLiteral("Delegated task");
const QString kReport = QStringLiteral("Task report");
const QString kPlan = QStringLiteral("Work plan");

QString marker(const QString &kind, const QString &id) {
    return QStringLiteral("[%1 %2]").arg(kind, id);
}

QString contextUse(const Agent &a) {
    if (a.contextLimit <= 0 || a.contextUsed <= 0)
        return QStringLiteral("context unused");
    return QStringLiteral("context %1% used (%2 of %3 tokens)")
        .arg(a.contextUsed * 100 / a.contextLimit)
        .arg(a.contextUsed)
        .arg(a.contextLimit);
}

QString identity(const Agent &boss) {
    return QStringLiteral(
               "You are \"%1\", the boss of a team of coding agents run by Flotilla. You do not "
               "do the work yourself: you decide which member of your team does it, and write "
               "the task for them.\n\n")
        .arg(boss.name);
}

// The answer formats the service parses (BlockParser). Kept in one place so every boss message
// teaches the same thing.
QString howToAnswer() {
    return QStringLiteral(
        "How to answer: give each task to the team member who should do it, in a fenced "
        "delegation block holding JSON:\n"
        "```delegation\n"
        "{\"agentId\": \"<id from the team list>\", \"task\": \"<complete, self-contained "
        "instructions>\", \"reasoning\": \"<why this member>\", \"confidence\": \"high\"}\n"
        "```\n"
        "- \"agentName\" may be used instead of \"agentId\"; confidence is high, medium or low.\n"
        "- Several tasks: a JSON array in one block, or several blocks.\n"
        "- Each task is sent to that member as written; the member reports back to you when "
        "done.\n"
        "- To add a member first: ```spawn {\"name\": \"<new unique name>\", \"class\": "
        "\"builder\"}``` (optional \"cwd\", default your own directory; \"worktree\": true "
        "gives it a git worktree and branch of its own, so members can change the same "
        "repository in parallel; \"host\": \"<host name>\" runs it on that machine, with a "
        "\"cwd\" there), then delegate to it by \"agentName\" in the same answer.\n"
        "- For larger work the user should approve first, propose a plan instead:\n"
        "```work-plan\n"
        "{\"title\": \"<short title>\", \"tasks\": [{\"description\": \"<task>\", \"agentName\": "
        "\"<member>\"}]}\n"
        "```\n"
        "- If nothing needs delegating, answer in plain text without blocks.\n"
        "- Preferred, when you have them: the tools of the flotilla MCP server do the same as "
        "the blocks and answer at once with the outcome (Claude Code names them "
        "mcp__flotilla__<tool>): list_team {}, spawn_agent {name, class?, cwd?, host?, worktree?}, "
        "delegate {agentId or agentName, task, reasoning?} and work_plan {title, description?, "
        "tasks: [{description, agentName?}]}. Give each task one way, a tool call or a block, "
        "never both.\n");
}

QString teamSection(const QList<Agent> &team) {
    if (team.isEmpty())
        return QStringLiteral("Your team is empty: add a member (the spawn_agent tool or a spawn "
                              "block) before delegating.\n\n");
    return QStringLiteral("Your team (%1 member%2):\n")
               .arg(team.size())
               .arg(team.size() == 1 ? QString() : QStringLiteral("s")) +
           teamListing(team) + QLatin1Char('\n');
}

} // namespace

QString markerIdOf(const QString &text) {
    static const QRegularExpression re(
        QStringLiteral("^\\[(?:Boss command|Delegated task|Task report|Work plan) "
                       "([0-9A-Za-z-]{1,64})\\]"));
    const auto m = re.match(text);
    return m.hasMatch() ? m.captured(1) : QString();
}

QString teamListing(const QList<Agent> &team) {
    QString out;
    for (const Agent &a : team) {
        // Where a member runs matters to the tasks it can take (its files are that machine's).
        const QString where =
            a.host.isEmpty() ? QString() : QStringLiteral(", on host %1").arg(a.host);
        out += QStringLiteral("- %1 (id %2, class %3%4): status %5; current task: %6; %7\n")
                   .arg(a.name, a.id, a.agentClass, where, a.status,
                        a.currentTask.isEmpty()
                            ? QStringLiteral("none")
                            : QString(QLatin1Char('"') + a.currentTask.left(120).simplified() +
                                      QLatin1Char('"')),
                        contextUse(a));
    }
    return out;
}

QString commandMessage(const QString &ref, const Agent &boss, const QList<Agent> &team,
                       const QString &command) {
    return marker(kCommand, ref) + QLatin1Char('\n') + identity(boss) + teamSection(team) +
           howToAnswer() + QStringLiteral("\nCommand from the user:\n") + command;
}

QString taskMessage(const QString &delegationId, const Agent &boss, const Agent &subordinate,
                    const QString &task) {
    return marker(kTask, delegationId) +
           QStringLiteral(" from your boss \"%1\" (id %2)\n\n").arg(boss.name, boss.id) + task +
           QStringLiteral(
               "\n\nWhen you have finished, report to your boss through the Flotilla service "
               "that runs you: call the report_task tool of the flotilla MCP server "
               "(mcp__flotilla__report_task) with {\"summary\": \"<what you did and the "
               "outcome>\", \"status\": \"completed\"}. If that tool is unavailable, run:\n"
               "curl -s -X POST \"$FLOTILLA_URL/api/agents/%1/report-task\" -H 'Content-Type: "
               "application/json' -H @\"$FLOTILLA_AUTH_HEADER_FILE\" -d '{\"summary\": \"<what "
               "you did and the outcome>\", \"status\": \"completed\"}'\n"
               "Use \"status\": \"failed\" if you could not do it. Without a report, your final "
               "answer becomes the task's summary.")
               .arg(subordinate.id);
}

QString reportMessage(const QString &ref, const Agent &boss, const QList<Agent> &team,
                      const Agent &subordinate, bool success, const QString &summary,
                      const QString &originalTask) {
    return marker(kReport, ref) +
           QStringLiteral(" from \"%1\" (id %2)\nStatus: %3\nOriginal task: %4\nSummary:\n%5\n\n")
               .arg(subordinate.name, subordinate.id,
                    success ? QStringLiteral("COMPLETED") : QStringLiteral("FAILED"),
                    originalTask.isEmpty() ? QStringLiteral("(none tracked)")
                                           : originalTask.left(300),
                    summary) +
           identity(boss) + teamSection(team) +
           QStringLiteral("If follow-up work is needed, delegate it as below; otherwise "
                          "acknowledge briefly.\n") +
           howToAnswer();
}

QString planAssignMessage(const QString &ref, const Agent &boss, const QList<Agent> &team,
                          const WorkPlan &plan, const QList<PlanTask> &unassigned) {
    QString tasks;
    for (const PlanTask &t : unassigned)
        tasks += QStringLiteral("- %1: %2\n").arg(t.id, t.description);
    return marker(kPlan, ref) +
           QStringLiteral(" \"%1\" (planId %2) was approved. These tasks have no team member "
                          "yet:\n")
               .arg(plan.title, plan.id) +
           tasks + QLatin1Char('\n') + identity(boss) + teamSection(team) + howToAnswer() +
           QStringLiteral("Delegate each of these tasks in a delegation block that also carries "
                          "\"planId\": \"%1\" and \"planTaskId\": \"<task id, e.g. t1>\".\n")
               .arg(plan.id);
}

} // namespace flotilla::boss
