#include "history/SessionSource.h"

#include "protocol/WireNames.h"

#include <algorithm>

namespace flotilla::history {

namespace {

constexpr int kMaxSessionIdLength = 128;

bool isAsciiAlnum(char16_t c) {
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
}

// No file is ever scanned with it: the source lists none.
void scanNothing(const char *, const char *, ScannedLine *out) {
    *out = ScannedLine{};
}

class NoSessions final : public SessionSource {
public:
    LineFormat format() const override { return &scanNothing; }
    QList<SessionFile> listSessions() const override { return {}; }
    std::optional<SessionFile> findSession(const QString &) const override { return std::nullopt; }
};

} // namespace

bool isValidSessionId(const QString &id) {
    if (id.isEmpty() || id.size() > kMaxSessionIdLength)
        return false;
    return std::all_of(id.begin(), id.end(),
                       [](QChar c) { return isAsciiAlnum(c.unicode()) || c == QLatin1Char('-'); });
}

bool SessionSource::startsSubagent(const QString &) const {
    return false;
}

QString SessionSource::subagentsDir(const QString &) const {
    return {};
}

QHash<QString, QString> SessionSource::subagentFiles(const QString &) const {
    return {};
}

QString SessionSource::subagentId(const QString &) const {
    return {};
}

SessionSourcePtr noSessions() {
    return std::make_shared<NoSessions>();
}

Result<ResolvedSession> resolveSession(const SessionSource &source, const QString &agentSessionId,
                                       const QString &requestedSessionId) {
    if (!requestedSessionId.isNull()) {
        if (!isValidSessionId(requestedSessionId))
            return Error::invalid(wire::code::InvalidValue,
                                  QStringLiteral("query parameter 'sessionId' must be a session "
                                                 "id (letters, digits and '-')"));
        const auto found = source.findSession(requestedSessionId);
        if (!found)
            return Error::notFound(
                wire::code::NotFound,
                QStringLiteral("no session '%1' for this agent's working directory")
                    .arg(requestedSessionId));
        return ResolvedSession{found->sessionId, found->path};
    }
    if (isValidSessionId(agentSessionId)) {
        // The agent's own session, even before the CLI has written its file: showing another
        // (older) conversation instead would mislead.
        const auto found = source.findSession(agentSessionId);
        return ResolvedSession{agentSessionId, found ? found->path : QString()};
    }
    const QList<SessionFile> all = source.listSessions();
    if (all.isEmpty())
        return ResolvedSession{};
    return ResolvedSession{all.first().sessionId, all.first().path};
}

} // namespace flotilla::history
