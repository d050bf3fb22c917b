#include "hosts/HostDirectory.h"

#include "base/ChildProcess.h"
#include "hosts/HostsLogging.h"
#include "protocol/HostNames.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QStandardPaths>
#include <QUuid>

#include <memory>

namespace flotilla {

namespace k = wire::host::key;
namespace hc = wire::host::code;
namespace hs = wire::host::state;

namespace {
// What check runs there: one line each, so a missing CLI is an empty line, not a failure.
const char *const kProbe =
    "printf '%s\\n' \"$HOME\" \"$(id -un)\" \"$(%1 --version 2>/dev/null | head -n1)\" "
    "\"$(%2 --version 2>/dev/null | head -n1)\" \"$(git --version 2>/dev/null | head -n1)\"";
constexpr int kCheckTimeoutMs = 20000;

Error unknownHost(const QString &name) {
    return Error::invalid(
        hc::UnknownHost,
        QStringLiteral("no host named '%1' (GET /api/hosts lists them)").arg(name));
}

QJsonValue versionOrNull(const QString &line) {
    const QString v = line.trimmed();
    return v.isEmpty() ? QJsonValue() : QJsonValue(v);
}
} // namespace

HostDirectory::HostDirectory(HostCatalog &catalog, SshSettings settings, AgentsOn agentsOn,
                             QObject *parent)
    : QObject(parent)
    , m_catalog(catalog)
    , m_settings(std::move(settings))
    , m_agentsOn(std::move(agentsOn)) {
    connect(&m_catalog, &HostCatalog::hostStored, this,
            [this](const HostConfig &host, bool created) {
                if (created) {
                    addLink(host);
                    Q_EMIT hostAdded(describe(host, m_links.value(host.name)));
                } else if (SshLink *link = m_links.value(host.name)) {
                    link->setHost(host);
                }
            });
    connect(&m_catalog, &HostCatalog::hostRemoved, this, [this](const QString &name) {
        delete m_links.take(name);
        if (!m_settings.mirrorDir.isEmpty()) // its session copies go with it
            QDir(m_settings.mirrorDir + QLatin1Char('/') + name).removeRecursively();
        Q_EMIT hostDeleted(name);
    });
}

HostDirectory::~HostDirectory() {
    qDeleteAll(m_links);
}

void HostDirectory::start() {
    for (const HostConfig &host : m_catalog.hosts())
        addLink(host);
}

void HostDirectory::addLink(const HostConfig &host) {
    auto *link = new SshLink(host, m_settings);
    m_links.insert(host.name, link);
    connect(link, &SshLink::changed, this,
            [this, link] { Q_EMIT hostChanged(describe(link->host(), link)); });
    link->connectNow();
}

QJsonObject HostDirectory::describe(const HostConfig &host, const SshLink *link) const {
    QJsonObject o = host.toJson();
    o.insert(k::State, link ? link->state() : QString(hs::Unreachable));
    o.insert(k::Error, link && !link->error().isEmpty() && !link->isConnected()
                           ? QJsonValue(link->error())
                           : QJsonValue());
    o.insert(k::Agents, m_agentsOn ? int(m_agentsOn(host.name).size()) : 0);
    return o;
}

QJsonArray HostDirectory::toJson() const {
    QJsonArray out{*hostJson(QString(wire::host::Local))};
    for (const HostConfig &host : m_catalog.hosts())
        out.append(describe(host, m_links.value(host.name)));
    return out;
}

std::optional<QJsonObject> HostDirectory::hostJson(const QString &name) const {
    if (name == wire::host::Local)
        return QJsonObject{{k::Name_, QString(wire::host::Local)},
                           {k::Ssh, QJsonValue()},
                           {k::ClaudeBin, QJsonValue()},
                           {k::CodexBin, QJsonValue()},
                           {k::MaxAgents, QJsonValue()},
                           {k::State, QString(hs::Local)},
                           {k::Error, QJsonValue()},
                           {k::Agents, m_agentsOn ? int(m_agentsOn(QString()).size()) : 0}};
    const auto host = m_catalog.find(name);
    if (!host)
        return std::nullopt;
    return describe(*host, m_links.value(name));
}

Status HostDirectory::remove(const QString &name) {
    if (name == wire::host::Local)
        return Error::invalid(wire::code::InvalidValue,
                              QStringLiteral("the local host cannot be deleted"));
    if (!m_catalog.find(name))
        return Error::notFound(hc::UnknownHost, QStringLiteral("no host named '%1'").arg(name));
    const QStringList users = m_agentsOn ? m_agentsOn(name) : QStringList();
    if (!users.isEmpty())
        return Error::conflict(hc::HostInUse,
                               QStringLiteral("host '%1' is used by %2 agent(s): %3; delete or "
                                              "move them first")
                                   .arg(name)
                                   .arg(users.size())
                                   .arg(users.join(QStringLiteral(", "))));
    return m_catalog.remove(name);
}

Status HostDirectory::checkAgent(const QString &host, bool wantsWorktree) const {
    const auto config = m_catalog.find(host);
    if (!config)
        return unknownHost(host);
    if (wantsWorktree)
        return Error::invalid(wire::code::InvalidValue,
                              QStringLiteral("worktrees on another host are not built yet: create "
                                             "the agent without 'worktree'"));
    if (config->maxAgents > 0 && m_agentsOn && m_agentsOn(host).size() >= config->maxAgents)
        return Error::conflict(wire::code::Conflict,
                               QStringLiteral("host '%1' already runs %2 agents (its maxAgents)")
                                   .arg(host)
                                   .arg(config->maxAgents));
    return std::nullopt;
}

Result<RemoteSpec> HostDirectory::remoteFor(const QString &host, const QString &tag,
                                            const QString &provider) const {
    const SshLink *link = m_links.value(host);
    if (!link)
        return unknownHost(host);
    if (!link->isConnected())
        return Error{ErrorKind::Unavailable, hc::HostUnreachable,
                     QStringLiteral("host unreachable: '%1' is %2%3")
                         .arg(host, link->state(),
                              link->error().isEmpty()
                                  ? QString()
                                  : QStringLiteral(" (%1)").arg(link->error()))};
    RemoteSpec spec;
    spec.ssh = m_settings.ssh;
    spec.sshOptions = link->sessionOptions();
    spec.destination = link->host().destination;
    spec.runDir = link->home() + QStringLiteral("/.cache/flotilla/run/") + tag;
    spec.callbackUrl = link->callbackUrl();
    if (!provider.isEmpty())
        spec.cliProgram = link->host().program(provider);
    return spec;
}

Result<MirrorTarget> HostDirectory::mirrorFor(const QString &host) const {
    auto remote = remoteFor(host, QStringLiteral("history"), QString());
    if (!remote)
        return remote.error();
    return MirrorTarget{remote->ssh, remote->sshOptions, remote->destination,
                        m_settings.mirrorDir + QLatin1Char('/') + host};
}

Status HostDirectory::check(const QString &name, CheckDone done) {
    QStringList args;
    QString program;
    QString claude = QStringLiteral("claude");
    QString codex = QStringLiteral("codex");
    SshLink *link = nullptr;
    if (name != wire::host::Local) {
        link = m_links.value(name);
        if (!link)
            return Error::notFound(hc::UnknownHost, QStringLiteral("no host named '%1'").arg(name));
        claude = link->host().program(QString(k::Claude));
        codex = link->host().program(QString(k::Codex));
    }
    // The probe runs through a connection of its own (not the master), so that it reports what
    // a fresh connection meets: an unknown host key, a refused key, a host that is down.
    const QString script = QString::fromLatin1(kProbe).arg(shellQuote(claude), shellQuote(codex));
    if (link) {
        program = m_settings.ssh;
        if (!m_settings.configFile.isEmpty())
            args << QStringLiteral("-F") << m_settings.configFile;
        args << QStringLiteral("-o") << QStringLiteral("BatchMode=yes") << QStringLiteral("-o")
             << QStringLiteral("StrictHostKeyChecking=yes") << QStringLiteral("-o")
             << QStringLiteral("ConnectTimeout=10") << QStringLiteral("-o")
             << QStringLiteral("ControlPath=none");
        if (link->host().port > 0)
            args << QStringLiteral("-p") << QString::number(link->host().port);
        args << link->host().destination << QStringLiteral("--") << script;
        link->connectNow(); // a retry now rather than at the end of its backoff
    } else {
        program = QStringLiteral("/bin/sh");
        args << QStringLiteral("-c") << script;
    }
    auto *p = new QProcess(this);
    auto timer = std::make_shared<QElapsedTimer>();
    p->setProgram(program);
    p->setArguments(args);
    p->setStandardInputFile(QProcess::nullDevice());
    p->setChildProcessModifier(prepareChildProcess);
    connect(p, &QProcess::finished, this, [p, timer, done](int code, QProcess::ExitStatus status) {
        p->deleteLater();
        const qint64 ms = timer->elapsed();
        const QStringList lines =
            QString::fromUtf8(p->readAllStandardOutput()).split(QLatin1Char('\n'));
        if (status != QProcess::NormalExit || code != 0 || lines.size() < 5) {
            QString why = QString::fromUtf8(p->readAllStandardError()).trimmed();
            if (why.contains(QLatin1String("Host key verification failed")))
                why += QStringLiteral(" (the host key is not in known_hosts)");
            done(QJsonObject{{k::Reachable, false},
                             {k::LatencyMs, QJsonValue()},
                             {k::Error, why.isEmpty()
                                            ? QStringLiteral("ssh exited with status %1").arg(code)
                                            : why.right(500)},
                             {k::Home, QJsonValue()},
                             {k::User, QJsonValue()},
                             {k::Claude, QJsonValue()},
                             {k::Codex, QJsonValue()},
                             {k::Git, QJsonValue()}});
            return;
        }
        done(QJsonObject{{k::Reachable, true},
                         {k::LatencyMs, ms},
                         {k::Error, QJsonValue()},
                         {k::Home, lines.at(0)},
                         {k::User, lines.at(1)},
                         {k::Claude, versionOrNull(lines.value(2))},
                         {k::Codex, versionOrNull(lines.value(3))},
                         {k::Git, versionOrNull(lines.value(4))}});
    });
    QTimer::singleShot(kCheckTimeoutMs, p, [p] { p->kill(); });
    timer->start();
    p->start(QIODevice::ReadOnly);
    return std::nullopt;
}

} // namespace flotilla
