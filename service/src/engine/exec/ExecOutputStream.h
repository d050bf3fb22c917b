#pragma once
// The event side of a task's output: batches what the job read into exec_task_output chunks, paces
// them to what the WebSocket clients absorb, and bounds what waits in memory.
//
// Batching: a chunk leaves `flushIntervalMs` after the first byte waiting, or at once when
// `flushBytes` wait; a chunk never exceeds `flushBytes` nor splits a UTF-8 sequence.
// Pacing: while `congested()` (some client socket has a backlog), chunks wait, for at most
// `maxHoldMs` between two chunks, so one client that stopped reading slows a task down to a
// trickle but never stops it (the event hub drops that client's events and disconnects it).
// Once the command ended, what still waits after `maxFinishHoldMs` of congestion is dropped, so
// the task's completion (and the REST answer) is late by at most that much.
// Bounds: at most `maxPendingBytes` wait per task and `budget->limit` in the whole service; past
// that the oldest waiting output is dropped and the next chunk says how much (`skippedBytes`).
// The command itself is never slowed: its pipes are always read.

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QTimer>

#include <functional>

namespace flotilla {

// Output waiting in every task's stream together (owned by the service, shared by its jobs).
struct StreamBudget {
    qint64 limit = 16 * 1024 * 1024;
    qint64 used = 0;
};

struct StreamConfig {
    int flushIntervalMs = 50;
    qsizetype flushBytes = 64 * 1024;
    qsizetype maxPendingBytes = 8 * 1024 * 1024;
    int maxHoldMs = 250;
    int maxFinishHoldMs = 1000;
    int retryMs = 10;
    std::function<bool()> congested; // empty: never
    StreamBudget *budget = nullptr;  // empty: no shared limit
};

class ExecOutputStream final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecOutputStream)
public:
    explicit ExecOutputStream(StreamConfig config, QObject *parent = nullptr);
    ~ExecOutputStream() override; // gives its waiting bytes back to the budget

    // Bytes that end on a character boundary (the job holds back split UTF-8 sequences).
    void append(bool isError, QByteArray bytes);
    // No more input: everything still waiting leaves (paced), then drained().
    void finish();
    qint64 skippedBytes() const { return m_skippedTotal; }

Q_SIGNALS:
    // `skippedBefore`: output dropped between the previous chunk and this one.
    void chunk(const QByteArray &utf8, bool isError, qint64 skippedBefore);
    void drained();

private:
    struct Segment {
        bool isError = false;
        QByteArray bytes;
    };
    void flush(bool all);
    void emitOne();
    void dropOldest(qint64 bytes);
    void release(qint64 bytes);
    bool overBudget() const;

    StreamConfig m_config;
    QList<Segment> m_pending;
    qsizetype m_frontOffset = 0; // bytes of m_pending.first() already sent or dropped
    qint64 m_pendingBytes = 0;
    qint64 m_skippedSinceChunk = 0;
    qint64 m_skippedTotal = 0;
    QTimer m_timer;
    QElapsedTimer m_sinceChunk;
    QElapsedTimer m_sinceFinish;
    bool m_finishing = false;
    bool m_drained = false;
};

} // namespace flotilla
