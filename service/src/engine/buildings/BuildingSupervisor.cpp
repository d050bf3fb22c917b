#include "buildings/BuildingSupervisor.h"

#include "buildings/BuildingsLogging.h"
#include "domain/AgentRegistry.h"
#include "exec/SecretStore.h"
#include "protocol/ShapingNames.h"
#include "sandbox/SandboxPolicy.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QStandardPaths>

namespace flotilla {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace st = wire::shaping::state;
namespace c = wire::code;

namespace {

QJsonValue optionalInt(const std::optional<int> &v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

Error unknownBuilding(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no building with id '%1'").arg(id));
}

QString describeEnd(const BuildingOutcome &o) {
    if (!o.startError.isEmpty())
        return QStringLiteral("could not start: %1").arg(o.startError);
    if (o.exitCode)
        return QStringLiteral("exited with code %1").arg(*o.exitCode);
    return QStringLiteral("ended by signal %1").arg(o.signal.value_or(0));
}

} // namespace

BuildingSupervisor::BuildingSupervisor(BuildingStore &store, const AgentRegistry &agents,
                                       const SecretStore &secrets, const SandboxPolicy &sandbox,
                                       Clock clock, BuildingsConfig config,
                                       CredentialSource credentials, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_agents(agents)
    , m_secrets(secrets)
    , m_sandbox(sandbox)
    , m_clock(std::move(clock))
    , m_config(std::move(config))
    , m_credentials(std::move(credentials)) {
    m_budget.limit = m_config.streamBudgetBytes;
    m_config.stream.budget = &m_budget;
    // A building deleted by any path (its route, a config import undone) does not run on.
    connect(&m_store, &BuildingStore::buildingRemoved, this, [this](const BuildingConfig &b) {
        const auto slot = m_slots.take(b.id);
        if (!slot)
            return;
        if (BuildingRun *run = slot->run) {
            run->disconnect(this);
            connect(run, &BuildingRun::finished, run, &QObject::deleteLater);
            run->stop(m_config.timing.stopGraceMs);
        }
        // Whoever waited for its stop learns that it is gone.
        for (const Done &done : std::as_const(slot->whenStopped)) {
            if (done)
                done(unknownBuilding(b.id));
        }
    });
    // A building that runs in an agent's directory goes with the agent.
    connect(&agents, &AgentRegistry::agentDeleted, this, [this](const QString &agentId) {
        for (const BuildingConfig &b : m_store.buildings()) {
            if (b.agentId == agentId) {
                qCInfo(lcBuildings).noquote()
                    << "building" << b.id << "goes with its deleted agent" << agentId;
                remove(b.id, {});
            }
        }
    });
}

BuildingSupervisor::~BuildingSupervisor() = default; // each BuildingRun SIGKILLs its group

BuildingSupervisor::Slot &BuildingSupervisor::slot(const QString &id) {
    auto &s = m_slots[id];
    if (!s) {
        s = std::make_shared<Slot>(m_config.logBytes);
        s->state = st::Stopped;
        s->restartTimer.setSingleShot(true);
        connect(&s->restartTimer, &QTimer::timeout, this, [this, id] {
            const auto it = m_slots.constFind(id);
            if (it == m_slots.constEnd())
                return;
            ++(*it)->restarts;
            if (spawn(id)) // the building stays crashed; its policy still holds
                scheduleRestart(id);
        });
        s->settleTimer.setSingleShot(true);
        connect(&s->settleTimer, &QTimer::timeout, this, [this, id] {
            const auto it = m_slots.constFind(id);
            if (it != m_slots.constEnd() && (*it)->run && !(*it)->stopping)
                setState(**it, id, st::Running);
        });
    }
    return *s;
}

const BuildingSupervisor::Slot *BuildingSupervisor::findSlot(const QString &id) const {
    const auto it = m_slots.constFind(id);
    return it == m_slots.constEnd() ? nullptr : it->get();
}

QString BuildingSupervisor::effectiveCwd(const BuildingConfig &b) const {
    if (b.agentId.isEmpty())
        return b.cwd;
    const Agent *agent = m_agents.find(b.agentId);
    return agent ? agent->cwd : QString();
}

QList<QByteArray> BuildingSupervisor::maskValues() const {
    QList<QByteArray> values = m_secrets.values();
    if (m_credentials)
        values += m_credentials();
    return values;
}

QJsonObject BuildingSupervisor::describe(const BuildingConfig &b) const {
    QJsonObject o = b.toJson();
    const QString cwd = effectiveCwd(b);
    o.insert(k::Cwd, cwd.isEmpty() ? QJsonValue() : QJsonValue(cwd));
    // A secret's value typed literally into the command or env is not shown back (placeholders
    // are: they are not values).
    const SecretMasker masker(maskValues());
    auto masked = [&masker](const QString &text) {
        return QString::fromUtf8(masker.mask(text.toUtf8()));
    };
    QJsonArray command;
    for (const QString &arg : b.command)
        command.append(masked(arg));
    o.insert(sk::Command, command);
    QJsonObject env;
    for (auto it = b.env.constBegin(); it != b.env.constEnd(); ++it)
        env.insert(it.key(), masked(it.value()));
    o.insert(sk::Env, env);
    const Slot *s = findSlot(b.id);
    const bool running = s && s->run && s->run->isRunning();
    o.insert(sk::State, s ? s->state : QString(st::Stopped));
    o.insert(sk::Pid, running ? QJsonValue(s->run->pid()) : QJsonValue());
    o.insert(sk::ExitCode, s ? optionalInt(s->exitCode) : QJsonValue());
    o.insert(sk::Signal, s ? optionalInt(s->signal) : QJsonValue());
    o.insert(sk::Restarts, s ? s->restarts : 0);
    o.insert(sk::StartedAt, s && s->startedAt > 0 ? QJsonValue(s->startedAt) : QJsonValue());
    o.insert(sk::UptimeSeconds,
             running ? QJsonValue(qMax<qint64>(0, m_clock.nowMs() - s->startedAt) / 1000)
                     : QJsonValue());
    return o;
}

std::optional<QJsonObject> BuildingSupervisor::describe(const QString &id) const {
    const BuildingConfig *b = m_store.find(id);
    if (!b)
        return std::nullopt;
    return describe(*b);
}

QJsonArray BuildingSupervisor::list() const {
    QJsonArray out;
    for (const BuildingConfig &b : m_store.buildings())
        out.append(describe(b));
    return out;
}

// Where it runs, what runs (the program found as the building's PATH finds it) and with which
// environment, or why it cannot run now.
Result<BuildingLaunch> BuildingSupervisor::prepare(const BuildingConfig &b) const {
    BuildingLaunch launch;
    if (!b.agentId.isEmpty() && !m_agents.find(b.agentId))
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("its agent '%1' no longer exists").arg(b.agentId));
    launch.cwd = effectiveCwd(b);
    if (!QFileInfo(launch.cwd).isDir())
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("its directory %1 does not exist").arg(launch.cwd.left(200)));
    launch.environment = m_config.environment;
    for (auto it = b.env.constBegin(); it != b.env.constEnd(); ++it) {
        const auto value = m_secrets.expand(it.value());
        if (!value)
            return Error{value.error().kind, value.error().code,
                         QStringLiteral("env %1: %2").arg(it.key(), value.error().message)};
        launch.environment.insert(it.key(), *value);
    }
    const QString name = b.command.first();
    QString program;
    if (name.contains(QLatin1Char('/'))) {
        program = QDir(launch.cwd).absoluteFilePath(name);
    } else {
        const QStringList path = launch.environment.value(QStringLiteral("PATH"))
                                     .split(QLatin1Char(':'), Qt::SkipEmptyParts);
        program = QStandardPaths::findExecutable(name, path);
    }
    const QFileInfo info(program);
    if (program.isEmpty() || !info.isFile() || !info.isExecutable())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("program '%1' was not found or is not executable%2")
                                  .arg(name.left(200), name.contains(QLatin1Char('/'))
                                                           ? QString()
                                                           : QStringLiteral(" in PATH")));
    launch.program = info.absoluteFilePath();
    launch.arguments = b.command.mid(1);
    launch.maskValues = maskValues();
    launch.stream = m_config.stream;
    // A building of a sandboxed agent runs in the same kind of sandbox, or not at all.
    SandboxSpec sandbox;
    if (const Agent *agent = b.agentId.isEmpty() ? nullptr : m_agents.find(b.agentId)) {
        if (Status e = m_sandbox.check(*agent))
            return *e;
        sandbox = m_sandbox.specFor(*agent, SandboxUse::Command);
    }
    auto plan = m_sandbox.launcher().plan(
        ProcessSpec{launch.program, launch.arguments, launch.cwd, launch.environment, sandbox, {}});
    if (!plan)
        return plan.error();
    launch.plan = std::move(plan).value();
    return launch;
}

