#pragma once
// Tool uses seen in the agents' live streams, persisted (survives restarts), newest first.

#include "base/Error.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace flotilla {

class Database;

class ToolHistory final {
    Q_DISABLE_COPY_MOVE(ToolHistory)
public:
    static constexpr int kRetained = 10000;
    static constexpr int kDefaultLimit = 100;
    static constexpr int kMaxLimit = 1000;

    explicit ToolHistory(Database &db)
        : m_db(db) {}

    Status record(const QString &agentId, const QString &agentName, const QString &toolName,
                  const QJsonObject &toolInput, qint64 timestamp);
    // {agentId, agentName, toolName, toolInput, timestamp}, newest first; agentId filters if set.
    Result<QJsonArray> list(int limit, const QString &agentId = {}) const;

private:
    Database &m_db;
    int m_inserts = 0;
};

} // namespace flotilla
