#include "core/TranscriptModel.h"

#include "protocol/OutputChunk.h"

#include <QJsonDocument>

#include <algorithm>

namespace flotilla::monitor {

using Kind = TranscriptEntry::Kind;

namespace {
// A result chunk says isError when the CLI did (an MCP tool's error, a failed command); older
// services did not, and these are the results the CLIs write when a call failed or was refused.
bool looksLikeToolError(const QString &output) {
    return output.startsWith(QLatin1String("<tool_use_error>")) ||
           output.startsWith(QLatin1String("(declined"));
}

} // namespace

TranscriptEntry::Kind kindOfFinalText(const QString &text) {
    if (text.startsWith(QLatin1String("Error: ")) ||
        text.startsWith(QLatin1String("Delegation error:")) ||
        text.startsWith(QLatin1String("Spawn error:")) ||
        text.startsWith(QLatin1String("Work plan error:")))
        return Kind::Error;
    if (text.startsWith(QLatin1String("[stopped]")))
        return Kind::Stopped;
    return Kind::Assistant;
}

TranscriptModel::TranscriptModel(int maxEntries, qint64 maxBytes, QObject *parent)
    : QAbstractListModel(parent)
    , m_maxEntries(std::max(1, maxEntries))
    , m_maxBytes(std::max<qint64>(1, maxBytes)) {
}

int TranscriptModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_entries.size());
}

QVariant TranscriptModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() < 0 || size_t(index.row()) >= m_entries.size())
        return {};
    const TranscriptEntry &e = m_entries[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return e.kind == Kind::Tool ? e.toolName : e.text;
    case KindRole:
        return int(e.kind);
    case IdRole:
        return e.id;
    case StreamingRole:
        return e.streaming;
    case ExpandedRole:
        return e.expanded;
    default:
        return {};
    }
}

qint64 TranscriptModel::cost(const TranscriptEntry &e) {
    // Characters are two bytes; the fixed part stands for the entry's own fields and the deque.
    qint64 bytes = 96 + 2 * qint64(e.text.size() + e.toolName.size() + e.toolOutput.size() +
                                   e.toolUseId.size() + e.noticeKey.size());
    if (!e.toolInput.isEmpty())
        bytes += QJsonDocument(e.toolInput).toJson(QJsonDocument::Compact).size();
    return bytes;
}

void TranscriptModel::appendChunk(const QJsonObject &chunk) {
    OutputChunk c;
    if (!OutputChunk::fromJson(chunk, &c))
        return;
    if (c.hasToolInput) {
        closeOpenReply();
        TranscriptEntry e;
        e.kind = Kind::Tool;
        e.toolName = c.toolName;
        e.toolInput = c.toolInput;
        e.hasInput = true;
        e.timestamp = c.timestamp;
        append(std::move(e));
        return;
    }
    if (c.hasToolOutput) {
        closeOpenReply();
        attachResult(c.toolName, c.toolOutput, c.isError, c.timestamp);
        return;
    }
    if (c.isStreaming) {
        appendDelta(c.text, c.timestamp);
        return;
    }
    // The final chunk of a turn: whatever is open is complete.
    closeOpenReply();
    m_inTurn = false;
    m_turnTask.clear();
    if (c.text.isEmpty())
        return;
    append(TranscriptEntry::make(kindOfFinalText(c.text), c.text, c.timestamp));
}

void TranscriptModel::appendDelta(const QString &text, qint64 timestamp) {
    if (text.isEmpty())
        return;
    if (!m_entries.empty() && m_entries.back().streaming) {
        TranscriptEntry &open = m_entries.back();
        open.text += text;
        m_bytes += 2 * qint64(text.size());
        changed(int(m_entries.size()) - 1, {Qt::DisplayRole});
        trimFront();
        return;
    }
    TranscriptEntry e = TranscriptEntry::make(Kind::Assistant, text, timestamp);
    e.streaming = true;
    append(std::move(e));
}

