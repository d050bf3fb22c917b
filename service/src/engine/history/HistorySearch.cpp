// GET search: case-insensitive substring search over the entries' content of one session.
//
// Streams the file through its index (so entry numbering is the history's, and the big
// non-conversation lines are skipped, never read), holding at most one 4 MiB read window, a
// 1 MiB batch of line refs and the `limit` newest matches (content cut at 4 KiB each). A byte-level
// prefilter keeps the per-line cost near memchr speed: a line, then a block, is decoded only if its
// raw JSON bytes contain the query's longest run of printable ASCII other than '"' and '\' (those
// appear unescaped in JSON, so the raw bytes contain every true match; ASCII letters compared
// case-folded). The decoded content then decides, with QString's Unicode case-insensitive
// comparison. Known gap: the handful of non-ASCII characters that fold to ASCII letters (KELVIN
// SIGN, LATIN SMALL LETTER LONG S) are not found by an ASCII query.

#include "history/HistoryEntries.h"
#include "history/HistoryService.h"
#include "history/HistoryWire.h"
#include "history/IndexCache.h"
#include "history/SessionIndex.h"

#include <QJsonArray>

#include <array>
#include <deque>

namespace flotilla::history {

namespace {

constexpr int kMinPrefilterChars = 3;

inline unsigned char foldAscii(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + ('a' - 'A')) : c;
}

bool isPrefilterSafe(QChar c) {
    const char16_t u = c.unicode();
    return u >= 0x20 && u < 0x7f && u != u'"' && u != u'\\';
}

// The longest run of the query that appears verbatim (up to ASCII case) in the raw JSON of any
// content containing the query. Empty: no useful prefilter.
QByteArray prefilterFor(const QString &query) {
    qsizetype bestStart = 0, bestLen = 0;
    for (qsizetype i = 0; i < query.size();) {
        qsizetype j = i;
        while (j < query.size() && isPrefilterSafe(query.at(j)))
            ++j;
        if (j - i > bestLen) {
            bestStart = i;
            bestLen = j - i;
        }
        i = j + 1;
    }
    if (bestLen < std::min<qsizetype>(kMinPrefilterChars, query.size()))
        return {};
    QByteArray out = query.mid(bestStart, bestLen).toLatin1();
    for (char &c : out)
        c = char(foldAscii(static_cast<unsigned char>(c)));
    return out;
}

// Boyer-Moore-Horspool over ASCII-folded bytes.
class FoldedMatcher {
public:
    explicit FoldedMatcher(QByteArray folded)
        : m_needle(std::move(folded)) {
        const auto n = size_t(m_needle.size());
        m_skip.fill(n == 0 ? 1 : n);
        for (size_t i = 0; i + 1 < n; ++i) {
            const auto c = static_cast<unsigned char>(m_needle[qsizetype(i)]);
            m_skip[c] = n - 1 - i;
            if (c >= 'a' && c <= 'z')
                m_skip[c - ('a' - 'A')] = n - 1 - i;
        }
    }
    bool isEmpty() const { return m_needle.isEmpty(); }
    bool foundIn(Span s) const {
        const auto n = size_t(m_needle.size());
        if (n == 0)
            return true;
        if (s.isNull() || size_t(s.size()) < n)
            return false;
        const auto *needle = reinterpret_cast<const unsigned char *>(m_needle.constData());
        const auto *p = reinterpret_cast<const unsigned char *>(s.b);
        const auto *const last = reinterpret_cast<const unsigned char *>(s.e) - n;
        while (p <= last) {
            size_t i = n;
            while (i > 0 && foldAscii(p[i - 1]) == needle[i - 1])
                --i;
            if (i == 0)
                return true;
            p += m_skip[p[n - 1]];
        }
        return false;
    }

private:
    QByteArray m_needle;
    std::array<size_t, 256> m_skip{};
};

bool blockMayMatch(const RawBlock &b, const FoldedMatcher &m) {
    switch (b.kind) {
    case BlockKind::Text:
        return m.foundIn(b.text);
    case BlockKind::Image:
        return true;
    case BlockKind::ToolUse:
    case BlockKind::ToolResult:
        return m.foundIn(b.value);
    }
    return true;
}

} // namespace

Result<QJsonObject> search(IndexCache &cache, const SearchRequest &request) {
    const SessionSelector &sel = request.session;
    const SessionSourcePtr source = sourceOf(sel);
    const auto session = resolveSession(*source, sel.agentSessionId, sel.requestedSessionId);
    if (!session)
        return session.error();
    QJsonObject out{{wire::key::SessionId, session->sessionId.isEmpty()
                                               ? QJsonValue(QJsonValue::Null)
                                               : QJsonValue(session->sessionId)},
                    {key::Query, request.query}};
    if (session->path.isEmpty()) {
        out.insert(key::Matches, QJsonArray());
        out.insert(key::TotalMatches, 0);
        out.insert(key::ScannedBytes, 0);
        out.insert(key::SkippedLines, 0);
        return out;
    }

    const FoldedMatcher prefilter(prefilterFor(request.query));
    struct Match {
        qint64 ordinal;
        QJsonObject entry;
    };
    std::deque<Match> newest; // the `limit` newest matches, oldest first
    qint64 total = 0;
    qint64 scanned = 0;
    ScannedLine line;
    const auto index = cache.acquire(session->path, false, source->format());
    const auto stats = index->forEachLine(
        [&](const SessionIndex::LineView &v) {
            if (!prefilter.foundIn({v.b, v.e}))
                return true;
            index->format()(v.b, v.e, &line);
            if (!line.valid)
                return true;
            for (int k = 0; k < line.entryCount(); ++k) {
                if (!blockMayMatch(line.blocks[k], prefilter))
                    continue;
                const QString content = blockContent(line.blocks[k]);
                if (!content.contains(request.query, Qt::CaseInsensitive))
                    continue;
                ++total;
                newest.push_back(
                    {v.firstEntry + k, makeEntry(line, k, content, kMaxSearchContentChars)});
                if (qsizetype(newest.size()) > request.limit)
                    newest.pop_front();
            }
            return true;
        },
        &scanned);
    cache.trim();
    if (!stats)
        return stats.error();

    // Newest first; `offset` is the entry's position counted back from the newest entry, so
    // history?offset=<offset> returns a page that ends with it.
    QJsonArray matches;
    for (auto it = newest.rbegin(); it != newest.rend(); ++it) {
        it->entry.insert(key::Offset, stats->entries - 1 - it->ordinal);
        matches.append(it->entry);
    }
    out.insert(key::Matches, matches);
    out.insert(key::TotalMatches, total);
    out.insert(key::ScannedBytes, scanned);
    out.insert(key::SkippedLines, stats->skippedLines);
    return out;
}

} // namespace flotilla::history
