#pragma once
// Exec tasks: validates a request against the agents and secrets, runs it as an ExecJob, keeps
// the running tasks by id and by agent, and announces them with typed signals (the controller
// turns them into exec_task_* events).

#include "base/Clock.h"
#include "base/Error.h"
#include "exec/ExecJob.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace flotilla {

class AgentRegistry;
class SecretStore;
class SandboxPolicy;

struct ExecLimits {
    int maxTasksPerAgent = 8;
    int maxTasks = 32;                           // service-wide
    int maxCommandBytes = 64 * 1024;             // UTF-8, before and after substituting secrets
    int maxTimeoutMs = 86'400'000;               // 24 h
    qint64 streamBudgetBytes = 16 * 1024 * 1024; // output waiting for clients, all tasks
    ExecJobConfig job; // job.stream.congested: set by the owner of the event hub
};

struct ExecRequest {
    QString agentId;
    QString command; // with {{NAME}} placeholders
    QString cwd;     // empty: the agent's
    int timeoutMs = 0;
};

// What clients see of a task: the command keeps its placeholders (and any secret value typed
// literally is masked).
struct ExecTaskInfo {
    QString taskId;
    QString agentId;
    QString agentName;
    QString command;
    QString cwd;
    qint64 startedAt = 0; // epoch ms
    int timeoutMs = 0;
};

class ExecService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecService)
public:
    using Completion = std::function<void(const ExecTaskInfo &, const ExecOutcome &)>;

    // The service's token and the agents' live tokens, masked in commands and output like
    // secrets (an `env` or a parent's environ printed by a command must not show them).
    using CredentialSource = std::function<QList<QByteArray>()>;

    // `sandbox`: where an agent's commands run (sandbox/SandboxPolicy.h): a sandboxed agent's
    // run in the same kind of sandbox as its CLI.
    ExecService(AgentRegistry &agents, SecretStore &secrets, const SandboxPolicy &sandbox,
                Clock clock, ExecLimits limits = {}, CredentialSource credentials = {},
                QObject *parent = nullptr);
    ~ExecService() override; // kills every task's process group

    const ExecLimits &limits() const { return m_limits; }

    // Checks and starts. Unknown agent -> NotFound; bad cwd, unknown secret, command too long ->
    // Invalid; too many tasks -> Conflict; no bash -> Unavailable. Nothing runs on refusal.
    // `done` is called once, after taskCompleted.
    Result<ExecTaskInfo> start(const ExecRequest &request, Completion done);
    // Ends the task's whole process group (SIGTERM, SIGKILL after the grace period).
    Status kill(const QString &taskId);
    // Running tasks of an agent, oldest first.
    QList<ExecTaskInfo> tasksOf(const QString &agentId) const;
    int runningCount() const { return int(m_tasks.size()); }

Q_SIGNALS:
    void taskStarted(const flotilla::ExecTaskInfo &task);
    void taskOutput(const flotilla::ExecTaskInfo &task, const QByteArray &utf8, bool isError,
                    qint64 skippedBefore);
    void taskCompleted(const flotilla::ExecTaskInfo &task, const flotilla::ExecOutcome &outcome);

private:
    struct Task {
        ExecTaskInfo info;
        ExecJob *job = nullptr;
        Completion done;
    };
    Result<QString> resolveCwd(const QString &requested, const QString &agentCwd) const;
    void onFinished(const QString &taskId, const ExecOutcome &outcome);

    AgentRegistry &m_agents;
    SecretStore &m_secrets;
    const SandboxPolicy &m_sandbox;
    Clock m_clock;
    CredentialSource m_credentials;
    ExecLimits m_limits;
    QString m_shell;       // absolute path of bash, empty when none was found
    StreamBudget m_budget; // output waiting to be streamed, all tasks together
    QHash<QString, std::shared_ptr<Task>> m_tasks;
};

} // namespace flotilla