Status BuildingSupervisor::spawn(const QString &id) {
    const BuildingConfig *b = m_store.find(id);
    if (!b)
        return unknownBuilding(id);
    Slot &s = slot(id);
    if (m_shutDown)
        return Error{ErrorKind::Unavailable, c::Internal,
                     QStringLiteral("the service is shutting down")};
    const auto launch = prepare(*b);
    if (!launch) {
        qCWarning(lcBuildings).noquote()
            << "building" << b->name << "cannot start:" << launch.error().message;
        note(id, QStringLiteral("cannot start: %1").arg(launch.error().message));
        s.exitCode.reset();
        s.signal.reset();
        setState(s, id, st::Crashed);
        return launch.error();
    }
    auto *run = new BuildingRun(this);
    connect(run, &BuildingRun::text, this, [this, id](const QString &text, bool isError) {
        if (const auto it = m_slots.constFind(id); it != m_slots.constEnd())
            (*it)->log.append(text, isError);
    });
    connect(run, &BuildingRun::chunk, this,
            [this, id](const QByteArray &utf8, bool isError, qint64 skippedBefore) {
                Q_EMIT output(id, utf8, isError, skippedBefore);
            });
    connect(run, &BuildingRun::finished, this,
            [this, id, run](const BuildingOutcome &o) { onRunFinished(id, run, o); });
    s.run = run;
    s.stopping = false;
    s.exitCode.reset();
    s.signal.reset();
    s.startedAt = m_clock.nowMs();
    const SecretMasker masker(launch->maskValues);
    const bool started = run->start(*launch);
    qCInfo(lcBuildings).noquote()
        << "building" << b->name << (started ? "started, pid" : "did not start")
        << (started ? QString::number(run->pid()) : QString()) << "in" << launch->cwd << ":"
        << QString::fromUtf8(masker.mask(b->command.join(QLatin1Char(' ')).toUtf8())).left(300);
    setState(s, id, st::Starting);
    if (started)
        s.settleTimer.start(m_config.timing.settleMs);
    return std::nullopt;
}

