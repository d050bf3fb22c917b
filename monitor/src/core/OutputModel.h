#pragma once
// One agent's output as a bounded list of lines for a virtualised view (QListView with uniform
// item sizes): streamed text deltas are appended to the open text entry, tool calls and tool
// results are entries of their own, a final chunk closes the turn. At most `capacity` entries
// are kept (oldest dropped first), so a 10,000-line stream costs bounded memory. History pages
// (older entries) are prepended when the user scrolls up.

#include <QAbstractListModel>
#include <QJsonObject>
#include <deque>

namespace flotilla::monitor {

struct OutputEntry {
    enum Kind { Text, ToolCall, ToolResult, Error, Info };
    Kind kind = Text;
    QString text;     // for ToolCall: "Bash  {"command": ...}" (tool name + compact input)
    QString toolName; // ToolCall / ToolResult
    qint64 timestamp = 0;
    bool open = false; // a text entry still receiving deltas
};

class OutputModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutputModel)
public:
    enum Role { KindRole = Qt::UserRole + 1, ToolNameRole, TimestampRole };

    explicit OutputModel(int capacity = 5000, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    // An `output` payload (OutputChunk JSON). Text is split on '\n' into entries.
    void appendChunk(const QJsonObject &chunk);
    // Older entries from GET /api/agents/:id/history, oldest first; inserted at the top.
    void prependHistory(const QList<OutputEntry> &older);
    void clear();
    int capacity() const { return m_capacity; }
    qint64 droppedCount() const { return m_dropped; } // entries dropped by the bound

private:
    int m_capacity;
    qint64 m_dropped = 0;
    std::deque<OutputEntry> m_entries;
};

} // namespace flotilla::monitor
