#include "worktrees/WorktreeService.h"

#include "agents/AgentRuntime.h"
#include "domain/AgentRegistry.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"
#include "sandbox/SandboxPolicy.h"
#include "worktrees/DiffTask.h"
#include "worktrees/WorktreeLogging.h"
#include "worktrees/WorktreeProvisioner.h"

#include <QDir>
#include <QFileInfo>

namespace flotilla {

namespace k = wire::key;
namespace wk = wire::worktree::key;
namespace wc = wire::worktree::code;
namespace st = wire::status;

WorktreeService::WorktreeService(AgentRegistry &agents, AgentRuntime &runtime,
                                 const SandboxPolicy &sandbox,
                                 const QProcessEnvironment &environment, const QString &root,
                                 QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_runtime(runtime)
    , m_sandbox(sandbox)
    , m_env(environment)
    , m_root(QDir::cleanPath(root))
    , m_git(environment, sandbox.launcher())
    , m_provisioner(std::make_unique<WorktreeProvisioner>(m_git, m_root)) {
    connect(&m_runtime, &AgentRuntime::turnFinished, this,
            [this](const QString &id) { check(id, true); });
    connect(&m_agents, &AgentRegistry::agentUpdated, this,
            [this](const QString &id, const QJsonObject &changes) {
                if (changes.value(k::Status).toString() == st::Working)
                    onTurnStarted(id);
            });
    connect(&m_agents, &AgentRegistry::agentDeleted, this, [this](const QString &id) {
        m_trees.remove(id);
        m_again.remove(id);
    });
}

WorktreeService::~WorktreeService() = default;

WorktreeHooks &WorktreeService::hooks() {
    return *m_provisioner;
}

Result<Agent> WorktreeService::worktreeAgent(const QString &id) const {
    const Agent *a = m_agents.find(id);
    if (!a)
        return Error::notFound(wire::code::NotFound,
                               QStringLiteral("no agent with id '%1'").arg(id));
    if (!a->worktree.isSet())
        return Error::conflict(wc::NoWorktree,
                               QStringLiteral("agent '%1' works in %2, not in a worktree of its "
                                              "own (create it with worktree: true)")
                                   .arg(a->name, a->cwd));
    if (!QFileInfo(a->worktree.path).isDir())
        return Error::conflict(wc::NoWorktree,
                               QStringLiteral("the worktree of agent '%1' (%2) no longer exists")
                                   .arg(a->name, a->worktree.path));
    return *a;
}

void WorktreeService::diff(const QString &agentId, const QString &path,
                           const std::function<void(const Result<QJsonObject> &)> &done) {
    const auto agent = worktreeAgent(agentId);
    if (!agent)
        return done(agent.error());
    // Never git in a sandboxed agent's worktree outside its sandbox.
    if (Status e = m_sandbox.check(*agent))
        return done(*e);
    DiffRequest d;
    d.sandbox = m_sandbox.specFor(*agent, SandboxUse::Command);
    d.worktree = agent->worktree.path;
    d.baseRef = agent->worktree.baseRef;
    d.fallbackBase = agent->worktree.baseCommit;
    d.path = path;
    d.maxPatchBytes = kMaxPatchBytes;
    DiffTask::start(m_git, d, this, [done](const Result<DiffState> &state) {
        if (!state)
            return done(state.error());
        done(QJsonObject{
            {wk::BaseCommit, state->base},
            {wk::Branch, state->branch == QLatin1String("HEAD") ? QJsonValue() : state->branch},
            {wk::Head, state->head},
            {wk::Files, diffFilesJson(state->files)},
            {wk::Patch, state->patch},
            {wk::Truncated, state->truncated},
        });
    });
}

Result<int> WorktreeService::review(const QString &agentId, const ReviewRequest &review) {
    const Agent *a = m_agents.find(agentId);
    if (!a)
        return Error::notFound(wire::code::NotFound,
                               QStringLiteral("no agent with id '%1'").arg(agentId));
    // Paths are as the diff names them: from the worktree's top (or the cwd without one).
    const QString root = a->worktree.isSet() ? a->worktree.path : a->cwd;
    const QString text =
        composeReview(review, a->worktree.branch, [&root](const QString &path, int line) {
            return readLineContext(root, path, line);
        });
    return m_runtime.sendMessage(agentId, text);
}

void WorktreeService::merge(const QString &agentId, const MergeOptions &options,
                            std::function<void(const MergeResult &)> done) {
    auto refuse = [&done](const Error &e) {
        MergeResult r;
        r.error = e;
        done(r);
    };
    const auto agent = worktreeAgent(agentId);
    if (!agent)
        return refuse(agent.error());
    if (Status e = m_sandbox.check(*agent))
        return refuse(*e);
    // The agent's files must hold still: its next turn could change them mid-merge.
    if (agent->status == st::Working || agent->status == st::WaitingPermission)
        return refuse(Error::conflict(wc::AgentWorking,
                                      QStringLiteral("agent '%1' is working; merge once its turn "
                                                     "ended (or stop it)")
                                          .arg(agent->name)));
    const QString target = options.target.isEmpty() ? agent->worktree.baseRef : options.target;
    const QString targetKey = agent->worktree.repo + QLatin1Char('\n') + target;
    if (m_merging.contains(agentId) || m_mergeTargets.contains(targetKey))
        return refuse(Error::conflict(wc::MergeRefused,
                                      QStringLiteral("a merge of agent '%1' or into %2 is under "
                                                     "way; try again when it ended")
                                          .arg(agent->name, target)));
    m_merging.insert(agentId);
    m_mergeTargets.insert(targetKey);
    MergeRequest request;
    request.agentName = agent->name;
    request.worktree = agent->worktree;
    request.strategy = options.strategy;
    request.target = target;
    request.message = options.message;
    request.sandbox = m_sandbox.specFor(*agent, SandboxUse::Command);
    MergeTask::start(
        m_git, m_env, request, this,
        [this, agentId, targetKey, done, strategy = options.strategy](const MergeResult &result) {
            m_merging.remove(agentId);
            m_mergeTargets.remove(targetKey);
            if (!result.error && !result.alreadyUpToDate) {
                // The branch's work is in the target now: the diff starts there.
                m_agents.updateRuntime(agentId, [&result](Agent &a) {
                    a.worktree.baseCommit = result.newBase;
                    if (!result.branch.isEmpty())
                        a.worktree.branch = result.branch;
                });
                if (Status e = m_agents.flush())
                    qCWarning(lcWorktrees).noquote() << "worktree state not saved:" << e->message;
                check(agentId, true, true);
            }
            done(result);
            if (!result.error && !result.alreadyUpToDate)
                Q_EMIT merged(agentId, strategy, result);
        });
}

void WorktreeService::onTurnStarted(const QString &agentId) {
    if (m_trees.contains(agentId) || m_checking.contains(agentId))
        return;
    const Agent *a = m_agents.find(agentId);
    if (a && a->worktree.isSet())
        check(agentId, false);
}

void WorktreeService::check(const QString &agentId, bool announce, bool force) {
    const Agent *a = m_agents.find(agentId);
    if (!a || !a->worktree.isSet() || !QFileInfo(a->worktree.path).isDir())
        return;
    if (m_checking.contains(agentId)) {
        if (announce)
            m_again[agentId] = m_again.value(agentId) || force;
        return;
    }
    if (m_sandbox.check(*a))
        return; // its sandbox cannot start here: its diff waits (the agent cannot run either)
    m_checking.insert(agentId);
    DiffRequest d;
    d.sandbox = m_sandbox.specFor(*a, SandboxUse::Command);
    d.worktree = a->worktree.path;
    d.baseRef = a->worktree.baseRef;
    d.fallbackBase = a->worktree.baseCommit;
    d.withPatch = false;
    DiffTask::start(
        m_git, d, this, [this, agentId, announce, force](const Result<DiffState> &state) {
            m_checking.remove(agentId);
            if (!m_agents.find(agentId)) {
                m_again.remove(agentId); // deleted meanwhile: nobody to tell
                return;
            }
            if (!state) {
                qCWarning(lcWorktrees).noquote()
                    << "agent" << agentId << "worktree not read:" << state.error().message;
            } else {
                const auto before = m_trees.constFind(agentId);
                // No reading before (a new service and no turn start seen): a
                // diff that shows something is news.
                const bool changed =
                    before == m_trees.constEnd() ? !state->files.isEmpty() : *before != state->tree;
                m_trees.insert(agentId, state->tree);
                const QString branch = state->branch;
                // The agent may have switched branches in its worktree itself.
                if (branch != QLatin1String("HEAD") && !branch.isEmpty())
                    m_agents.updateRuntime(agentId,
                                           [&branch](Agent &ag) { ag.worktree.branch = branch; });
                if (announce && (changed || force))
                    Q_EMIT diffChanged(agentId, diffFilesJson(state->files));
            }
            if (m_again.contains(agentId))
                check(agentId, true, m_again.take(agentId));
        });
}

} // namespace flotilla