void BuildingSupervisor::scheduleRestart(const QString &id) {
    const auto it = m_slots.constFind(id);
    if (it == m_slots.constEnd() || m_shutDown)
        return;
    Slot &s = **it;
    const BuildingTiming &t = m_config.timing;
    qint64 delay = t.restartBaseMs;
    for (int i = 0; i < s.backoffStep && delay < t.restartMaxMs; ++i)
        delay *= 2;
    delay = qMin<qint64>(delay, t.restartMaxMs);
    ++s.backoffStep;
    note(id, QStringLiteral("restarting in %1 ms").arg(delay));
    s.restartTimer.start(int(delay));
}

void BuildingSupervisor::onRunFinished(const QString &id, BuildingRun *run,
                                       const BuildingOutcome &outcome) {
    run->deleteLater();
    const auto keep = m_slots.value(id); // callbacks below may delete the building
    if (!keep || keep->run != run)
        return;
    Slot &s = *keep;
    s.run = nullptr;
    s.settleTimer.stop();
    s.log.endRun();
    s.exitCode = outcome.exitCode;
    s.signal = outcome.signal;
    const qint64 upMs = m_clock.nowMs() - s.startedAt;
    const BuildingConfig *b = m_store.find(id);
    const QString name = b ? b->name : id;
    qCInfo(lcBuildings).noquote() << "building" << name << describeEnd(outcome) << "after" << upMs
                                  << "ms" << (s.stopping ? "(stopped)" : "");
    if (s.stopping) {
        s.stopping = false;
        setState(s, id, st::Stopped);
        const QList<Done> waiting = std::exchange(s.whenStopped, {});
        for (const Done &done : waiting) {
            if (done)
                done(std::nullopt);
        }
        return;
    }
    const bool failed = outcome.exitCode != 0;
    note(id, describeEnd(outcome));
    const bool again =
        b && !m_shutDown &&
        (b->restart == RestartPolicy::Always || (b->restart == RestartPolicy::OnFailure && failed));
    if (again && upMs >= m_config.timing.resetAfterMs)
        s.backoffStep = 0; // it was up long enough: not a crash loop
    setState(s, id, failed ? st::Crashed : st::Exited);
    if (again)
        scheduleRestart(id);
}

