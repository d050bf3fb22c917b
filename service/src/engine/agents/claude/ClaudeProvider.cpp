#include "agents/claude/ClaudeProvider.h"

#include "agents/claude/ClaudeEvents.h"
#include "agents/claude/ClaudeProcess.h"
#include "agents/claude/ClaudeSessions.h"
#include "protocol/McpNames.h"
#include "protocol/WireNames.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace flotilla {

namespace {
// Hook timeout (seconds): above the service's 5-minute answer deadline, so the service decides.
constexpr int kHookTimeoutS = 330;
// A process writes its session's cost-state when it ends, after its last turn: it is in the tail.
constexpr qint64 kCostStateTail = 1024 * 1024;

// The hook pipes the CLI's JSON (stdin) to the service and prints the service's answer. The
// agent's token comes from its header file (-H @file): curl's argv, which every user can read,
// holds only the file's name.
QJsonObject hookSettings() {
    const QString command =
        QStringLiteral("curl -s --max-time %1 -X POST "
                       "\"$FLOTILLA_URL/api/agents/$FLOTILLA_AGENT_ID/permission-check\" "
                       "-H @\"$FLOTILLA_AUTH_HEADER_FILE\" "
                       "-H 'Content-Type: application/json' --data-binary @-")
            .arg(kHookTimeoutS);
    const QJsonArray hooks{QJsonObject{{QStringLiteral("type"), QStringLiteral("command")},
                                       {QStringLiteral("command"), command},
                                       {QStringLiteral("timeout"), kHookTimeoutS}}};
    const QJsonArray entry{QJsonObject{{QStringLiteral("matcher"), QStringLiteral("*")},
                                       {QStringLiteral("hooks"), hooks}}};
    return QJsonObject{{QStringLiteral("PreToolUse"), entry},
                       {QStringLiteral("PermissionRequest"), entry}};
}
} // namespace

ClaudeProvider::ClaudeProvider(ClaudeConfig config)
    : m_config(std::move(config)) {
}

QString ClaudeProvider::name() const {
    return wire::provider::Claude;
}

QString ClaudeProvider::displayName() const {
    return QStringLiteral("Claude Code");
}

QString ClaudeProvider::defaultModel() const {
    return QStringLiteral("sonnet");
}

QString ClaudeProvider::unavailableReason() const {
    if (m_config.bin.isEmpty())
        return QStringLiteral("Claude Code CLI not found: install it (npm install -g "
                              "@anthropic-ai/claude-code) or start flotillad with --claude-bin");
    if (!QFileInfo(m_config.bin).isExecutable())
        return QStringLiteral("Claude Code CLI %1 is not an executable file: install it (npm "
                              "install -g @anthropic-ai/claude-code) or point --claude-bin or "
                              "FLOTILLA_CLAUDE_BIN at it")
            .arg(m_config.bin);
    return {};
}

AgentLaunch ClaudeProvider::launch(const LaunchRequest &request) const {
    AgentLaunch launch;
    launch.program = m_config.bin;
    launch.cwd = request.cwd;
    launch.environment = request.environment;
    launch.resumeId = request.resumeId;
    launch.model = request.model;
    launch.systemPrompt = request.systemPrompt;
    launch.skillsDir = request.skillsDir;
    launch.systemPromptFile = request.systemPromptFile;
    launch.sandboxed = request.sandboxed;
    // Its sessions, settings and credentials. ~/.claude.json stays read-only in a sandbox (a
    // bound file cannot take the CLI's rename onto it): the CLI then keeps its start-up counters
    // in memory and goes on (verified with 2.1.329), and the user's own MCP servers and
    // project settings there are still read.
    if (!m_config.home.isEmpty())
        launch.stateDirs << m_config.home;
    launch.arguments = arguments(launch);
    // The class's tool lists, in the CLI's own rule syntax (e.g. "Bash(git:*)").
    QStringList allowed = request.allowedTools;
    if (!request.mcpConfigFile.isEmpty()) {
        // Flotilla's MCP server, from the token's private file (the token stays off argv), next
        // to the user's own servers (no --strict-mcp-config). Its tools carry no more rights
        // than the token, so they run without asking: `-p` denies an MCP tool that no rule
        // allows. A rule naming the server allows all its tools (verified with 2.1.329:
        // permission_decision {"decision":"accept","source":"config","reason_type":"rule"}).
        launch.arguments << QStringLiteral("--mcp-config") << request.mcpConfigFile;
        const QString serverRule = QStringLiteral("mcp__") + QString(wire::mcp::ServerName);
        if (!allowed.contains(serverRule))
            allowed << serverRule;
    }
    if (!allowed.isEmpty())
        launch.arguments << QStringLiteral("--allowedTools") << allowed.join(QLatin1Char(','));
    if (!request.disallowedTools.isEmpty())
        launch.arguments << QStringLiteral("--disallowedTools")
                         << request.disallowedTools.join(QLatin1Char(','));
    if (!launch.resumeId.isEmpty() && !m_config.home.isEmpty()) {
        const auto file = claude::findSession(claude::projectDirsFor(m_config.home, request.cwd),
                                              launch.resumeId);
        QFile f(file ? file->path : QString());
        if (file && f.open(QIODevice::ReadOnly)) {
            f.seek(qMax<qint64>(0, f.size() - kCostStateTail));
            launch.resumedCostUsd = lastSessionCost(f.read(kCostStateTail));
        }
    }
    return launch;
}

