#include "core/OutputModel.h"

#include "protocol/OutputChunk.h"

#include <QJsonDocument>

#include <algorithm>

namespace flotilla::monitor {

namespace {
// Non-streamed text the service writes itself: "Error: ..." ends a failed turn, "Delegation
// error: ..." (and the spawn/work-plan variants) reports a bad boss block.
OutputEntry::Kind kindOfFinalText(const QString &text) {
    if (text.startsWith(QLatin1String("Error: ")) ||
        text.startsWith(QLatin1String("Delegation error:")) ||
        text.startsWith(QLatin1String("Spawn error:")) ||
        text.startsWith(QLatin1String("Work plan error:")))
        return OutputEntry::Error;
    if (text.startsWith(QLatin1String("[stopped]")))
        return OutputEntry::Info;
    return OutputEntry::Text;
}
} // namespace

OutputModel::OutputModel(int capacity, QObject *parent)
    : QAbstractListModel(parent)
    , m_capacity(std::max(1, capacity)) {
}

int OutputModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_entries.size());
}

QVariant OutputModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() < 0 || size_t(index.row()) >= m_entries.size())
        return {};
    const OutputEntry &e = m_entries[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return e.text;
    case KindRole:
        return int(e.kind);
    case ToolNameRole:
        return e.toolName;
    case TimestampRole:
        return e.timestamp;
    case OpenRole:
        return e.open;
    default:
        return {};
    }
}

void OutputModel::appendChunk(const QJsonObject &chunk) {
    OutputChunk c;
    if (!OutputChunk::fromJson(chunk, &c))
        return;
    if (c.hasToolInput) {
        closeOpenEntry();
        OutputEntry e;
        e.kind = OutputEntry::ToolCall;
        e.toolName = c.toolName;
        e.timestamp = c.timestamp;
        e.text = c.toolName + QStringLiteral("  ") +
                 QString::fromUtf8(QJsonDocument(c.toolInput).toJson(QJsonDocument::Compact));
        push({std::move(e)});
        return;
    }
    if (c.hasToolOutput) {
        closeOpenEntry();
        appendLines(OutputEntry::ToolResult, c.toolOutput, c.toolName, c.timestamp,
                    kMaxToolResultLines);
        return;
    }
    if (c.isStreaming) {
        appendDelta(c.text, c.timestamp);
        return;
    }
    // The final chunk of a turn (or a service notice): whatever is open is complete.
    closeOpenEntry();
    if (!c.text.isEmpty())
        appendLines(kindOfFinalText(c.text), c.text, QString(), c.timestamp);
}

void OutputModel::appendInfo(const QString &text, qint64 timestamp) {
    closeOpenEntry();
    appendLines(OutputEntry::Info, text, QString(), timestamp);
}

void OutputModel::appendDelta(const QString &text, qint64 timestamp) {
    // Deltas cut lines anywhere: the first piece continues the open entry, every '\n' ends the
    // current line (an empty line when nothing is open), the last piece stays open.
    const QStringList parts = text.split(QLatin1Char('\n'));
    std::deque<OutputEntry> fresh;
    bool existingOpen = lastIsOpen();
    bool existingChanged = false;
    for (qsizetype i = 0; i < parts.size(); ++i) {
        if (i > 0) {
            if (!fresh.empty() && fresh.back().open) {
                fresh.back().open = false;
            } else if (fresh.empty() && existingOpen) {
                m_entries.back().open = false;
                existingOpen = false;
                existingChanged = true;
            } else {
                OutputEntry blank;
                blank.timestamp = timestamp;
                fresh.push_back(std::move(blank));
            }
        }
        const QString &part = parts[i];
        if (part.isEmpty())
            continue;
        if (!fresh.empty() && fresh.back().open) {
            fresh.back().text += part;
        } else if (fresh.empty() && existingOpen) {
            m_entries.back().text += part;
            existingChanged = true;
        } else {
            OutputEntry e;
            e.text = part;
            e.timestamp = timestamp;
            e.open = true;
            fresh.push_back(std::move(e));
        }
    }
    if (existingChanged) {
        const QModelIndex last = index(int(m_entries.size()) - 1);
        Q_EMIT dataChanged(last, last, {Qt::DisplayRole, OpenRole});
    }
    push(std::move(fresh));
}

