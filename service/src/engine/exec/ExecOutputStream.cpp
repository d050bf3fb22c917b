#include "exec/ExecOutputStream.h"

#include <utility>

namespace flotilla {

namespace {
bool isContinuation(char c) {
    return (uchar(c) & 0xC0) == 0x80;
}
} // namespace

ExecOutputStream::ExecOutputStream(StreamConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config)) {
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] { flush(true); });
    m_sinceChunk.start();
}

ExecOutputStream::~ExecOutputStream() {
    release(m_pendingBytes);
}

void ExecOutputStream::append(bool isError, QByteArray bytes) {
    if (bytes.isEmpty())
        return;
    const qint64 n = bytes.size();
    // Same stream as the last segment: merge, unless that segment is being sent piecewise (its
    // sent part would then stay allocated for as long as output keeps coming).
    if (!m_pending.isEmpty() && m_pending.constLast().isError == isError &&
        (m_pending.size() > 1 || m_frontOffset == 0))
        m_pending.last().bytes += bytes;
    else
        m_pending.append(Segment{isError, std::move(bytes)});
    m_pendingBytes += n;
    if (m_config.budget)
        m_config.budget->used += n;

    const qint64 overTask = m_pendingBytes - m_config.maxPendingBytes;
    if (overTask > 0)
        dropOldest(overTask);
    if (overBudget())
        dropOldest(m_config.budget->used - m_config.budget->limit);

    if (m_pendingBytes >= m_config.flushBytes)
        flush(false);
    else if (!m_timer.isActive())
        m_timer.start(m_config.flushIntervalMs);
}

void ExecOutputStream::finish() {
    m_finishing = true;
    m_sinceFinish.start();
    flush(true);
}

bool ExecOutputStream::overBudget() const {
    return m_config.budget && m_config.budget->used > m_config.budget->limit;
}

void ExecOutputStream::release(qint64 bytes) {
    m_pendingBytes -= bytes;
    if (m_config.budget)
        m_config.budget->used -= bytes;
}

void ExecOutputStream::flush(bool all) {
    m_timer.stop();
    while (!m_pending.isEmpty()) {
        if (!all && m_pendingBytes < m_config.flushBytes) {
            m_timer.start(m_config.flushIntervalMs); // a partial chunk waits for its batch
            return;
        }
        if (m_config.congested && m_sinceChunk.elapsed() < m_config.maxHoldMs &&
            m_config.congested()) {
            if (m_finishing && m_sinceFinish.elapsed() >= m_config.maxFinishHoldMs) {
                dropOldest(m_pendingBytes); // counted in skippedBytes() for the completion
                break;
            }
            m_timer.start(m_config.retryMs);
            return;
        }
        emitOne();
    }
    if (m_finishing && !m_drained) {
        m_drained = true;
        Q_EMIT drained();
    }
}

void ExecOutputStream::emitOne() {
    Segment &front = m_pending.first();
    const qsizetype available = front.bytes.size() - m_frontOffset;
    qsizetype n = qMin<qsizetype>(available, m_config.flushBytes);
    if (n < available) { // cut before a continuation byte, never inside a character
        qsizetype cut = n;
        while (cut > 0 && isContinuation(front.bytes.at(m_frontOffset + cut)))
            --cut;
        n = cut > 0 ? cut : n;
    }
    const bool isError = front.isError;
    QByteArray out = (m_frontOffset == 0 && n == front.bytes.size())
                         ? std::move(front.bytes)
                         : front.bytes.mid(m_frontOffset, n);
    m_frontOffset += n;
    if (m_frontOffset >= front.bytes.size() || front.bytes.isEmpty()) {
        m_pending.removeFirst();
        m_frontOffset = 0;
    }
    release(n);
    m_sinceChunk.restart();
    Q_EMIT chunk(out, isError, std::exchange(m_skippedSinceChunk, 0));
}

void ExecOutputStream::dropOldest(qint64 bytes) {
    while (bytes > 0 && !m_pending.isEmpty()) {
        Segment &front = m_pending.first();
        const qsizetype available = front.bytes.size() - m_frontOffset;
        qsizetype n = qMin<qsizetype>(available, bytes);
        while (m_frontOffset + n < front.bytes.size() &&
               isContinuation(front.bytes.at(m_frontOffset + n)))
            ++n; // the next chunk starts on a character
        m_frontOffset += n;
        if (m_frontOffset >= front.bytes.size()) {
            m_pending.removeFirst();
            m_frontOffset = 0;
        } else if (m_frontOffset > front.bytes.size() / 2) {
            front.bytes.remove(0, m_frontOffset); // what was dropped must be freed
            m_frontOffset = 0;
        }
        release(n);
        m_skippedSinceChunk += n;
        m_skippedTotal += n;
        bytes -= n;
    }
}

} // namespace flotilla