QStringList ClaudeProvider::arguments(const AgentLaunch &launch) const {
    QStringList args{QStringLiteral("-p"),
                     QStringLiteral("--output-format"),
                     QStringLiteral("stream-json"),
                     QStringLiteral("--input-format"),
                     QStringLiteral("stream-json"),
                     QStringLiteral("--verbose"),
                     QStringLiteral("--include-partial-messages")};
    // The CLI records the system prompt on a conversation's first request and, by default,
    // re-sends that record on every resume, ignoring a changed --append-system-prompt
    // (verified with 2.1.329). Rendering it fresh is what lets a new global prompt reach a
    // resumed agent.
    args << QStringLiteral("--system-prompt-snapshot") << QStringLiteral("off");
    if (!launch.resumeId.isEmpty())
        args << QStringLiteral("--resume") << launch.resumeId;
    if (!launch.model.isEmpty())
        args << QStringLiteral("--model") << launch.model;
    if (!launch.systemPromptFile.isEmpty())
        args << QStringLiteral("--append-system-prompt-file") << launch.systemPromptFile;
    else if (!launch.systemPrompt.isEmpty())
        args << QStringLiteral("--append-system-prompt") << launch.systemPrompt;
    // The agent's skills, as a plugin for this session only: namespaced flotilla:<skill>, and
    // nothing written into the user's repository or ~/.claude (verified with 2.1.329).
    if (!launch.skillsDir.isEmpty())
        args << QStringLiteral("--plugin-dir") << launch.skillsDir;
    QJsonObject settings;
    if (m_config.permissionHooks)
        settings.insert(QStringLiteral("hooks"), hookSettings());
    // Inside the service's sandbox the CLI's own (a user setting may enable it) would nest: as
    // root it cannot start, and ours confines its commands already.
    if (launch.sandboxed)
        settings.insert(QStringLiteral("sandbox"), QJsonObject{{QStringLiteral("enabled"), false}});
    if (!settings.isEmpty())
        args << QStringLiteral("--settings")
             << QString::fromUtf8(QJsonDocument(settings).toJson(QJsonDocument::Compact));
    return args;
}

AgentProcess *ClaudeProvider::createProcess(QObject *parent) const {
    return new ClaudeProcess(parent);
}

bool ClaudeProvider::canResume(const QString &cwd, const QString &sessionId) const {
    if (sessionId.isEmpty() || m_config.home.isEmpty())
        return true; // nothing to resume, or nowhere to look: let the CLI decide
    return claude::findSession(claude::projectDirsFor(m_config.home, cwd), sessionId).has_value();
}

history::SessionFinder ClaudeProvider::sessionFinder() const {
    return [home = m_config.home](const QString &cwd) { return claude::sessions(home, cwd); };
}

history::SessionFinder ClaudeProvider::sessionFinderAt(const QString &userHome) const {
    return [home = QString(userHome + QStringLiteral("/.claude"))](const QString &cwd) {
        return claude::sessions(home, cwd);
    };
}

// The project directory of the cwd, with its sub-agent transcripts (<session>/subagents/).
QList<Provider::SessionLocation> ClaudeProvider::sessionLocations(const QString &cwd) const {
    return {{QStringLiteral(".claude/projects/") + claude::encodeProjectDirName(cwd), 3,
             QStringLiteral("*.jsonl")}};
}

QHash<QString, rules::ToolKind> ClaudeProvider::toolKinds() const {
    using rules::ToolKind;
    static const QHash<QString, ToolKind> kinds{
        {QStringLiteral("Bash"), ToolKind::Command},
        {QStringLiteral("Edit"), ToolKind::FileEdit},
        {QStringLiteral("Write"), ToolKind::FileEdit},
        {QStringLiteral("MultiEdit"), ToolKind::FileEdit},
        {QStringLiteral("NotebookEdit"), ToolKind::FileEdit},
    };
    return kinds;
}

// ANTHROPIC_BASE_URL when the agents' environment sets one (a gateway, the tests' mock), else the
// Anthropic API.
QStringList ClaudeProvider::apiEndpoints(const QProcessEnvironment &environment) const {
    const QString base = endpointOf(environment.value(QStringLiteral("ANTHROPIC_BASE_URL")));
    return {base.isEmpty() ? QStringLiteral("api.anthropic.com:443") : base};
}

} // namespace flotilla
