#pragma once
// The Codex CLI as a provider ("codex"), driven through `codex app-server` (CodexProcess.h),
// which streams tokens and asks for approvals; `codex exec --json` gives whole messages only.
// Its threads live in <codex home>/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl
// (CodexSessions.h).

#include "agents/Provider.h"

namespace flotilla {

struct CodexConfig {
    QString bin;  // the CLI (--codex-bin, FLOTILLA_CODEX_BIN, codex on PATH); empty: none found
    QString home; // $CODEX_HOME, else ~/.codex: where thread rollouts are kept
};

class CodexProvider final : public Provider {
public:
    explicit CodexProvider(CodexConfig config);

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
    CodexConfig m_config;
};

} // namespace flotilla