void BuildingSupervisor::note(const QString &id, const QString &line) {
    const QString text = QStringLiteral("[flotillad] %1\n").arg(line);
    if (const auto it = m_slots.constFind(id); it != m_slots.constEnd())
        (*it)->log.append(text, true);
    Q_EMIT output(id, text.toUtf8(), true, 0);
}

void BuildingSupervisor::setState(Slot &s, const QString &id, QLatin1String state) {
    s.state = state;
    Q_EMIT changed(id); // also when only pid, exit code or restarts changed
}

Status BuildingSupervisor::start(const QString &id) {
    const BuildingConfig *b = m_store.find(id);
    if (!b)
        return unknownBuilding(id);
    Slot &s = slot(id);
    if (s.run)
        return Error::conflict(wire::shaping::code::AlreadyRunning,
                               s.stopping ? QStringLiteral("building '%1' is stopping; start it "
                                                           "once it stopped")
                                                .arg(b->name)
                                          : QStringLiteral("building '%1' is already running "
                                                           "(pid %2); restart it instead")
                                                .arg(b->name)
                                                .arg(s.run->pid()));
    s.restartTimer.stop();
    s.restarts = 0;
    s.backoffStep = 0;
    return spawn(id);
}

Status BuildingSupervisor::stop(const QString &id, Done done) {
    const BuildingConfig *b = m_store.find(id);
    if (!b)
        return unknownBuilding(id);
    Slot &s = slot(id);
    const bool restartPending = s.restartTimer.isActive();
    s.restartTimer.stop();
    if (!s.run) {
        if (restartPending)
            setState(s, id, st::Stopped);
        if (done)
            done(std::nullopt);
        return std::nullopt;
    }
    s.whenStopped.append(std::move(done));
    if (!s.stopping) {
        s.stopping = true;
        qCInfo(lcBuildings).noquote() << "stopping building" << b->name;
        s.run->stop(m_config.timing.stopGraceMs);
    }
    return std::nullopt;
}

Status BuildingSupervisor::restart(const QString &id, Done done) {
    return stop(id, [this, id, done = std::move(done)](const Status &) {
        const Status e = start(id);
        if (done)
            done(e);
    });
}

Status BuildingSupervisor::remove(const QString &id, Done done) {
    return stop(id, [this, id, done = std::move(done)](const Status &) {
        const Status e = m_store.remove(id);
        if (e && e->kind != ErrorKind::NotFound)
            qCWarning(lcBuildings).noquote() << "could not delete building" << id << e->message;
        if (done)
            done(e);
    });
}

void BuildingSupervisor::startAutostart() {
    for (const BuildingConfig &b : m_store.buildings()) {
        if (!b.autostart)
            continue;
        if (Status e = start(b.id))
            qCWarning(lcBuildings).noquote()
                << "autostart of building" << b.name << "failed:" << e->message;
    }
}

void BuildingSupervisor::shutdown() {
    if (m_shutDown)
        return;
    m_shutDown = true;
    QList<BuildingRun *> runs;
    for (const auto &s : std::as_const(m_slots)) {
        s->restartTimer.stop();
        s->settleTimer.stop();
        if (s->run && s->run->isRunning()) {
            s->run->beginShutdown();
            runs.append(s->run);
        }
    }
    if (runs.isEmpty())
        return;
    qCInfo(lcBuildings).noquote() << "stopping" << runs.size() << "building(s)";
    // One grace for all of them together: the service's stop is not N times as long.
    QElapsedTimer waited;
    waited.start();
    for (BuildingRun *run : std::as_const(runs))
        run->finishShutdown(
            int(qMax<qint64>(0, m_config.timing.shutdownGraceMs - waited.elapsed())));
}

Result<QList<BuildingLog::Line>> BuildingSupervisor::logs(const QString &id, int count,
                                                          bool *truncated) const {
    if (!m_store.find(id))
        return unknownBuilding(id);
    const Slot *s = findSlot(id);
    if (!s) {
        *truncated = false;
        return QList<BuildingLog::Line>();
    }
    return s->log.tail(count, truncated);
}

} // namespace flotilla
