#include "exec/ExecService.h"

#include "domain/AgentRegistry.h"
#include "exec/ExecLog.h"
#include "exec/SecretStore.h"
#include "protocol/ExecNames.h"
#include "sandbox/SandboxPolicy.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUuid>

#include <algorithm>

Q_LOGGING_CATEGORY(lcExec, "flotilla.exec", QtInfoMsg)

namespace flotilla {

namespace c = wire::code;
namespace xc = wire::exec::code;

namespace {
constexpr int kLoggedCommandChars = 200;
}

ExecService::ExecService(AgentRegistry &agents, SecretStore &secrets, const SandboxPolicy &sandbox,
                         Clock clock, ExecLimits limits, CredentialSource credentials,
                         QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_secrets(secrets)
    , m_sandbox(sandbox)
    , m_clock(std::move(clock))
    , m_credentials(std::move(credentials))
    , m_limits(std::move(limits)) {
    m_shell = QDir::isAbsolutePath(m_limits.job.shell)
                  ? m_limits.job.shell
                  : QStandardPaths::findExecutable(m_limits.job.shell);
    if (m_shell.isEmpty())
        qCWarning(lcExec).noquote()
            << "no" << m_limits.job.shell << "in PATH: POST /api/exec will answer 503";
    m_limits.job.shell = m_shell;
    m_budget.limit = m_limits.streamBudgetBytes;
    m_limits.job.stream.budget = &m_budget;
    // A deleted agent's commands do not run on without it.
    connect(&agents, &AgentRegistry::agentDeleted, this, [this](const QString &agentId) {
        for (const ExecTaskInfo &t : tasksOf(agentId))
            kill(t.taskId);
    });
}

ExecService::~ExecService() {
    // ~ExecJob SIGKILLs each group; completions are not reported during shutdown.
    for (const auto &task : std::as_const(m_tasks)) {
        task->job->disconnect(this);
        delete task->job;
    }
}

Result<QString> ExecService::resolveCwd(const QString &requested, const QString &agentCwd) const {
    const QString path = requested.isEmpty() ? agentCwd : requested;
    const QString what = requested.isEmpty() ? QStringLiteral("the agent's working directory")
                                             : QStringLiteral("field 'cwd'");
    if (!QDir::isAbsolutePath(path))
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("%1 must be an absolute path, got '%2'").arg(what, path.left(200)));
    const QFileInfo info(path);
    if (!info.isDir())
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("%1 is not an existing directory: %2").arg(what, path.left(200)));
    return info.canonicalFilePath();
}

namespace {
Result<QString> remoteCwd(const QString &path) {
    if (!QDir::isAbsolutePath(path))
        return Error::invalid(
            wire::code::InvalidValue,
            QStringLiteral("field 'cwd' must be an absolute path, got '%1'").arg(path.left(200)));
    return QDir::cleanPath(path);
}
} // namespace

