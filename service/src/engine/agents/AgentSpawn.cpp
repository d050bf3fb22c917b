// AgentRuntime's process start: what it decides for a new CLI process (its shape, its model, a
// session it can resume, its own credential and the service's MCP server behind it), what the
// provider makes of that, and how the process's signals reach the turn loop (AgentRuntime.cpp).

#include "agents/AgentRuntime.h"

#include "agents/AgentProcess.h"
#include "agents/AgentSession.h"
#include "agents/AgentShaper.h"
#include "agents/Provider.h"
#include "agents/RuntimeUpdate.h"
#include "base/Logging.h"
#include "domain/AgentRegistry.h"
#include "protocol/McpNames.h"
#include "sandbox/SandboxPolicy.h"
#include "security/AgentTokens.h"

#include <QUuid>

namespace flotilla {

namespace {
// Crash restarts counted over this window (RuntimeConfig::maxRestartsPerMinute).
constexpr qint64 kRestartWindowMs = 60'000;

// What an agent's process on another host gets of its environment here: what the service added
// or changed (FLOTILLA_*, the provider's, the options'), never what belongs to this machine and
// account (HOME, PATH, the session), which that host has of its own.
QStringList environmentToSend(const QProcessEnvironment &environment) {
    static const QStringList local{QStringLiteral("HOME"),
                                   QStringLiteral("PATH"),
                                   QStringLiteral("USER"),
                                   QStringLiteral("LOGNAME"),
                                   QStringLiteral("SHELL"),
                                   QStringLiteral("TMPDIR"),
                                   QStringLiteral("PWD"),
                                   QStringLiteral("OLDPWD"),
                                   QStringLiteral("SSH_AUTH_SOCK"),
                                   QStringLiteral("DISPLAY"),
                                   QStringLiteral("WAYLAND_DISPLAY")};
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    QStringList out;
    for (const QString &name : environment.keys()) {
        if (local.contains(name) || name.startsWith(QLatin1String("XDG_")))
            continue;
        if (!system.contains(name) || system.value(name) != environment.value(name))
            out << name;
    }
    return out;
}
} // namespace

bool AgentRuntime::spawn(const QString &agentId, Session &s, RuntimeUpdate &update) {
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return false;
    // The provider may have changed (changeModel) since the message was accepted.
    const Provider *provider = m_providers.find(agent->provider);
    if (!provider) {
        failTurn(agentId, noRuntimeFor(agent->provider));
        s.queue.clear();
        return false;
    }
    if (s.crashed) {
        const qint64 now = m_clock.nowMs();
        while (!s.crashRestarts.isEmpty() && now - s.crashRestarts.constFirst() > kRestartWindowMs)
            s.crashRestarts.removeFirst();
        if (s.crashRestarts.size() >= m_config.maxRestartsPerMinute) {
            failTurn(agentId,
                     QStringLiteral("%1 crashed %2 time(s) in the last minute; not "
                                    "restarting it now. Try again in a minute.")
                         .arg(provider->displayName(), QString::number(s.crashRestarts.size())));
            s.queue.clear();
            return false;
        }
        s.crashRestarts.append(now);
        s.crashed = false;
    }
    LaunchRequest request;
    request.cwd = agent->cwd;
    request.resumeId = agent->sessionId;
    request.model = agent->model;
    const AgentShape shape = m_shaper.shapeFor(*agent);
    request.systemPrompt = shape.instructions;
    request.skillsDir = shape.skillsDir;
    request.systemPromptFile = shape.instructionsFile;
    request.allowedTools = shape.allowedTools;
    request.disallowedTools = shape.disallowedTools;
    request.askPermission = agent->permissionMode != QLatin1String("auto");
    // Its host: here, or another machine over flotillad's ssh connection (docs/api.md "Hosts").
    auto remote = m_sandbox.remoteFor(*agent, QUuid::createUuid().toString(QUuid::WithoutBraces),
                                      agent->provider);
    if (!remote) {
        failTurn(agentId, remote.error().message);
        s.queue.clear();
        return false;
    }
    // A skills directory is not shipped to another host yet (docs/api.md "Hosts").
    if (remote->isRemote())
        request.skillsDir.clear();
    // The session files of a remote agent are that host's: the CLI itself says if one is gone.
    if (!remote->isRemote() && !provider->canResume(agent->cwd, agent->sessionId)) {
        // The CLI was killed before it wrote the session (or someone removed it): resuming
        // would fail the turn ("No conversation found"). Start afresh and say so.
        qCWarning(lcAgents).noquote() << "agent" << agentId << "session" << agent->sessionId
                                      << "not found on disk; starting a new session";
        OutputChunk note;
        note.isStreaming = true;
        note.text = QStringLiteral("(The earlier conversation %1 was not found on disk; this "
                                   "message starts a new one.)\n")
                        .arg(agent->sessionId);
        emitChunk(agentId, note);
        request.resumeId.clear();
        update.sessionId = QString();
    }
    request.environment = m_config.environment;
    request.environment.insert(QStringLiteral("FLOTILLA_AGENT_ID"),
                               agentId); // for report-task and hooks
    // There, flotillad is the host link's remote forward.
    if (remote->isRemote())
        request.environment.insert(QStringLiteral("FLOTILLA_URL"), remote->callbackUrl);
    // Its own credential, new for this process: it can act only as this agent. It goes to the
    // process as a file, never as argv or environment text (AgentTokens.h). The same token
    // opens the service's MCP server (protocol/McpNames.h) to the CLI.
    m_tokens.revoke(s.token);
    const QString agentUrl = request.environment.value(QStringLiteral("FLOTILLA_URL"));
    const QString mcpUrl = agentUrl.isEmpty() ? QString() : agentUrl + QString(wire::mcp::Path);
    const AgentTokens::Issued issued = m_tokens.issue(agentId, mcpUrl);
    if (!issued.error.isEmpty()) {
        s.token.clear();
        failTurn(agentId,
                 QStringLiteral("cannot write the agent's credential file %1: %2")
                     .arg(issued.mcpConfigFile.isEmpty() ? issued.headerFile : issued.mcpConfigFile,
                          issued.error));
        s.queue.clear();
        return false;
    }
    s.token = issued.token;
    request.environment.remove(QStringLiteral("FLOTILLA_TOKEN"));
    if (!issued.headerFile.isEmpty())
        request.environment.insert(QLatin1String(kAuthHeaderFileEnv), issued.headerFile);
    request.mcpUrl = mcpUrl;
    request.mcpConfigFile = issued.mcpConfigFile;
    request.mcpToken = mcpUrl.isEmpty() ? QByteArray() : issued.token;
    const AgentSandbox sandbox = m_sandbox.effective(*agent);
    request.sandboxed = sandbox.confines();
    request.namespacesBlocked = m_sandbox.launcher().support().namespacesBlocked;
    request.allowUnconfined = sandbox.allowUnconfined;
    AgentLaunch launch = provider->launch(request);
    // Where it runs: as is, or confined to its directory with the files it reads from the
    // service's hidden data directory bound in read-only (base/Sandbox.h).
    const SandboxSpec spec = m_sandbox.specFor(
        *agent, SandboxUse::Cli, launch.stateDirs,
        {issued.headerFile, issued.mcpConfigFile, shape.skillsDir, shape.instructionsFile});
    ProcessSpec processSpec{
        launch.program, launch.arguments, launch.cwd, launch.environment, spec, {}};
    if (remote->isRemote()) {
        processSpec.program = remote->cliProgram;
        processSpec.remote = *remote;
        processSpec.remote.files = {issued.headerFile, issued.mcpConfigFile,
                                    shape.instructionsFile};
        processSpec.remote.sendEnvironment = environmentToSend(launch.environment);
        launch.program = processSpec.program; // what the logs and messages name
        qCInfo(lcAgents).noquote() << "agent" << agentId << "runs on host" << agent->host << "("
                                   << remote->destination << ")";
    }
    auto plan = m_sandbox.launcher().plan(processSpec);
    if (!plan) {
        m_tokens.revoke(s.token);
        s.token.clear();
        failTurn(agentId, plan.error().message);
        s.queue.clear();
        return false;
    }
    launch.plan = std::move(plan).value();
    if (!launch.warning.isEmpty())
        qCWarning(lcAgents).noquote() << "agent" << agentId << launch.warning;
    s.launchWarning = launch.warning;
    s.sandboxInUse = sandbox;
    s.promptInUse = request.systemPrompt;
    s.shapeInUse = shape;
    s.modelInUse = request.model;
    s.providerInUse = agent->provider;
    s.respawnBeforeNextTurn = false;
    s.cliName = provider->displayName();
    s.hostInUse = remote->isRemote() ? agent->host : QString();
    s.process = provider->createProcess(this);
    connectProcess(agentId, s, launch.program);
    s.process->start(launch);
    update.processStarted();
    return true;
}

void AgentRuntime::connectProcess(const QString &agentId, Session &s, const QString &program) {
    connect(s.process, &AgentProcess::agentEvent, this,
            [this, agentId](const AgentEvent &e) { onEvent(agentId, e); });
    connect(s.process, &AgentProcess::finished, this,
            [this, agentId](int code, int signal, bool requested) {
                onFinished(agentId, code, signal, requested);
            });
    connect(s.process, &AgentProcess::failedToStart, this,
            [this, agentId, cli = s.cliName, program](const QString &why) {
                failTurn(agentId,
                         QStringLiteral("cannot start %1 (%2): %3").arg(cli, program, why));
            });
    // Remembered per process: an answer must not reach a later process that reuses the id.
    connect(
        s.process, &AgentProcess::permissionRequested, this,
        [this, agentId](const QString &requestId, const QString &tool, const QJsonObject &input) {
            const QString key = QString::number(++m_permissionSerial);
            session(agentId).openPermissions.insert(key, requestId);
            Q_EMIT permissionRequested(agentId, key, tool, input);
        });
}

} // namespace flotilla
