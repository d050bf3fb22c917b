#include "protocol/Agent.h"

#include "protocol/HostNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace uk = wire::usage::key;
namespace sk = wire::shaping::key;

namespace {
QJsonValue nullable(const QString &s) {
    return s.isEmpty() ? QJsonValue() : QJsonValue(s);
}
} // namespace

QJsonObject Agent::toJson() const {
    return QJsonObject{
        {k::Id, id},
        {k::Name_, name},
        {k::Class, agentClass},
        {k::PermissionMode, permissionMode},
        {k::Status, status},
        {k::Cwd, cwd},
        {k::Provider, provider},
        {k::Model, model},
        {k::TaskLabel, taskLabel},
        {k::TrackingStatus, nullable(trackingStatus)},
        {k::TrackingStatusDetail, trackingStatusDetail},
        {k::CurrentTask, currentTask},
        {k::CurrentTool, currentTool},
        {k::IsProcessRunning, isProcessRunning},
        {k::ContextUsed, contextUsed},
        {k::ContextLimit, contextLimit},
        {k::TokensUsed, tokensUsed},
        {k::SessionId, nullable(sessionId)},
        {k::CreatedAt, createdAt},
        {k::LastActivity, lastActivity},
        {k::TaskCount, taskCount},
        {k::IsBoss, isBoss},
        {k::BossId, nullable(bossId)},
        {k::SubordinateIds, QJsonArray::fromStringList(subordinateIds)},
        {k::AreaId, nullable(areaId)},
        {k::LastError, nullable(lastError)},
        {wire::worktree::key::Worktree, worktree.toJson()},
        {wire::sandbox::key::Sandbox, sandbox.toJson()},
        {wire::host::key::Host, host.isEmpty() ? QString(wire::host::Local) : host},
        {uk::IdleTimeoutSeconds,
         idleTimeoutSeconds < 0 ? QJsonValue() : QJsonValue(idleTimeoutSeconds)},
        {uk::Usage, usage.toJson()},
        {uk::Budget, budget.toJson()},
        {sk::CustomInstructions, customInstructions},
        {sk::Skills, QJsonArray::fromStringList(skills)},
    };
}

QJsonObject Agent::toStatusJson() const {
    return QJsonObject{
        {k::Id, id},
        {k::Name_, name},
        {k::Status, status},
        {k::CurrentTask, currentTask},
        {k::CurrentTool, currentTool},
        {k::IsProcessRunning, isProcessRunning},
    };
}

QJsonObject Agent::toSimpleJson() const {
    return QJsonObject{{k::Id, id}, {k::Name_, name}};
}

bool Agent::fromJson(const QJsonObject &json, Agent *out) {
    Agent a;
    a.id = json.value(k::Id).toString();
    a.name = json.value(k::Name_).toString();
    if (a.id.isEmpty() || a.name.isEmpty())
        return false;
    a.agentClass = json.value(k::Class).toString();
    a.permissionMode = json.value(k::PermissionMode).toString(QStringLiteral("ask"));
    a.status = json.value(k::Status).toString();
    a.cwd = json.value(k::Cwd).toString();
    a.provider = json.value(k::Provider).toString();
    a.model = json.value(k::Model).toString();
    a.taskLabel = json.value(k::TaskLabel).toString();
    a.trackingStatus = json.value(k::TrackingStatus).toString();
    a.trackingStatusDetail = json.value(k::TrackingStatusDetail).toString();
    a.currentTask = json.value(k::CurrentTask).toString();
    a.currentTool = json.value(k::CurrentTool).toString();
    a.isProcessRunning = json.value(k::IsProcessRunning).toBool();
    a.contextUsed = json.value(k::ContextUsed).toInteger();
    a.contextLimit = json.value(k::ContextLimit).toInteger();
    a.tokensUsed = json.value(k::TokensUsed).toInteger();
    a.sessionId = json.value(k::SessionId).toString();
    a.createdAt = json.value(k::CreatedAt).toInteger();
    a.lastActivity = json.value(k::LastActivity).toInteger();
    a.taskCount = json.value(k::TaskCount).toInt();
    a.isBoss = json.value(k::IsBoss).toBool();
    a.bossId = json.value(k::BossId).toString();
    const QJsonArray subs = json.value(k::SubordinateIds).toArray();
    for (const QJsonValue &v : subs)
        a.subordinateIds.append(v.toString());
    a.areaId = json.value(k::AreaId).toString();
    a.lastError = json.value(k::LastError).toString();
    a.worktree = AgentWorktree::fromJson(json.value(wire::worktree::key::Worktree));
    a.sandbox = AgentSandbox::fromJson(json.value(wire::sandbox::key::Sandbox));
    a.host = json.value(wire::host::key::Host).toString();
    if (a.host == wire::host::Local)
        a.host.clear();
    const QJsonValue idle = json.value(uk::IdleTimeoutSeconds);
    a.idleTimeoutSeconds = idle.isDouble() ? qMax(0, idle.toInt()) : -1;
    a.usage = UsageTotals::fromJson(json.value(uk::Usage).toObject());
    a.budget = Budget::fromJson(json.value(uk::Budget));
    a.customInstructions = json.value(sk::CustomInstructions).toString();
    const QJsonArray skills = json.value(sk::Skills).toArray();
    for (const QJsonValue &v : skills)
        a.skills.append(v.toString());
    *out = std::move(a);
    return true;
}

QJsonObject Agent::changedFields(const Agent &before, const Agent &after) {
    return changedFields(before.toJson(), after.toJson());
}

QJsonObject Agent::changedFields(const QJsonObject &b, const QJsonObject &a) {
    QJsonObject diff{{k::Id, a.value(k::Id)}, {k::Name_, a.value(k::Name_)}};
    for (auto it = a.constBegin(); it != a.constEnd(); ++it) {
        if (b.value(it.key()) != it.value())
            diff.insert(it.key(), it.value());
    }
    return diff;
}

} // namespace flotilla
