#include "agents/codex/CodexProvider.h"

#include "agents/codex/CodexProcess.h"
#include "agents/codex/CodexSessions.h"
#include "protocol/WireNames.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace flotilla {

CodexProvider::CodexProvider(CodexConfig config)
    : m_config(std::move(config)) {
}

QString CodexProvider::name() const {
    return wire::provider::Codex;
}

QString CodexProvider::displayName() const {
    return QStringLiteral("Codex");
}

// A model of the pinned CLI's own catalog (0.169.0), so the CLI knows its tools (with
// apply_patch for file edits) instead of warning and falling back to generic metadata.
QString CodexProvider::defaultModel() const {
    return QStringLiteral("gpt-5.5");
}

QString CodexProvider::unavailableReason() const {
    if (m_config.bin.isEmpty())
        return QStringLiteral("Codex CLI not found: install it (npm install -g @openai/codex) or "
                              "start flotillad with --codex-bin or FLOTILLA_CODEX_BIN");
    if (!QFileInfo(m_config.bin).isExecutable())
        return QStringLiteral("Codex CLI %1 is not an executable file: install it (npm install "
                              "-g @openai/codex) or point --codex-bin or FLOTILLA_CODEX_BIN at it")
            .arg(m_config.bin);
    return {};
}

AgentLaunch CodexProvider::launch(const LaunchRequest &request) const {
    AgentLaunch launch;
    launch.program = m_config.bin;
    launch.arguments = {QStringLiteral("app-server")};
    launch.cwd = request.cwd;
    launch.environment = request.environment;
    launch.resumeId = request.resumeId;
    launch.model = request.model;
    launch.systemPrompt = request.systemPrompt;
    launch.skillsDir = request.skillsDir;
    // Flotilla's MCP server goes into thread/start's config, its token only over stdin.
    launch.mcpUrl = request.mcpUrl;
    launch.mcpToken = request.mcpToken;
    // Every command and edit outside Codex's own read-only set asks, through the service's
    // permission flow, in both modes: "ask" agents' requests reach the user, "auto" agents' are
    // approved at once by the service, after the checks that apply in any mode (standing deny
    // rules, the tool-use check of the service's own files), which a policy of "never" would
    // bypass. Either way commands may write in the working directory only (the sandbox), as the
    // user's own Codex would by default in a workspace.
    launch.approvalPolicy = QStringLiteral("untrusted");
    // Inside the service's sandbox Codex's own stands down: nested, its bwrap cannot set up a
    // user namespace as root ("setting up uid map"), and ours confines every command already.
    launch.sandboxed = request.sandboxed;
    launch.sandbox = request.sandboxed ? QStringLiteral("danger-full-access")
                                       : QStringLiteral("workspace-write");
    // Where the kernel refuses user namespaces, Codex's own bwrap fails every command with "No
    // permissions to create a new namespace", and its client hears nothing about it. With the
    // agent's consent its commands run without that sandbox; without it the user is told.
    if (!request.sandboxed && request.namespacesBlocked) {
        if (request.allowUnconfined) {
            launch.sandbox = QStringLiteral("danger-full-access");
            launch.warning = QStringLiteral(
                "user namespaces are not allowed here, so Codex's own sandbox cannot start: its "
                "commands run unconfined, as this agent's sandbox settings allow "
                "(allowUnconfined); approvals still apply");
        } else {
            launch.warning = QStringLiteral(
                "user namespaces are not allowed here, so Codex's own sandbox cannot start and "
                "every command it runs will fail. Allow unconfined commands in the agent's "
                "sandbox settings (sandbox: {mode: \"off\", allowUnconfined: true}), or run "
                "flotillad where user namespaces work");
        }
    }
    if (!m_config.home.isEmpty())
        launch.stateDirs << m_config.home;
    return launch;
}

AgentProcess *CodexProvider::createProcess(QObject *parent) const {
    return new CodexProcess(parent);
}

bool CodexProvider::canResume(const QString &cwd, const QString &sessionId) const {
    Q_UNUSED(cwd) // a thread is found by its id alone
    if (sessionId.isEmpty() || m_config.home.isEmpty())
        return true;
    QDirIterator it(m_config.home + QStringLiteral("/sessions"),
                    {QStringLiteral("rollout-*-") + sessionId + QStringLiteral(".jsonl")},
                    QDir::Files, QDirIterator::Subdirectories);
    return it.hasNext();
}

history::SessionFinder CodexProvider::sessionFinder() const {
    return [home = m_config.home](const QString &cwd) { return codex::sessions(home, cwd); };
}

history::SessionFinder CodexProvider::sessionFinderAt(const QString &userHome) const {
    return [home = QString(userHome + QStringLiteral("/.codex"))](const QString &cwd) {
        return codex::sessions(home, cwd);
    };
}

// Rollouts are filed by date, not by directory: every one is copied (only new bytes each time),
// and the cwd in each one's session_meta picks the agent's.
QList<Provider::SessionLocation> CodexProvider::sessionLocations(const QString &cwd) const {
    Q_UNUSED(cwd)
    return {{QStringLiteral(".codex/sessions"), 4, QStringLiteral("rollout-*.jsonl")}};
}

// Commands arrive wrapped in a shell ("/bin/bash -lc '<script>'"): the matcher unwraps them.
QHash<QString, rules::ToolKind> CodexProvider::toolKinds() const {
    using rules::ToolKind;
    static const QHash<QString, ToolKind> kinds{
        {QStringLiteral("commandExecution"), ToolKind::Command},
        {QStringLiteral("fileChange"), ToolKind::FileEdit},
    };
    return kinds;
}

// The OpenAI API and ChatGPT (a ChatGPT sign-in), OPENAI_BASE_URL, and every base_url of the
// model providers in $CODEX_HOME/config.toml (a gateway, the tests' mock).
QStringList CodexProvider::apiEndpoints(const QProcessEnvironment &environment) const {
    QStringList out{QStringLiteral("api.openai.com:443"), QStringLiteral("chatgpt.com:443")};
    const QString env = endpointOf(environment.value(QStringLiteral("OPENAI_BASE_URL")));
    if (!env.isEmpty())
        out << env;
    QFile config(m_config.home + QStringLiteral("/config.toml"));
    if (!m_config.home.isEmpty() && config.open(QIODevice::ReadOnly)) {
        static const QRegularExpression baseUrl(
            QStringLiteral("^\\s*base_url\\s*=\\s*\"([^\"]+)\""),
            QRegularExpression::MultilineOption);
        const QString text = QString::fromUtf8(config.read(1024 * 1024));
        auto it = baseUrl.globalMatch(text);
        while (it.hasNext()) {
            const QString endpoint = endpointOf(it.next().captured(1));
            if (!endpoint.isEmpty())
                out << endpoint;
        }
    }
    out.removeDuplicates();
    return out;
}

} // namespace flotilla
