#pragma once

#include <QObject>

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class HttpServer;
class ToolHistory;

// Messages to agents, the runtime bulk operations (stop, clear-context, change-model) and the
// tool history recorded from the live streams.
class RuntimeController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RuntimeController)
public:
    RuntimeController(HttpServer &http, AgentRegistry &agents, AgentRuntime &runtime,
                      ToolHistory &tools, QObject *parent = nullptr);
};

} // namespace flotilla
