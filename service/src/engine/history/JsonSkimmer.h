#pragma once
// The validating JSON skimmer every provider's session-line scanner shares (a LineFormat,
// LineScanner.h): walks a line's bytes once, skips strings 8-16 bytes at a time and records only
// spans, so indexing runs at disk speed. Header-only so each scanner inlines it.

#include "history/LineScanner.h"

#include <QByteArray>
#include <QtAlgorithms>

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace flotilla::history::detail {

inline constexpr int kMaxDepth = 256; // deeper nesting is treated as a broken line
inline constexpr quint64 kOnes = 0x0101010101010101ULL;
inline constexpr quint64 kHighs = 0x8080808080808080ULL;

// SWAR tests on eight bytes at once: exact as "is there any such byte", which is all we ask.
inline quint64 anyZeroByte(quint64 v) {
    return (v - kOnes) & ~v & kHighs;
}
inline quint64 anyByteBelow(quint64 v, quint64 n) {
    return (v - kOnes * n) & ~v & kHighs;
}
inline bool isHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// The first byte in [p, e) that ends a plain run inside a JSON string: '"', '\\' or a control
// character. The bulk of a session file is long strings, so this loop is the scan's speed:
// 16 bytes per step with SSE2 (baseline on x86-64), else 8 with SWAR, jumping straight to the
// special byte.
inline const char *skipPlain(const char *p, const char *e) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i maxControl = _mm_set1_epi8(0x1f);
    while (e - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
        const __m128i special =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(_mm_max_epu8(v, maxControl), maxControl)); // v <= 0x1f
        const int mask = _mm_movemask_epi8(special);
        if (mask != 0)
            return p + qCountTrailingZeroBits(quint32(mask));
        p += 16;
    }
#endif
    while (e - p >= 8) {
        quint64 x;
        std::memcpy(&x, p, 8);
        const quint64 hits = anyZeroByte(x ^ (kOnes * '"')) | anyZeroByte(x ^ (kOnes * '\\')) |
                             anyByteBelow(x, 0x20);
        if (hits != 0) {
#if Q_BYTE_ORDER == Q_LITTLE_ENDIAN
            // The lowest flagged byte is exact (false flags occur only above a true one).
            return p + qCountTrailingZeroBits(hits) / 8;
#else
            break;
#endif
        }
        p += 8;
    }
    while (p < e && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20)
        ++p;
    return p;
}

class Skimmer {
public:
    Skimmer(const char *b, const char *e)
        : m_p(b)
        , m_e(e) {}

