#pragma once
// The Claude Code CLI as a provider ("claude"): its command line (stream-json both ways, the
// global prompt, --resume, the permission hooks), its process (ClaudeProcess), where it keeps
// sessions (<home>/projects/<encoded cwd>/<session-id>.jsonl, ClaudeSessions.h) and its tools.

#include "agents/Provider.h"

namespace flotilla {

struct ClaudeConfig {
    QString bin;  // the CLI (--claude-bin); empty when none was found on PATH
    QString home; // where the CLI keeps sessions (~/.claude): a resume needs the file to be there
    // Adds PreToolUse and PermissionRequest hooks that ask the service (FLOTILLA_URL) about
    // every tool use; permissions/PermissionBroker.h answers them.
    bool permissionHooks = true;
};

class ClaudeProvider final : public Provider {
public:
    explicit ClaudeProvider(ClaudeConfig config);

    QString name() const override;
    QString displayName() const override;
    QString defaultModel() const override;
    QString program() const override { return m_config.bin; }
    QString unavailableReason() const override;
    AgentLaunch launch(const LaunchRequest &request) const override;
    AgentProcess *createProcess(QObject *parent) const override;
    bool canResume(const QString &cwd, const QString &sessionId) const override;
    history::SessionFinder sessionFinder() const override;
    history::SessionFinder sessionFinderAt(const QString &userHome) const override;
    QList<SessionLocation> sessionLocations(const QString &cwd) const override;
    QHash<QString, rules::ToolKind> toolKinds() const override;
    QStringList apiEndpoints(const QProcessEnvironment &environment) const override;

private:
    // The CLI's arguments for `launch` (its resumeId, model and systemPrompt).
    QStringList arguments(const AgentLaunch &launch) const;

    ClaudeConfig m_config;
};

} // namespace flotilla