void TranscriptModel::attachResult(const QString &toolName, const QString &output, bool isError,
                                   qint64 timestamp) {
    // No tool-use id on the wire: a result answers the earliest unanswered call of that tool in
    // this turn (the CLIs report parallel calls' results in the order of the calls).
    int target = -1;
    for (int row = int(m_entries.size()) - 1; row >= 0; --row) {
        const TranscriptEntry &e = m_entries[size_t(row)];
        if (e.kind == Kind::User)
            break;
        if (e.kind == Kind::Tool && e.hasInput && !e.hasResult && e.toolName == toolName)
            target = row;
    }
    const bool error = isError || looksLikeToolError(output);
    if (target < 0) {
        TranscriptEntry e;
        e.kind = Kind::Tool;
        e.toolName = toolName;
        e.toolOutput = output;
        e.hasResult = true;
        e.isError = error;
        e.timestamp = timestamp;
        append(std::move(e));
        return;
    }
    TranscriptEntry &call = m_entries[size_t(target)];
    m_bytes += 2 * qint64(output.size());
    call.toolOutput = output;
    call.hasResult = true;
    call.isError = error;
    changed(target);
    trimFront();
}

void TranscriptModel::closeOpenReply() {
    if (m_entries.empty() || !m_entries.back().streaming)
        return;
    m_entries.back().streaming = false;
    changed(int(m_entries.size()) - 1, {StreamingRole});
}

quint64 TranscriptModel::appendUserMessage(const QString &text, qint64 timestamp) {
    TranscriptEntry e = TranscriptEntry::make(Kind::User, text, timestamp);
    e.pending = true;
    e.id = m_nextId++;
    const quint64 id = e.id;
    closeOpenReply();
    append(std::move(e));
    return id;
}

void TranscriptModel::turnStarted(const QString &task, qint64 timestamp) {
    if (task.isEmpty() || (m_inTurn && m_turnTask == task))
        return;
    closeOpenReply();
    m_inTurn = true;
    m_turnTask = task;
    for (size_t i = 0; i < m_entries.size(); ++i) {
        TranscriptEntry &e = m_entries[i];
        if (e.kind != Kind::User || !e.pending || e.text.left(kCurrentTaskLength) != task)
            continue;
        e.pending = false;
        const bool othersAfter = std::any_of(
            m_entries.cbegin() + qsizetype(i) + 1, m_entries.cend(),
            [](const TranscriptEntry &o) { return o.kind != Kind::User || !o.pending; });
        if (!othersAfter) {
            changed(int(i));
            return;
        }
        TranscriptEntry moved = e;
        removeRow(int(i));
        append(std::move(moved));
        return;
    }
    TranscriptEntry e = TranscriptEntry::make(Kind::User, task, timestamp);
    e.fromTask = true;
    e.truncated = task.size() >= kCurrentTaskLength;
    append(std::move(e));
}

void TranscriptModel::turnEnded() {
    closeOpenReply();
    m_inTurn = false;
    m_turnTask.clear();
}

void TranscriptModel::appendNotice(const QString &text, qint64 timestamp) {
    closeOpenReply();
    append(TranscriptEntry::make(Kind::Notice, text, timestamp));
}

void TranscriptModel::appendRepeatedNotice(const QString &key,
                                           const std::function<QString(int)> &text,
                                           qint64 timestamp) {
    for (int row = int(m_entries.size()) - 1; row >= 0; --row) {
        TranscriptEntry &e = m_entries[size_t(row)];
        if (e.kind == Kind::User && !e.pending)
            break; // a turn's message: what is above it happened in an earlier turn
        if (e.kind != Kind::Notice || e.noticeKey != key)
            continue;
        const QString updated = text(++e.repeats);
        m_bytes += 2 * qint64(updated.size() - e.text.size());
        e.text = updated;
        changed(row, {Qt::DisplayRole});
        return;
    }
    closeOpenReply();
    TranscriptEntry e = TranscriptEntry::make(Kind::Notice, text(1), timestamp);
    e.noticeKey = key;
    e.repeats = 1;
    append(std::move(e));
}

void TranscriptModel::setPending(quint64 id, bool pending) {
    const int row = rowOfId(id);
    if (row < 0 || m_entries[size_t(row)].pending == pending)
        return;
    m_entries[size_t(row)].pending = pending;
    changed(row);
}

void TranscriptModel::setExpanded(int row, bool expanded) {
    if (row < 0 || size_t(row) >= m_entries.size() || m_entries[size_t(row)].expanded == expanded)
        return;
    m_entries[size_t(row)].expanded = expanded;
    changed(row, {ExpandedRole});
}

void TranscriptModel::append(TranscriptEntry e) {
    if (e.id == 0)
        e.id = m_nextId++;
    m_bytes += cost(e);
    const int row = int(m_entries.size());
    beginInsertRows({}, row, row);
    m_entries.push_back(std::move(e));
    endInsertRows();
    trimFront();
}