Result<ExecTaskInfo> ExecService::start(const ExecRequest &request, Completion done) {
    const Agent *agent = m_agents.find(request.agentId);
    if (!agent)
        return Error::notFound(c::NotFound,
                               QStringLiteral("no agent with id '%1'").arg(request.agentId));
    // On another host the directory is that machine's: only its form is checked here.
    const auto cwd = agent->host.isEmpty()
                         ? resolveCwd(request.cwd, agent->cwd)
                         : remoteCwd(request.cwd.isEmpty() ? agent->cwd : request.cwd);
    if (!cwd)
        return cwd.error();
    auto remote = m_sandbox.remoteFor(*agent, QUuid::createUuid().toString(QUuid::WithoutBraces));
    if (!remote)
        return remote.error();
    // A sandboxed agent's commands run in its sandbox, or not at all.
    if (Status e = m_sandbox.check(*agent))
        return *e;
    if (request.timeoutMs < 0 || request.timeoutMs > m_limits.maxTimeoutMs)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'timeoutMs' must be between 1 and %1")
                                  .arg(m_limits.maxTimeoutMs));
    if (request.command.toUtf8().size() > m_limits.maxCommandBytes)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'command' is longer than %1 bytes")
                                  .arg(m_limits.maxCommandBytes));
    const auto expanded = m_secrets.expand(request.command);
    if (!expanded)
        return expanded.error();
    if (expanded->toUtf8().size() > m_limits.maxCommandBytes)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'command' is longer than %1 bytes once its "
                                             "secrets are substituted")
                                  .arg(m_limits.maxCommandBytes));
    int ofAgent = 0;
    for (const auto &t : std::as_const(m_tasks))
        ofAgent += t->info.agentId == request.agentId;
    if (ofAgent >= m_limits.maxTasksPerAgent)
        return Error::conflict(xc::TooManyTasks,
                               QStringLiteral("agent '%1' already runs %2 commands (the limit); "
                                              "wait for one or DELETE /api/exec/tasks/<taskId>")
                                   .arg(agent->name)
                                   .arg(ofAgent));
    if (m_tasks.size() >= m_limits.maxTasks)
        return Error::conflict(
            xc::TooManyTasks,
            QStringLiteral("the service already runs %1 commands (the limit)").arg(m_tasks.size()));
    if (m_shell.isEmpty())
        return Error{ErrorKind::Unavailable, c::Internal,
                     QStringLiteral("bash was not found in flotillad's PATH")};

    // One snapshot of the values: a secret changed while the task runs stays masked.
    QList<QByteArray> values = m_secrets.values();
    if (m_credentials)
        values += m_credentials();
    const SecretMasker masker(values);
    auto task = std::make_shared<Task>();
    task->info.taskId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    task->info.agentId = agent->id;
    task->info.agentName = agent->name;
    task->info.command = QString::fromUtf8(masker.mask(request.command.toUtf8()));
    task->info.cwd = *cwd;
    task->info.startedAt = m_clock.nowMs();
    task->info.timeoutMs = request.timeoutMs;
    task->done = std::move(done);
    task->job = new ExecJob(m_limits.job, this);
    const QString id = task->info.taskId;
    m_tasks.insert(id, task);

    connect(task->job, &ExecJob::output, this,
            [this, id](const QByteArray &utf8, bool isError, qint64 skippedBefore) {
                if (const auto t = m_tasks.value(id))
                    Q_EMIT taskOutput(t->info, utf8, isError, skippedBefore);
            });
    connect(task->job, &ExecJob::finished, this,
            [this, id](const ExecOutcome &outcome) { onFinished(id, outcome); });

    qCInfo(lcExec).noquote() << "task" << id << "for agent" << agent->id << "in" << *cwd
                             << "runs:" << task->info.command.left(kLoggedCommandChars);
    const ExecTaskInfo info = task->info;
    Q_EMIT taskStarted(info); // before the job starts: started precedes any output
    ExecSpec spec;
    spec.command = *expanded;
    spec.cwd = *cwd;
    spec.timeoutMs = request.timeoutMs;
    spec.maskValues = std::move(values);
    spec.sandbox = m_sandbox.specFor(*agent, SandboxUse::Command);
    spec.remote = *remote;
    task->job->start(spec, m_sandbox.launcher());
    return info;
}

Status ExecService::kill(const QString &taskId) {
    const auto task = m_tasks.value(taskId);
    if (!task)
        return Error::notFound(c::NotFound,
                               QStringLiteral("no running task with id '%1'").arg(taskId));
    qCInfo(lcExec).noquote() << "task" << taskId << "killed on request";
    task->job->kill();
    return std::nullopt;
}

QList<ExecTaskInfo> ExecService::tasksOf(const QString &agentId) const {
    QList<ExecTaskInfo> out;
    for (const auto &t : std::as_const(m_tasks)) {
        if (t->info.agentId == agentId)
            out.append(t->info);
    }
    std::sort(out.begin(), out.end(), [](const ExecTaskInfo &a, const ExecTaskInfo &b) {
        return a.startedAt < b.startedAt;
    });
    return out;
}

void ExecService::onFinished(const QString &taskId, const ExecOutcome &outcome) {
    const auto task = m_tasks.take(taskId); // no longer listed once it is reported complete
    if (!task)
        return;
    task->job->deleteLater();
    if (!outcome.startError.isEmpty())
        qCWarning(lcExec).noquote() << "task" << taskId << "could not start:" << outcome.startError;
    const QString how = outcome.timedOut ? QStringLiteral("timed out")
                        : outcome.killed ? QStringLiteral("killed")
                        : outcome.exitCode
                            ? QStringLiteral("exit %1").arg(*outcome.exitCode)
                            : QStringLiteral("signal %1").arg(outcome.signal.value_or(0));
    qCInfo(lcExec).noquote() << "task" << taskId << QStringLiteral("ended (%1) after").arg(how)
                             << outcome.durationMs << "ms," << outcome.totalBytes
                             << "bytes of output";
    Q_EMIT taskCompleted(task->info, outcome);
    if (task->done)
        task->done(task->info, outcome);
}

} // namespace flotilla
