#pragma once
// MCP sessions of the streamable HTTP transport: `initialize` opens one and its id comes back in
// the Mcp-Session-Id header; every later request names it. A session belongs to the credential
// that opened it (the service token, or one agent's token): presented with another one it is
// unknown (404), so a session id never widens anyone's rights. Sessions live in memory: a client
// of a restarted service gets 404 and initializes again, as the transport specifies.

#include "base/Clock.h"

#include <QHash>
#include <QString>

namespace flotilla::mcp {

// Who calls: the user (the service token, or anyone when the service is open) or one agent.
struct Caller {
    QString agentId; // empty: the user, with every tool
    bool isUser() const { return agentId.isEmpty(); }
    friend bool operator==(const Caller &a, const Caller &b) { return a.agentId == b.agentId; }
};

struct Session {
    QString id;
    Caller caller;
    QString protocolVersion;
    qint64 lastUsedMs = 0;
};

class Sessions final {
public:
    static constexpr int kDefaultMax = 1024;
    static constexpr qint64 kDefaultIdleMs = 24LL * 60 * 60 * 1000;

    explicit Sessions(Clock clock, int maxSessions = kDefaultMax, qint64 idleMs = kDefaultIdleMs);

    // A new session (32 random hex digits). At the cap the least recently used one is dropped.
    QString open(const Caller &caller, const QString &protocolVersion);
    // The caller's live session `id` (touched), or nullptr: unknown, expired or someone else's.
    const Session *use(const QString &id, const Caller &caller);
    // Ends the caller's session `id`; false when it is not theirs or unknown.
    bool close(const QString &id, const Caller &caller);
    int size() const { return int(m_sessions.size()); }

private:
    void expire();

    Clock m_clock;
    int m_max;
    qint64 m_idleMs;
    QHash<QString, Session> m_sessions;
};

} // namespace flotilla::mcp
