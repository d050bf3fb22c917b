#include "sandbox/SandboxPolicy.h"

#include "base/Logging.h"
#include "protocol/HostNames.h"
#include "protocol/PermissionNames.h"
#include "protocol/SandboxNames.h"
#include "sandbox/EgressProxy.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

namespace flotilla {

namespace sbm = wire::sandbox::mode;
namespace sbc = wire::sandbox::code;

namespace {

QString canonicalOrClean(const QString &path) {
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

// What a process confined to a project has no business reading: keys, cloud and cluster
// credentials, the container daemon. Relative to the home directory.
const QStringList &homeSecrets() {
    static const QStringList list{QStringLiteral(".ssh"),    QStringLiteral(".gnupg"),
                                  QStringLiteral(".aws"),    QStringLiteral(".kube"),
                                  QStringLiteral(".docker"), QStringLiteral(".config/gcloud")};
    return list;
}

// The main repository's git directory of a checkout: `<repo>/.git` as a directory, or what its
// `gitdir:` line names.
QString gitDirOf(const QString &checkout) {
    const QString dotGit = checkout + QStringLiteral("/.git");
    const QFileInfo info(dotGit);
    if (info.isDir())
        return canonicalOrClean(dotGit);
    QFile file(dotGit);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QString line = QString::fromUtf8(file.readLine(4096)).trimmed();
    if (!line.startsWith(QLatin1String("gitdir:")))
        return {};
    const QString target = line.mid(7).trimmed();
    return canonicalOrClean(QDir(checkout).absoluteFilePath(target));
}

} // namespace

SandboxPolicy::SandboxPolicy(SandboxPaths paths, QString defaultForAuto,
                             const ProcessLauncher &launcher, SandboxEgress egress,
                             const RemotePlacement *placement)
    : m_paths(std::move(paths))
    , m_defaultForAuto(std::move(defaultForAuto))
    , m_launcher(launcher)
    , m_placement(placement)
    , m_egress(std::move(egress)) {
    for (QString *p : {&m_paths.dataDir, &m_paths.worktreesRoot, &m_paths.configDir,
                       &m_paths.tokenFile, &m_paths.home, &m_paths.runtimeDir}) {
        if (!p->isEmpty())
            *p = canonicalOrClean(*p);
    }
    if (m_defaultForAuto.isEmpty())
        m_defaultForAuto = launcher.support().usable ? QString(sbm::Workspace) : QString(sbm::Off);
}

AgentSandbox SandboxPolicy::effective(const Agent &agent) const {
    if (agent.sandbox.isSet())
        return agent.sandbox;
    AgentSandbox s;
    // On another host the default is off: this machine's probe says nothing about that one.
    s.mode = agent.permissionMode == wire::permission::mode::Auto && agent.host.isEmpty()
                 ? m_defaultForAuto
                 : QString(sbm::Off);
    s.network = QString(wire::sandbox::network::Full);
    return s;
}

Status SandboxPolicy::check(const Agent &agent) const {
    const AgentSandbox s = effective(agent);
    if (!s.confines())
        return std::nullopt;
    const QString who = agent.name.isEmpty() ? QStringLiteral("this agent")
                                             : QStringLiteral("agent '%1'").arg(agent.name);
    if (!agent.host.isEmpty())
        return Error{ErrorKind::Unavailable, sbc::SandboxUnavailable,
                     QStringLiteral("%1 runs on host '%2', and a sandbox on another host is not "
                                    "built yet: set its sandbox mode to off")
                         .arg(who, agent.host)};
    if (!m_launcher.support().usable)
        return Error{ErrorKind::Unavailable, sbc::SandboxUnavailable,
                     QStringLiteral("%1 asks for a workspace sandbox, but this machine cannot "
                                    "start one: %2")
                         .arg(who, m_launcher.support().reason)};
    if (s.network == wire::sandbox::network::Allowlist &&
        (!m_launcher.support().networkIsolation || !m_egress.proxy))
        return Error{ErrorKind::Unavailable, sbc::SandboxUnavailable,
                     QStringLiteral("%1 asks for network 'allowlist', but this machine cannot give "
                                    "a sandbox a network of its own: %2")
                         .arg(who, m_launcher.support().networkReason.isEmpty()
                                       ? QStringLiteral("no egress proxy")
                                       : m_launcher.support().networkReason)};
    const QStringList kept{m_paths.dataDir, m_paths.worktreesRoot, m_paths.configDir};
    for (const QString &raw : s.writable) {
        const QFileInfo info(raw);
        if (!info.exists())
            return Error::invalid(
                sbc::InvalidSandbox,
                QStringLiteral("sandbox.writable path does not exist: %1").arg(raw.left(200)));
        const QString path = canonicalOrClean(raw);
        if (!m_paths.home.isEmpty() && isPathWithin(m_paths.home, path))
            return Error::invalid(sbc::InvalidSandbox,
                                  QStringLiteral("sandbox.writable may not be the home directory "
                                                 "or hold it: %1")
                                      .arg(raw.left(200)));
        for (const QString &root : kept) {
            if (isPathWithin(path, root) || isPathWithin(root, path))
                return Error::invalid(
                    sbc::InvalidSandbox,
                    QStringLiteral("sandbox.writable %1 overlaps %2, which belongs to flotillad")
                        .arg(raw.left(200), root));
        }
    }
    return std::nullopt;
}

SandboxSpec SandboxPolicy::specFor(const Agent &agent, SandboxUse use, const QStringList &stateDirs,
                                   const QStringList &readOnly) const {
    SandboxSpec spec;
    const AgentSandbox s = effective(agent);
    if (!s.confines())
        return spec;
    spec.enabled = true;
    const QString workDir =
        canonicalOrClean(agent.worktree.isSet() ? agent.worktree.path : agent.cwd);
    spec.writable << workDir;
    for (const QString &p : s.writable)
        spec.writable << canonicalOrClean(p);
    if (use == SandboxUse::Cli) {
        for (const QString &dir : stateDirs) {
            QDir().mkpath(dir); // a first run: the CLI would create it, but a bind needs it
            spec.writable << canonicalOrClean(dir);
        }
    }
    if (agent.worktree.isSet())
        addWorktreeGit(agent, spec);
    else
        protectCheckoutGit(workDir, spec);

    // A home under /tmp (tests, throwaway accounts) would vanish under the private /tmp: keep it,
    // read-only like the rest of the file system.
    if (!m_paths.home.isEmpty() && isPathWithin(m_paths.home, QStringLiteral("/tmp")))
        spec.readOnly << m_paths.home;
    for (const QString &p : readOnly) {
        if (!p.isEmpty())
            spec.readOnly << canonicalOrClean(p);
    }

    // The worktrees root holds the agent's own worktree too: hidden around it, the worktree bound
    // over it (the launcher orders binds by depth).
    for (const QString &p : {m_paths.dataDir, m_paths.worktreesRoot, m_paths.configDir,
                             m_paths.tokenFile, m_paths.runtimeDir}) {
        if (!p.isEmpty())
            spec.hidden << p;
    }
    if (!m_paths.home.isEmpty()) {
        for (const QString &rel : homeSecrets())
            spec.hidden << m_paths.home + QLatin1Char('/') + rel;
    }
    spec.hidden << QStringLiteral("/run/dbus") << QStringLiteral("/run/docker.sock");
    for (const QString &p : s.hidden)
        spec.hidden << canonicalOrClean(p);
    spec.hidden.removeDuplicates();
    spec.writable.removeDuplicates();
    spec.readOnly.removeDuplicates();

    if (s.network == wire::sandbox::network::Allowlist)
        addNetwork(agent, s, spec);
    spec.setEnvironment.insert(QStringLiteral("TMPDIR"), QStringLiteral("/tmp"));
    spec.unsetEnvironment << QStringLiteral("SSH_AUTH_SOCK") << QStringLiteral("GPG_AGENT_INFO")
                          << QStringLiteral("DBUS_SESSION_BUS_ADDRESS");
    return spec;
}

// A worktree's commits go into the main repository's git directory: objects and its own branch
// must be writable there, but not the repository's configuration and hooks (run later by the
// user's own git, outside any sandbox), its other branches, HEAD, index or other worktrees.
void SandboxPolicy::addWorktreeGit(const Agent &agent, SandboxSpec &spec) const {
    const QString gitDir = gitDirOf(agent.worktree.repo);
    if (gitDir.isEmpty() || !QFileInfo(gitDir).isDir())
        return;
    const QString worktreeGitFile = canonicalOrClean(agent.worktree.path + QStringLiteral("/.git"));
    // The worktree's own admin directory, found from the main repository's side (the worktree's
    // .git file is the agent's to rewrite; <gitdir>/worktrees/*/gitdir are not).
    QString adminDir;
    QDirIterator it(gitDir + QStringLiteral("/worktrees"), QDir::Dirs | QDir::NoDotAndDotDot);
    while (it.hasNext()) {
        const QString dir = it.next();
        QFile f(dir + QStringLiteral("/gitdir"));
        if (f.open(QIODevice::ReadOnly) &&
            canonicalOrClean(QString::fromUtf8(f.readAll()).trimmed()) == worktreeGitFile) {
            adminDir = dir;
            break;
        }
    }
    spec.writable << gitDir;
    for (const char *name :
         {"config", "hooks", "info", "HEAD", "index", "packed-refs", "refs", "worktrees"}) {
        const QString p = gitDir + QLatin1Char('/') + QLatin1String(name);
        if (QFileInfo::exists(p))
            spec.readOnly << p;
    }
    if (!adminDir.isEmpty())
        spec.writable << adminDir;
    // Its branch: the directory of a "flotilla/<name>" branch (a file cannot take git's rename
    // onto it); a branch without one makes refs/heads writable, all branches with it.
    const QString branch = agent.worktree.branch;
    const qsizetype slash = branch.lastIndexOf(QLatin1Char('/'));
    const QString refDir = gitDir + QStringLiteral("/refs/heads") +
                           (slash > 0 ? QLatin1Char('/') + branch.left(slash) : QString());
    const QString logDir = gitDir + QStringLiteral("/logs/refs/heads") +
                           (slash > 0 ? QLatin1Char('/') + branch.left(slash) : QString());
    QDir().mkpath(refDir); // `git pack-refs` may have removed it; a bind needs it
    QDir().mkpath(logDir);
    spec.writable << refDir;
}

// An agent working in a checkout can change its files, not what git outside the sandbox will run
// for the user later: the repository's configuration and hooks stay read-only.
void SandboxPolicy::protectCheckoutGit(const QString &dir, SandboxSpec &spec) const {
    QString d = dir;
    while (!d.isEmpty()) {
        const QString dotGit = d + QStringLiteral("/.git");
        if (QFileInfo(dotGit).isDir()) {
            for (const char *name : {"config", "hooks"}) {
                const QString p = dotGit + QLatin1Char('/') + QLatin1String(name);
                if (QFileInfo::exists(p))
                    spec.readOnly << p;
            }
            return;
        }
        if (QFileInfo::exists(dotGit) || d == QLatin1String("/"))
            return;
        d = QFileInfo(d).path();
    }
}

// Its own network namespace; out only through the agent's egress proxy listener, with its
// allowHosts, its provider's model API and flotillad's own port on the list. Loopback ones are also
// reachable at their address inside (tunnels): a CLI may ignore proxy variables for loopback.
void SandboxPolicy::addNetwork(const Agent &agent, const AgentSandbox &sandbox,
                               SandboxSpec &spec) const {
    spec.network.isolated = true;
    if (!m_egress.proxy)
        return; // plan() refuses: no proxy socket
    QStringList allowed = sandbox.allowHosts;
    if (m_egress.apiEndpoints)
        allowed += m_egress.apiEndpoints(agent);
    if (!m_serviceEndpoint.isEmpty())
        allowed << m_serviceEndpoint;
    allowed.removeDuplicates();
    QList<EgressRule> rules;
    for (const QString &text : std::as_const(allowed)) {
        const EgressRule rule = parseEgressRule(text);
        rules << rule;
        const QString host = rule.host.toLower();
        if (rule.port > 0 && (host == QLatin1String("127.0.0.1") ||
                              host == QLatin1String("localhost") || host == QLatin1String("::1")))
            spec.network.tunnelPorts << rule.port;
    }
    if (m_egress.proxy->isOpen(agent.id) && m_openRules.value(agent.id) == allowed) {
        spec.network.proxySocket = m_egress.proxy->socketPath(agent.id);
        return;
    }
    const auto opened = m_egress.proxy->open(agent.id, rules);
    if (!opened) {
        qCWarning(lcSandbox).noquote()
            << "agent" << agent.id << "egress proxy not opened:" << opened.error().message;
        return;
    }
    m_openRules.insert(agent.id, allowed);
    spec.network.proxySocket = *opened;
}

void SandboxPolicy::forget(const QString &agentId) {
    m_openRules.remove(agentId);
    if (m_egress.proxy)
        m_egress.proxy->close(agentId);
}

QJsonObject SandboxPolicy::toJson() const {
    QJsonObject o = m_launcher.support().toJson();
    o.insert(wire::sandbox::key::Default, m_defaultForAuto);
    return o;
}

} // namespace flotilla

namespace flotilla {

Result<RemoteSpec> SandboxPolicy::remoteFor(const Agent &agent, const QString &tag,
                                            const QString &provider) const {
    if (agent.host.isEmpty())
        return RemoteSpec();
    if (!m_placement)
        return Error::invalid(wire::host::code::UnknownHost,
                              QStringLiteral("agent '%1' runs on host '%2', but this service has "
                                             "no hosts")
                                  .arg(agent.name, agent.host));
    return m_placement->remoteFor(agent.host, tag, provider);
}

} // namespace flotilla
