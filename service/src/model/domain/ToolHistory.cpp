#include "domain/ToolHistory.h"

#include "protocol/WireNames.h"
#include "storage/Database.h"

#include <QJsonDocument>

namespace flotilla {

namespace k = wire::key;

Status ToolHistory::record(const QString &agentId, const QString &agentName,
                           const QString &toolName, const QJsonObject &toolInput,
                           qint64 timestamp) {
    const QJsonObject entry{{k::AgentId, agentId},
                            {k::AgentName, agentName},
                            {k::ToolName, toolName},
                            {k::ToolInput, toolInput},
                            {k::Timestamp, timestamp}};
    if (Status e = m_db.exec(
            QStringLiteral("INSERT INTO tool_history (agent_id, timestamp, data) VALUES (?, ?, ?)"),
            {agentId, timestamp, QJsonDocument(entry).toJson(QJsonDocument::Compact)}))
        return e;
    // Pruning is cheap on the primary key; doing it every 100 inserts keeps it off the hot path.
    if (++m_inserts % 100 == 0) {
        return m_db.exec(
            QStringLiteral(
                "DELETE FROM tool_history WHERE seq <= (SELECT MAX(seq) FROM tool_history) - ?"),
            {kRetained});
    }
    return std::nullopt;
}

Result<QJsonArray> ToolHistory::list(int limit, const QString &agentId) const {
    QJsonArray out;
    const QString sql =
        agentId.isEmpty()
            ? QStringLiteral("SELECT data FROM tool_history ORDER BY seq DESC LIMIT ?")
            : QStringLiteral(
                  "SELECT data FROM tool_history WHERE agent_id = ? ORDER BY seq DESC LIMIT ?");
    const QVariantList binds =
        agentId.isEmpty() ? QVariantList{limit} : QVariantList{agentId, limit};
    Status e = m_db.query(sql, binds, [&](const QVariantList &row) {
        out.append(QJsonDocument::fromJson(row.value(0).toByteArray()).object());
    });
    if (e)
        return *e;
    return out;
}

} // namespace flotilla
