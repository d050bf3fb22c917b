#pragma once
// One agent's output as a bounded list of lines for a virtualised view (QListView with uniform
// item sizes): streamed text deltas are appended to the open text entry, tool calls and tool
// results are entries of their own, a final chunk closes the turn. At most `capacity` entries
// are kept (oldest dropped first), so a 10,000-line stream costs bounded memory. History pages
// (older entries) are prepended when the user scrolls up.

#include <QAbstractListModel>
#include <QJsonObject>
#include <QList>
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

// `text` as entries, one per line (trailing newlines end the last line; they are not more
// lines); `firstPrefix` starts the first line; past `maxLines` one Info entry says how many more
// there were. Shared by the live stream and history pages so both read the same.
QList<OutputEntry> splitIntoEntries(OutputEntry::Kind kind, const QString &text,
                                    const QString &toolName, qint64 timestamp,
                                    const QString &firstPrefix = {}, int maxLines = -1);

class OutputModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutputModel)
public:
    enum Role { KindRole = Qt::UserRole + 1, ToolNameRole, TimestampRole, OpenRole };

    explicit OutputModel(int capacity = 5000, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    // An `output` payload (OutputChunk JSON). Text is split on '\n' into entries.
    void appendChunk(const QJsonObject &chunk);
    // Older entries from GET /api/agents/:id/history, oldest first; inserted at the top.
    void prependHistory(const QList<OutputEntry> &older);
    // A line of the monitor's own (what was sent, "context cleared", compacting...).
    void appendInfo(const QString &text, qint64 timestamp = 0);
    void clear();
    int capacity() const { return m_capacity; }
    qint64 droppedCount() const { return m_dropped; } // entries dropped by the bound
    const OutputEntry &entry(int row) const { return m_entries[size_t(row)]; }
    // Timestamp of the oldest entry that has one (0 if none): where history paging must stop.
    qint64 oldestTimestamp() const;
    // Longest tool result kept, in lines; the rest is summarised in one Info line.
    static constexpr int kMaxToolResultLines = 200;

private:
    void appendDelta(const QString &text, qint64 timestamp);
    void appendLines(OutputEntry::Kind kind, const QString &text, const QString &toolName,
                     qint64 timestamp, int maxLines = -1);
    void closeOpenEntry();
    // Appends finished entries in one insertion and trims the front to the capacity.
    void push(std::deque<OutputEntry> fresh);
    bool lastIsOpen() const { return !m_entries.empty() && m_entries.back().open; }

    int m_capacity;
    qint64 m_dropped = 0;
    std::deque<OutputEntry> m_entries;
};

} // namespace flotilla::monitor