QList<OutputEntry> splitIntoEntries(OutputEntry::Kind kind, const QString &text,
                                    const QString &toolName, qint64 timestamp,
                                    const QString &firstPrefix, int maxLines) {
    QStringList parts = text.split(QLatin1Char('\n'));
    while (parts.size() > 1 && parts.constLast().isEmpty())
        parts.removeLast();
    QList<OutputEntry> out;
    const qsizetype kept =
        maxLines < 0 ? parts.size() : std::min<qsizetype>(maxLines, parts.size());
    for (qsizetype i = 0; i < kept; ++i) {
        OutputEntry e;
        e.kind = kind;
        e.text = i == 0 ? firstPrefix + parts[i] : parts[i];
        e.toolName = toolName;
        e.timestamp = timestamp;
        out.append(std::move(e));
    }
    if (kept < parts.size()) {
        OutputEntry more;
        more.kind = OutputEntry::Info;
        more.toolName = toolName;
        more.timestamp = timestamp;
        more.text = QStringLiteral("... %1 more lines").arg(parts.size() - kept);
        out.append(std::move(more));
    }
    return out;
}

void OutputModel::appendLines(OutputEntry::Kind kind, const QString &text, const QString &toolName,
                              qint64 timestamp, int maxLines) {
    const QList<OutputEntry> entries =
        splitIntoEntries(kind, text, toolName, timestamp, QString(), maxLines);
    push(std::deque<OutputEntry>(entries.cbegin(), entries.cend()));
}

void OutputModel::closeOpenEntry() {
    if (!lastIsOpen())
        return;
    m_entries.back().open = false;
    const QModelIndex last = index(int(m_entries.size()) - 1);
    Q_EMIT dataChanged(last, last, {OpenRole});
}

void OutputModel::push(std::deque<OutputEntry> fresh) {
    if (fresh.empty())
        return;
    const size_t cap = size_t(m_capacity);
    if (fresh.size() > cap) {
        const size_t extra = fresh.size() - cap;
        fresh.erase(fresh.begin(), fresh.begin() + qsizetype(extra));
        m_dropped += qint64(extra);
    }
    const size_t total = m_entries.size() + fresh.size();
    if (total > cap) {
        const size_t overflow = total - cap;
        beginRemoveRows({}, 0, int(overflow) - 1);
        m_entries.erase(m_entries.begin(), m_entries.begin() + qsizetype(overflow));
        m_dropped += qint64(overflow);
        endRemoveRows();
    }
    const int first = int(m_entries.size());
    beginInsertRows({}, first, first + int(fresh.size()) - 1);
    for (OutputEntry &e : fresh)
        m_entries.push_back(std::move(e));
    endInsertRows();
}

void OutputModel::prependHistory(const QList<OutputEntry> &older) {
    // Older entries never push out newer ones: only what fits is inserted (its newest part).
    const qsizetype room = qsizetype(m_capacity) - qsizetype(m_entries.size());
    const qsizetype n = std::min(room, older.size());
    if (n <= 0)
        return;
    beginInsertRows({}, 0, int(n) - 1);
    for (qsizetype i = older.size() - 1; i >= older.size() - n; --i) {
        OutputEntry e = older[i];
        e.open = false;
        m_entries.push_front(std::move(e));
    }
    endInsertRows();
}

void OutputModel::clear() {
    beginResetModel();
    m_entries.clear();
    m_dropped = 0;
    endResetModel();
}

qint64 OutputModel::oldestTimestamp() const {
    for (const OutputEntry &e : m_entries) {
        if (e.timestamp > 0)
            return e.timestamp;
    }
    return 0;
}

} // namespace flotilla::monitor
