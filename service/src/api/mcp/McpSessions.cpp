#include "mcp/McpSessions.h"

#include "mcp/McpLogging.h"

#include <QRandomGenerator>

#include <algorithm>

namespace flotilla::mcp {

Sessions::Sessions(Clock clock, int maxSessions, qint64 idleMs)
    : m_clock(std::move(clock))
    , m_max(std::max(1, maxSessions))
    , m_idleMs(idleMs) {
}

QString Sessions::open(const Caller &caller, const QString &protocolVersion) {
    expire();
    if (m_sessions.size() >= m_max) {
        auto oldest = std::min_element(
            m_sessions.begin(), m_sessions.end(),
            [](const Session &a, const Session &b) { return a.lastUsedMs < b.lastUsedMs; });
        qCInfo(lcMcp).noquote() << "session cap" << m_max
                                << "reached: dropped the least recently "
                                   "used one";
        m_sessions.erase(oldest);
    }
    // 128 random bits: a session id is no credential (the token still comes with every
    // request), but guessing one must not let a caller into someone else's session either.
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    QString id = QString::fromLatin1(
        QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex());
    m_sessions.insert(id, Session{id, caller, protocolVersion, m_clock.nowMs()});
    return id;
}

const Session *Sessions::use(const QString &id, const Caller &caller) {
    auto it = m_sessions.find(id);
    if (it == m_sessions.end() || !(it->caller == caller))
        return nullptr;
    const qint64 now = m_clock.nowMs();
    if (now - it->lastUsedMs > m_idleMs) {
        m_sessions.erase(it);
        return nullptr;
    }
    it->lastUsedMs = now;
    return &*it;
}

bool Sessions::close(const QString &id, const Caller &caller) {
    auto it = m_sessions.find(id);
    if (it == m_sessions.end() || !(it->caller == caller))
        return false;
    m_sessions.erase(it);
    return true;
}

void Sessions::expire() {
    const qint64 now = m_clock.nowMs();
    for (auto it = m_sessions.begin(); it != m_sessions.end();)
        it = now - it->lastUsedMs > m_idleMs ? m_sessions.erase(it) : std::next(it);
}

} // namespace flotilla::mcp