    bool atEnd() const { return m_p >= m_e; }
    bool peek(char c) const { return m_p < m_e && *m_p == c; }
    void ws() {
        while (m_p < m_e && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }

    // At '"': validates the string; *out (if given) gets its escaped contents.
    bool string(Span *out) {
        if (!peek('"'))
            return false;
        const char *const start = ++m_p;
        const char *p = m_p;
        const char *const e = m_e;
        for (;;) {
            p = skipPlain(p, e);
            if (p >= e)
                return false;
            const auto c = static_cast<unsigned char>(*p);
            if (c == '"') {
                if (out)
                    *out = {start, p};
                m_p = p + 1;
                return true;
            }
            if (c == '\\') {
                if (e - p < 2)
                    return false;
                switch (p[1]) {
                case '"':
                case '\\':
                case '/':
                case 'b':
                case 'f':
                case 'n':
                case 'r':
                case 't':
                    p += 2;
                    break;
                case 'u':
                    if (e - p < 6 || !isHex(p[2]) || !isHex(p[3]) || !isHex(p[4]) || !isHex(p[5]))
                        return false;
                    p += 6;
                    break;
                default:
                    return false;
                }
                continue;
            }
            if (c < 0x20)
                return false; // raw control characters are not JSON
            ++p;
        }
    }

    // Any value; *raw (if given) gets its exact bytes.
    bool value(Span *raw = nullptr) {
        const char *const start = m_p;
        if (m_p >= m_e)
            return false;
        bool ok = false;
        switch (*m_p) {
        case '"':
            ok = string(nullptr);
            break;
        case '{':
            ok = object([this](Span) { return value(); });
            break;
        case '[':
            ok = array([this] { return value(); });
            break;
        case 't':
            ok = literal("true", 4);
            break;
        case 'f':
            ok = literal("false", 5);
            break;
        case 'n':
            ok = literal("null", 4);
            break;
        default:
            ok = number();
        }
        if (ok && raw)
            *raw = {start, m_p};
        return ok;
    }

    // A string into *out, or any other value skipped (*out stays null).
    bool stringOrValue(Span *out) { return peek('"') ? string(out) : value(); }
    // true -> *out = true; anything else valid leaves it false.
    bool boolean(bool *out) {
        if (peek('t') && literal("true", 4)) {
            *out = true;
            return true;
        }
        return value();
    }

    // onMember(key) must consume the member's value.
    template <typename OnMember> bool object(OnMember &&onMember) {
        if (!peek('{') || ++m_depth > kMaxDepth)
            return false;
        ++m_p;
        ws();
        if (peek('}')) {
            ++m_p;
            --m_depth;
            return true;
        }
        for (;;) {
            Span key;
            if (!string(&key))
                return false;
            ws();
            if (!peek(':'))
                return false;
            ++m_p;
            ws();
            if (!onMember(key))
                return false;
            const After next = afterItem('}');
            if (next == After::More)
                continue;
            return next == After::Closed;
        }
    }

    template <typename OnElement> bool array(OnElement &&onElement) {
        if (!peek('[') || ++m_depth > kMaxDepth)
            return false;
        ++m_p;
        ws();
        if (peek(']')) {
            ++m_p;
            --m_depth;
            return true;
        }
        for (;;) {
            if (!onElement())
                return false;
            const After next = afterItem(']');
            if (next == After::More)
                continue;
            return next == After::Closed;
        }
    }

private:
    enum class After { More, Closed, Malformed };

    // After a member or an element: a ',' (another follows), the closing bracket (the object or
    // array ends here), or anything else (malformed).
    After afterItem(char close) {
        ws();
        if (peek(',')) {
            ++m_p;
            ws();
            return After::More;
        }
        if (!peek(close))
            return After::Malformed;
        ++m_p;
        --m_depth;
        return After::Closed;
    }

    bool literal(const char *word, qsizetype n) {
        if (m_e - m_p < n || std::memcmp(m_p, word, size_t(n)) != 0)
            return false;
        m_p += n;
        return true;
    }
    bool number() {
        const char *const start = m_p;
        bool exponent = false;
        const char *p = m_p;
        if (p < m_e && *p == '-')
            ++p;
        if (p >= m_e)
            return false;
        if (*p == '0') {
            ++p;
        } else if (isDigit(*p)) {
            while (p < m_e && isDigit(*p))
                ++p;
        } else {
            return false;
        }
        if (p < m_e && *p == '.') {
            ++p;
            if (p >= m_e || !isDigit(*p))
                return false;
            while (p < m_e && isDigit(*p))
                ++p;
        }
        if (p < m_e && (*p == 'e' || *p == 'E')) {
            exponent = true;
            ++p;
            if (p < m_e && (*p == '+' || *p == '-'))
                ++p;
            if (p >= m_e || !isDigit(*p))
                return false;
            while (p < m_e && isDigit(*p))
                ++p;
        }
        // Qt's parser refuses a number a double cannot hold (36E777 overflows, 1e-400 underflows
        // to zero): so must we, or a line valid here would be broken for it (found by
        // fuzz_history). Only an exponent or more than 300 characters can get there, and
        // QByteArray::toDouble fails exactly where the parser does (locale-independent).
        if (exponent || p - start > 300) {
            bool ok = false;
            QByteArray::fromRawData(start, p - start).toDouble(&ok);
            if (!ok)
                return false;
        }
        m_p = p;
        return true;
    }

    const char *m_p;
    const char *m_e;
    int m_depth = 0;
};

// The start every line scanner shares: `out` emptied for a new line, `s` past leading
// whitespace. False when there is nothing else (then out->blank is set).
inline bool beginLine(Skimmer &s, ScannedLine *out) {
    out->valid = false;
    out->blank = false;
    out->role = LineRole::Other;
    out->sidechain = false;
    out->meta = false;
    out->uuid = {};
    out->timestamp = {};
    out->blocks.clear();
    s.ws();
    out->blank = s.atEnd();
    return !out->blank;
}

} // namespace flotilla::history::detail
