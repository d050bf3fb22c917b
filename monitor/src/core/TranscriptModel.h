#pragma once
// One agent's conversation as a chat transcript: user messages, assistant replies (markdown source,
// one entry per reply however many deltas it arrived in), tool calls with their result, errors and
// stops. Provider-neutral: built from the service's `output` chunks, the agent's turn starts
// (currentTask) and history pages, never from a CLI's own format. Bounded by entries and by bytes
// (oldest dropped first); older entries come back through history paging.

#include <QAbstractListModel>
#include <QJsonObject>
#include <QList>
#include <deque>
#include <functional>

namespace flotilla::monitor {

struct TranscriptEntry {
    enum class Kind : quint8 { User, Assistant, Tool, Error, Stopped, Notice };
    Kind kind = Kind::Assistant;
    QString text;           // User: the message; Assistant: markdown; Error/Stopped/Notice: text
    QString toolName;       // Tool
    QJsonObject toolInput;  // Tool, when the call is known (hasInput)
    QString toolOutput;     // Tool, once the result arrived (hasResult)
    QString toolUseId;      // Tool from history: pairs a result with its call across pages
    QString noticeKey;      // Notice that counts its repeats in a turn (appendRepeatedNotice)
    int repeats = 0;        // Notice with a noticeKey: how often it happened
    qint64 timestamp = 0;   // epoch ms; 0 when unknown
    quint64 id = 0;         // given by the model, stable while the entry lives (rows shift)
    bool streaming = false; // Assistant: deltas still arriving
    bool hasInput = false;  // Tool
    bool hasResult = false; // Tool
    bool isError = false;   // Tool: the result is an error
    bool expanded = false;  // Tool: shown open (a view state, kept so it survives re-rendering)
    bool pending = false;   // User: sent from this monitor, its turn has not started yet
    bool fromTask = false;  // User: made from currentTask, until history has the message
    bool truncated = false; // User (fromTask): only the first 200 characters are known

    static TranscriptEntry make(Kind kind, const QString &text, qint64 timestamp = 0) {
        TranscriptEntry e;
        e.kind = kind;
        e.text = text;
        e.timestamp = timestamp;
        return e;
    }
};

// What a final chunk's text is: "Error: ..." (and the boss's block errors) end a failed turn,
// "[stopped]" a stopped one; anything else is text the service wrote for the user to read.
TranscriptEntry::Kind kindOfFinalText(const QString &text);

class TranscriptModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TranscriptModel)
public:
    enum Role { KindRole = Qt::UserRole + 1, IdRole, StreamingRole, ExpandedRole };

    static constexpr int kDefaultMaxEntries = 2000;
    static constexpr qint64 kDefaultMaxBytes = 8 * 1024 * 1024;
    // currentTask holds this many characters of the message (docs/api.md).
    static constexpr int kCurrentTaskLength = 200;

    explicit TranscriptModel(int maxEntries = kDefaultMaxEntries,
                             qint64 maxBytes = kDefaultMaxBytes, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    // An `output` payload: a delta extends the open reply, a tool call and its result make one
    // entry, the final chunk closes the turn (its text, if any, becomes an error, a stop or text).
    void appendChunk(const QJsonObject &chunk);
    // A message this monitor sends, shown at once (pending until its turn starts); returns its id.
    quint64 appendUserMessage(const QString &text, qint64 timestamp);
    // The service started a turn with `task` (the first 200 characters of its message): a pending
    // message of ours that matches becomes the turn's (moved below what came meanwhile, as a
    // queued message runs after the turn before it); otherwise the message came from elsewhere
    // (another client, a boss, a monitor that connected mid-turn) and is added from `task`.
    // Announcing the turn in progress again (a resync) changes nothing.
    void turnStarted(const QString &task, qint64 timestamp);
    void turnEnded(); // the agent went idle/stopped/error: nothing stays open
    void appendNotice(const QString &text, qint64 timestamp = 0);
    // A notice that may repeat (a connection the sandbox refused, named by `key`): a repeat in the
    // same turn (no message started one since) counts on the line it made instead of adding one.
    // `text(times)` is the line's text after `times` occurrences.
    void appendRepeatedNotice(const QString &key, const std::function<QString(int times)> &text,
                              qint64 timestamp = 0);
    void setPending(quint64 id, bool pending); // a refused send is not queued
    // Older entries (a history page, oldest first) go on top, as many as the bounds leave room
    // for (the newest of them): older never pushes out newer. A result at the top whose call is
    // in this page is joined to it; a message made from currentTask that the page holds gives
    // way to the page's own (whole, and in its place among the turn's earlier entries).
    void prependHistory(const QList<TranscriptEntry> &older);
    void setExpanded(int row, bool expanded);
    void clear();

    const TranscriptEntry &entry(int row) const { return m_entries[size_t(row)]; }
    int rowOfId(quint64 id) const; // -1 if gone
    int maxEntries() const { return m_maxEntries; }
    qint64 maxBytes() const { return m_maxBytes; }
    qint64 bytes() const { return m_bytes; } // estimate of what the entries hold
    qint64 droppedCount() const { return m_dropped; }
    bool inTurn() const { return m_inTurn; }
    // Timestamp of the oldest entry that has one (0 if none): where history paging must stop.
    // Messages made from currentTask do not count: what their turn did before the monitor saw
    // it is still to be paged.
    qint64 oldestTimestamp() const;

private:
    void closeOpenReply();
    void appendDelta(const QString &text, qint64 timestamp);
    void attachResult(const QString &toolName, const QString &output, bool isError,
                      qint64 timestamp);
    void append(TranscriptEntry e);
    void trimFront();
    void changed(int row, const QList<int> &roles = {});
    void removeRow(int row);
    void joinPage(QList<TranscriptEntry> &page);
    static qint64 cost(const TranscriptEntry &e);

    int m_maxEntries;
    qint64 m_maxBytes;
    qint64 m_bytes = 0;
    qint64 m_dropped = 0;
    quint64 m_nextId = 1;
    bool m_inTurn = false;
    QString m_turnTask; // currentTask of the turn in progress
    std::deque<TranscriptEntry> m_entries;
};

} // namespace flotilla::monitor
