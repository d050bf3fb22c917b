#pragma once
// GET /api/agents/:id/history, /search, /sessions: read the Claude Code session files
// (~/.claude/projects/<encoded cwd>/<session>.jsonl) of an agent's working directory.

#include <QObject>
#include <QString>

namespace flotilla {

class AgentRegistry;
class HttpServer;

class HistoryController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryController)
public:
    // `claudeHome` is the CLI's config dir (usually ~/.claude); sessions live in its projects/.
    HistoryController(HttpServer &http, const AgentRegistry &agents, QString claudeHome,
                      QObject *parent = nullptr);
    ~HistoryController() override;

private:
    const AgentRegistry &m_agents;
    QString m_claudeHome;
};

} // namespace flotilla
