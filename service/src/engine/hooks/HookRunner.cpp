#include "hooks/HookRunner.h"

#include "base/ChildProcess.h"
#include "domain/AgentRegistry.h"
#include "hooks/HookStore.h"
#include "hooks/HooksLogging.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "security/AgentTokens.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>
#include <QUuid>

#include <csignal>
#include <unistd.h>
#include <utility>

namespace flotilla {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace env = wire::shaping::hookenv;

struct HookRunner::Running {
    Job job;
    QString runId;
    QProcess *process = nullptr; // child of the runner; deleteLater once finished
    QTimer *timeout = nullptr;   // children of the process
    QTimer *killTimer = nullptr;
    QElapsedTimer clock;
    qint64 startedAt = 0; // epoch ms
    qint64 pgid = 0;
    QByteArray output;
    bool timedOut = false;
};

namespace {

void killGroup(qint64 pgid, int signal) {
    if (pgid > 0)
        ::kill(pid_t(-pgid), signal);
}

// Every key of the filter names a property the event's agent must have.
bool matches(const QJsonObject &filter, const Agent *agent) {
    if (filter.isEmpty())
        return true;
    if (!agent)
        return false;
    for (auto it = filter.constBegin(); it != filter.constEnd(); ++it) {
        const QString want = it->toString();
        const QString &have = it.key() == k::AgentId ? agent->id
                              : it.key() == k::Class ? agent->agentClass
                                                     : agent->areaId;
        if (have != want)
            return false;
    }
    return true;
}

// The kept output as text: cut at a character boundary when it was cut at all.
QString outputText(QByteArray bytes, qsizetype max, bool *truncated) {
    *truncated = bytes.size() > max;
    if (*truncated) {
        qsizetype cut = max;
        while (cut > 0 && (uchar(bytes.at(cut)) & 0xC0) == 0x80)
            --cut; // bytes[cut] continues a character that began before the cut
        bytes.truncate(cut);
    }
    return QString::fromUtf8(bytes);
}

} // namespace

HookRunner::HookRunner(HookStore &hooks, const AgentRegistry &agents, HookRunnerConfig config,
                       Clock clock, QObject *parent)
    : QObject(parent)
    , m_hooks(hooks)
    , m_agents(agents)
    , m_config(std::move(config))
    , m_clock(std::move(clock)) {
}

HookRunner::~HookRunner() {
    shutdown();
}

void HookRunner::shutdown() {
    m_shutDown = true;
    m_queue.clear();
    const auto running = std::exchange(m_running, {});
    for (const std::shared_ptr<Running> &run : running) {
        if (!run->process)
            continue;
        run->process->disconnect(this);
        killGroup(run->pgid, SIGKILL);
        run->process->waitForFinished(1000);
        delete run->process;
    }
}

void HookRunner::submit(QLatin1String event, const QString &agentId, const QJsonObject &payload) {
    if (m_shutDown)
        return;
    const QList<QJsonObject> hooks = m_hooks.hooksFor(event);
    if (hooks.isEmpty())
        return;
    const Agent *agent = agentId.isEmpty() ? nullptr : m_agents.find(agentId);
    QJsonObject input{{sk::Event, event}, {k::Timestamp, m_clock.nowMs()}, {k::Payload, payload}};
    if (!agentId.isEmpty())
        input.insert(k::AgentId, agentId);
    if (agent)
        input.insert(k::AgentName, agent->name);
    const QByteArray bytes = QJsonDocument(input).toJson(QJsonDocument::Compact);
    for (const QJsonObject &hook : hooks) {
        if (!matches(hook.value(sk::Filter).toObject(), agent))
            continue;
        const QString hookId = hook.value(k::Id).toString();
        if (m_queue.size() >= m_config.maxQueued) {
            ++m_dropped;
            // Logged for the first drop and then every 100th: a flood must not flood the log.
            if (m_dropped % 100 == 1)
                qCWarning(lcHooks).noquote()
                    << "hook queue full (" << m_config.maxQueued << "waiting): run of hook"
                    << hookId << "on" << QString(event) << "dropped;" << m_dropped
                    << "dropped so far";
            continue;
        }
        m_queue.enqueue(Job{hookId, event, agentId, agent ? agent->cwd : QString(), bytes});
    }
    schedulePump();
}

void HookRunner::schedulePump() {
    if (m_pumpScheduled || m_shutDown)
        return;
    m_pumpScheduled = true;
    // Queued: processes start from the event loop, never inside the call chain that emitted the
    // event (the event path does not wait for a fork and exec), nor inside a run's own signal.
    QTimer::singleShot(0, this, [this] {
        m_pumpScheduled = false;
        pump();
    });
}

void HookRunner::pump() {
    while (!m_shutDown && m_running.size() < m_config.maxConcurrent && !m_queue.isEmpty()) {
        const Job job = m_queue.dequeue();
        // The hook as it is now: changed, disabled or deleted while the job waited.
        const QJsonObject *hook = m_hooks.find(job.hookId);
        if (!hook || !hook->value(sk::Enabled).toBool())
            continue;
        start(job, QJsonObject(*hook));
    }
}

QProcessEnvironment HookRunner::environmentFor(const Job &job) const {
    QProcessEnvironment e = m_config.environment;
    // A hook is the user's command, not an agent's: it gets no credential of the service.
    e.remove(QStringLiteral("AUTH_TOKEN"));
    e.remove(QStringLiteral("FLOTILLA_TOKEN"));
    e.remove(QString::fromLatin1(kAuthHeaderFileEnv));
    e.insert(env::Event, job.event);
    e.insert(env::AgentId, job.agentId);
    e.insert(env::HookId, job.hookId);
    return e;
}

void HookRunner::start(const Job &job, const QJsonObject &hook) {
    auto run = std::make_shared<Running>();
    run->job = job;
    run->runId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    run->startedAt = m_clock.nowMs();
    run->clock.start();
    const quint64 key = m_nextKey++;
    m_running.insert(key, run);

    const QJsonArray argv = hook.value(sk::Command).toArray();
    const QProcessEnvironment environment = environmentFor(job);
    QString program = argv.first().toString();
    if (!program.startsWith(QLatin1Char('/'))) {
        const QStringList path =
            environment.value(QStringLiteral("PATH")).split(QLatin1Char(':'), Qt::SkipEmptyParts);
        program = path.isEmpty() ? QString() : QStandardPaths::findExecutable(program, path);
        if (program.isEmpty())
            return finish(key, std::nullopt, std::nullopt,
                          QStringLiteral("'%1' was not found in PATH")
                              .arg(argv.first().toString().left(200)));
    }
    const QJsonValue cwdValue = hook.value(k::Cwd);
    QString cwd = cwdValue.toString();
    if (cwdValue.isNull() || (cwd == wire::shaping::hookcwd::Agent && job.agentCwd.isEmpty()))
        cwd = m_config.homeDir;
    else if (cwd == wire::shaping::hookcwd::Agent)
        cwd = job.agentCwd;
    if (!QFileInfo(cwd).isDir())
        return finish(key, std::nullopt, std::nullopt,
                      QStringLiteral("working directory '%1' does not exist").arg(cwd.left(200)));

    QStringList arguments;
    for (qsizetype i = 1; i < argv.size(); ++i)
        arguments.append(argv.at(i).toString());
    run->process = new QProcess(this);
    QProcess *process = run->process;
    process->setProgram(program);
    process->setArguments(arguments);
    process->setProcessEnvironment(environment);
    process->setWorkingDirectory(cwd);
    process->setProcessChannelMode(QProcess::MergedChannels);
    // Own group (the timeout reaches what the hook started), no orphan if flotillad dies, the
    // user's umask.
    process->setChildProcessModifier(&prepareChildProcess);
    connect(process, &QProcess::readyReadStandardOutput, this, [this, key] {
        if (const auto active = m_running.value(key))
            read(*active);
    });
    connect(process, &QProcess::errorOccurred, this, [this, key](QProcess::ProcessError e) {
        const auto active = m_running.value(key);
        if (active && e == QProcess::FailedToStart)
            finish(key, std::nullopt, std::nullopt, active->process->errorString());
    });
    connect(process, &QProcess::finished, this, [this, key](int code, QProcess::ExitStatus status) {
        // On a crash exit Qt reports the terminating signal as the exit code (waitid's si_status).
        if (status == QProcess::NormalExit)
            finish(key, code, std::nullopt, QString());
        else
            finish(key, std::nullopt, code, QString());
    });
    // Precise: a coarse timer may fire 5% early, and the timeout is a promise to the user.
    run->timeout = new QTimer(process);
    run->timeout->setSingleShot(true);
    run->timeout->setTimerType(Qt::PreciseTimer);
    run->killTimer = new QTimer(process);
    run->killTimer->setSingleShot(true);
    run->killTimer->setTimerType(Qt::PreciseTimer);
    connect(run->timeout, &QTimer::timeout, this, [this, key] {
        const auto active = m_running.value(key);
        if (!active)
            return;
        active->timedOut = true;
        qCWarning(lcHooks).noquote() << "hook" << active->job.hookId << "timed out; ending it";
        killGroup(active->pgid, SIGTERM);
        active->killTimer->start(m_config.killGraceMs);
    });
    connect(run->killTimer, &QTimer::timeout, this, [this, key] {
        if (const auto active = m_running.value(key))
            killGroup(active->pgid, SIGKILL);
    });

    process->start(QIODevice::ReadWrite);
    // On Unix start() returns once exec succeeded or failed (errorOccurred has finished the run
    // then), so the group exists by now.
    if (process->state() == QProcess::NotRunning)
        return;
    run->pgid = process->processId();
    process->write(job.input);
    process->closeWriteChannel(); // after the pending bytes: the hook reads the event, then EOF
    run->timeout->start(hook.value(sk::TimeoutSeconds).toInt(HookStore::kTimeoutDefault) * 1000);
    qCDebug(lcHooks).noquote() << "hook" << job.hookId << "started on" << job.event << "pid"
                               << run->pgid;
    Q_EMIT runStarted(job.hookId, run->pgid);
}

void HookRunner::read(Running &run) {
    // Always drain (QProcess would buffer without limit); keep a few bytes past the cap so the
    // cut can find a character boundary.
    const QByteArray data = run.process->readAllStandardOutput();
    const qsizetype room = m_config.outputMax + 4 - run.output.size();
    if (room > 0)
        run.output += data.left(room);
}

void HookRunner::finish(quint64 key, std::optional<int> exitCode, std::optional<int> signal,
                        const QString &error) {
    const std::shared_ptr<Running> run = m_running.take(key);
    if (!run)
        return;
    if (run->process) {
        run->timeout->stop();
        run->killTimer->stop();
        if (error.isEmpty())
            read(*run); // what its last writes left in the pipe
        run->process->disconnect(this);
        run->process->deleteLater();
    }
    // What the hook left running in its group goes with it.
    killGroup(run->pgid, SIGKILL);

    bool truncated = false;
    const QString output = outputText(run->output, m_config.outputMax, &truncated);
    const bool failed =
        !error.isEmpty() || run->timedOut || signal.has_value() || exitCode.value_or(0) != 0;
    auto optional = [](std::optional<int> v) { return v ? QJsonValue(*v) : QJsonValue(); };
    QJsonObject result{
        {k::Id, run->runId},
        {sk::HookId, run->job.hookId},
        {sk::Event, run->job.event},
        {k::AgentId, run->job.agentId.isEmpty() ? QJsonValue() : QJsonValue(run->job.agentId)},
        {sk::StartedAt, run->startedAt},
        {sk::DurationMs, run->clock.elapsed()},
        {sk::ExitCode, optional(exitCode)},
        {sk::Signal, optional(signal)},
        {sk::TimedOut, run->timedOut},
        {sk::Error, error.isEmpty() ? QJsonValue() : QJsonValue(error)},
        {sk::Output, output},
        {sk::OutputTruncated, truncated},
        {sk::Failed, failed},
    };
    if (!error.isEmpty())
        qCWarning(lcHooks).noquote() << "hook" << run->job.hookId << "could not run:" << error;
    else if (failed)
        qCInfo(lcHooks).noquote() << "hook" << run->job.hookId << "failed: exit"
                                  << optional(exitCode) << "signal" << optional(signal);
    else
        qCDebug(lcHooks).noquote() << "hook" << run->job.hookId << "ended";
    record(result);
    schedulePump();
}

void HookRunner::record(const QJsonObject &run) {
    if (Status e = m_hooks.recordRun(run)) {
        if (e->kind == ErrorKind::NotFound)
            return; // deleted while it ran: nobody lists its runs any more
        qCWarning(lcHooks).noquote()
            << "run of hook" << run.value(sk::HookId).toString() << "not stored:" << e->message;
    }
    Q_EMIT runFinished(run);
}

} // namespace flotilla
