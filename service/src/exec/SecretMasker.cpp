#include "exec/SecretMasker.h"

#include <cstring>

namespace flotilla {

SecretMasker::SecretMasker(const QList<QByteArray> &values) {
    for (const QByteArray &v : values) {
        if (v.isEmpty() || m_values.contains(v))
            continue;
        m_values.append(v);
        m_matchers.append(QByteArrayMatcher(v));
        m_longest = qMax(m_longest, v.size());
    }
}

QByteArray SecretMasker::feed(const QByteArray &data) {
    if (m_values.isEmpty())
        return data; // the common case: nothing to look for, nothing to copy
    m_pending += data;
    return drain(false);
}

QByteArray SecretMasker::finish() {
    return drain(true);
}

QByteArray SecretMasker::mask(const QByteArray &text) const {
    SecretMasker copy = *this;
    copy.m_pending.clear();
    QByteArray out = copy.feed(text);
    out += copy.finish();
    return out;
}

SecretMasker::Match SecretMasker::nextMatch(const QByteArray &text, qsizetype from,
                                            QList<qsizetype> &cache) const {
    // cache[i]: where value i next occurs (-1: nowhere further), so a value that is absent is
    // scanned for once per drain, not once per match of another value.
    Match best;
    for (qsizetype i = 0; i < m_values.size(); ++i) {
        if (cache[i] != -1 && cache[i] < from)
            cache[i] = m_matchers[i].indexIn(text, from);
        const qsizetype at = cache[i];
        if (at < 0)
            continue;
        // Earliest start wins; at the same start the longer value, so no part of it shows.
        if (best.start < 0 || at < best.start ||
            (at == best.start && m_values[i].size() > best.length))
            best = {at, m_values[i].size()};
    }
    return best;
}

qsizetype SecretMasker::undecidedSuffixStart(const QByteArray &text) const {
    // The earliest position p such that text[p..] is a proper prefix of some value: from there on
    // the next read may complete a secret. Checked from the earliest candidate, so the first hit is
    // the longest such suffix.
    const qsizetype size = text.size();
    const qsizetype first = qMax<qsizetype>(0, size - (m_longest - 1));
    for (qsizetype p = first; p < size; ++p) {
        const qsizetype rest = size - p;
        for (const QByteArray &v : m_values) {
            if (v.size() > rest && v.at(0) == text.at(p) &&
                std::memcmp(v.constData(), text.constData() + p, size_t(rest)) == 0)
                return p;
        }
    }
    return size;
}

QByteArray SecretMasker::drain(bool final) {
    const QByteArray &text = m_pending;
    const qsizetype hold = final ? text.size() : undecidedSuffixStart(text);
    QByteArray out;
    out.reserve(hold);
    QList<qsizetype> cache(m_values.size(), -2); // -2: not looked for yet
    qsizetype pos = 0;
    while (true) {
        Match m = nextMatch(text, pos, cache);
        // A match starting before `hold` is complete (else its start would be undecided).
        if (m.start < 0 || m.start >= hold)
            break;
        out.append(text.constData() + pos, m.start - pos);
        qsizetype end = m.start + m.length;
        for (Match next = nextMatch(text, m.start + 1, cache); next.start >= 0 && next.start < end;
             next = nextMatch(text, next.start + 1, cache))
            end = qMax(end, next.start + next.length);
        out.append(kMask);
        pos = end;
    }
    const qsizetype cut = qMax(pos, hold);
    out.append(text.constData() + pos, cut - pos);
    m_pending.remove(0, cut);
    return out;
}

} // namespace flotilla