void TranscriptModel::trimFront() {
    // The newest entry always stays, even alone over the byte bound (one huge reply).
    size_t drop = 0;
    qint64 bytes = m_bytes;
    while (m_entries.size() - drop > 1 &&
           (m_entries.size() - drop > size_t(m_maxEntries) || bytes > m_maxBytes)) {
        bytes -= cost(m_entries[drop]);
        ++drop;
    }
    if (drop == 0)
        return;
    beginRemoveRows({}, 0, int(drop) - 1);
    m_entries.erase(m_entries.begin(), m_entries.begin() + qsizetype(drop));
    m_bytes = bytes;
    m_dropped += qint64(drop);
    endRemoveRows();
}

void TranscriptModel::removeRow(int row) {
    beginRemoveRows({}, row, row);
    m_bytes -= cost(m_entries[size_t(row)]);
    m_entries.erase(m_entries.begin() + row);
    endRemoveRows();
}

void TranscriptModel::changed(int row, const QList<int> &roles) {
    const QModelIndex i = index(row);
    Q_EMIT dataChanged(i, i, roles);
}

void TranscriptModel::prependHistory(const QList<TranscriptEntry> &older) {
    if (older.isEmpty())
        return;
    QList<TranscriptEntry> page = older;
    joinPage(page);
    // Only what fits, newest of the page first: older entries never push out newer ones.
    qsizetype n = 0;
    qint64 added = 0;
    for (qsizetype i = page.size() - 1; i >= 0; --i) {
        const qint64 c = cost(page[i]);
        if (m_entries.size() + size_t(n) + 1 > size_t(m_maxEntries) ||
            m_bytes + added + c > m_maxBytes)
            break;
        added += c;
        ++n;
    }
    if (n == 0)
        return;
    beginInsertRows({}, 0, int(n) - 1);
    for (qsizetype i = page.size() - 1; i >= page.size() - n; --i) {
        TranscriptEntry e = page[i];
        e.id = m_nextId++;
        e.streaming = false;
        e.pending = false;
        m_entries.push_front(std::move(e));
    }
    m_bytes += added;
    endInsertRows();
}

void TranscriptModel::joinPage(QList<TranscriptEntry> &page) {
    // A message made from currentTask, now in the page as the CLI recorded it.
    for (int row = int(m_entries.size()) - 1; row >= 0; --row) {
        const TranscriptEntry &e = m_entries[size_t(row)];
        if (e.kind != Kind::User || !e.fromTask)
            continue;
        const bool inPage = std::any_of(page.cbegin(), page.cend(), [&e](const TranscriptEntry &p) {
            return p.kind == Kind::User &&
                   (p.text.left(kCurrentTaskLength) == e.text || p.text.endsWith(e.text));
        });
        if (inPage)
            removeRow(row);
    }
    // A call at the end of this page may have its result at the top already (the page before
    // ended between the two): the result joins its call and its own row goes.
    for (int row = std::min(int(m_entries.size()), 8) - 1; row >= 0; --row) {
        const TranscriptEntry &top = m_entries[size_t(row)];
        if (top.kind != Kind::Tool || top.hasInput || top.toolUseId.isEmpty())
            continue;
        for (qsizetype j = page.size() - 1; j >= 0; --j) {
            TranscriptEntry &call = page[j];
            if (call.kind == Kind::Tool && call.hasInput && !call.hasResult &&
                call.toolUseId == top.toolUseId) {
                call.toolOutput = top.toolOutput;
                call.hasResult = true;
                call.isError = top.isError;
                call.expanded = top.expanded;
                removeRow(row);
                break;
            }
        }
    }
}

void TranscriptModel::clear() {
    beginResetModel();
    m_entries.clear();
    m_bytes = 0;
    m_dropped = 0;
    m_inTurn = false;
    m_turnTask.clear();
    endResetModel();
}

int TranscriptModel::rowOfId(quint64 id) const {
    for (size_t i = m_entries.size(); i-- > 0;) {
        if (m_entries[i].id == id)
            return int(i);
    }
    return -1;
}

qint64 TranscriptModel::oldestTimestamp() const {
    for (const TranscriptEntry &e : m_entries) {
        if (e.timestamp > 0 && !e.fromTask)
            return e.timestamp;
    }
    return 0;
}

} // namespace flotilla::monitor
