#include "hooks/HookFeed.h"

#include "agents/AgentRuntime.h"
#include "domain/AgentRegistry.h"
#include "domain/NotificationService.h"
#include "hooks/HookRunner.h"
#include "protocol/ExecNames.h"
#include "protocol/NotifyNames.h"
#include "protocol/PermissionNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WorktreeNames.h"
#include "usage/UsageService.h"
#include "worktrees/WorktreeService.h"
#include "ws/EventHub.h"

namespace flotilla {

namespace k = wire::key;
namespace ne = wire::notify::event;
namespace he = wire::shaping::hookevent;
namespace hk = wire::shaping::hookkey;
namespace wk = wire::worktree::key;

namespace {
constexpr int kNotifyTextMax = 1000; // as the notification channels send it
constexpr int kTurnTextMax = 65536;  // a turn's whole answer, within reason

QJsonObject aboutAgent(const AgentRegistry &agents, const QString &agentId) {
    const Agent *agent = agents.find(agentId);
    return {{k::AgentId, agentId}, {k::AgentName, agent ? agent->name : QString()}};
}
} // namespace

void feedHooks(HookRunner &runner, NotificationService &notifications, const AgentRegistry &agents,
               AgentRuntime &runtime, UsageService &usage, WorktreeService &worktrees,
               EventHub &hub) {
    HookRunner *out = &runner;
    QObject::connect(&notifications, &NotificationService::notificationPosted, out,
                     [out](const Notification &n) {
                         out->submit(ne::AgentNotification, n.agentId, n.toJson());
                     });
    QObject::connect(&hub, &EventHub::broadcasted, out,
                     [out, &agents](QLatin1String type, const QJsonValue &payload) {
                         if (type == wire::permission::msg::Request) {
                             const QJsonObject request = payload.toObject();
                             out->submit(ne::PermissionRequest,
                                         request.value(k::AgentId).toString(), request);
                         } else if (type == wire::exec::msg::ExecTaskCompleted) {
                             QJsonObject task = payload.toObject();
                             const QString agentId = task.value(k::AgentId).toString();
                             const Agent *agent = agents.find(agentId);
                             task.insert(k::AgentName, agent ? agent->name : QString());
                             out->submit(he::ExecFinished, agentId, task);
                         }
                     });
    QObject::connect(&runtime, &AgentRuntime::turnFinished, out,
                     [out, &agents](const QString &agentId, const QString &text, bool isError) {
                         QJsonObject turn = aboutAgent(agents, agentId);
                         turn.insert(hk::Result, text.left(kTurnTextMax));
                         turn.insert(hk::IsError, isError);
                         out->submit(he::TurnFinished, agentId, turn);
                         if (isError)
                             return; // the status becomes error: agent_error below
                         QJsonObject finished = aboutAgent(agents, agentId);
                         finished.insert(wire::notify::key::Result, text.left(kNotifyTextMax));
                         out->submit(ne::AgentFinished, agentId, finished);
                     });
    QObject::connect(&agents, &AgentRegistry::agentUpdated, out,
                     [out, &agents](const QString &id, const QJsonObject &changes) {
                         if (changes.value(k::Status).toString() != wire::status::Error)
                             return;
                         const Agent *agent = agents.find(id);
                         QJsonObject payload = aboutAgent(agents, id);
                         payload.insert(k::Error,
                                        agent ? agent->lastError.left(kNotifyTextMax) : QString());
                         out->submit(ne::AgentError, id, payload);
                     });
    QObject::connect(&agents, &AgentRegistry::agentCreated, out, [out](const Agent &agent) {
        out->submit(he::AgentCreated, agent.id, agent.toJson());
    });
    QObject::connect(&usage, &UsageService::budgetExceeded, out, [out](const QJsonObject &payload) {
        out->submit(he::BudgetExceeded, payload.value(k::AgentId).toString(), payload);
    });
    QObject::connect(
        &worktrees, &WorktreeService::merged, out,
        [out, &agents](const QString &agentId, const QString &strategy, const MergeResult &m) {
            QJsonObject merge = aboutAgent(agents, agentId);
            merge.insert(wk::Strategy, strategy);
            merge.insert(wk::Branch, m.branch);
            merge.insert(wk::Target, m.target);
            merge.insert(wk::TargetPath, m.targetPath);
            merge.insert(wk::Commit, m.commit);
            merge.insert(wk::AutoCommit,
                         m.autoCommit.isEmpty() ? QJsonValue() : QJsonValue(m.autoCommit));
            out->submit(he::WorktreeMerged, agentId, merge);
        });
}

} // namespace flotilla
