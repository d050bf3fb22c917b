#include "exec/SecretMasker.h"

#include <QJsonArray>
#include <QJsonObject>

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
    copy.m_covered = 0;
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
    // The end of the mask that begins at `from`: overlapping occurrences join it.
    auto maskEnd = [&](qsizetype from, qsizetype end) {
        for (Match next = nextMatch(text, from, cache); next.start >= 0 && next.start < end;
             next = nextMatch(text, next.start + 1, cache))
            end = qMax(end, next.start + next.length);
        return end;
    };
    qsizetype pos = 0;
    // The first m_covered bytes were already shown as part of the last "***": an occurrence
    // starting in them continues that mask (as if the stream had come in one piece).
    if (m_covered > 0)
        pos = maskEnd(0, m_covered);
    while (true) {
        Match m = nextMatch(text, pos, cache);
        // A match starting before `hold` is complete (else its start would be undecided).
        if (m.start < 0 || m.start >= hold)
            break;
        out.append(text.constData() + pos, m.start - pos);
        out.append(kMask);
        pos = maskEnd(m.start + 1, m.start + m.length);
    }
    if (pos > hold) {
        // The mask reaches into the undecided suffix: an occurrence starting there may still
        // extend it, so those bytes stay pending, marked as already masked. (Cutting at `pos`
        // would show the rest of such a value: values ABC and BCDEF, "xxABCD" then "EF" would
        // have given "xx***DEF".)
        m_covered = pos - hold;
    } else {
        m_covered = 0;
        out.append(text.constData() + pos, hold - pos);
    }
    m_pending.remove(0, hold);
    return out;
}

QJsonValue SecretMasker::maskJson(const QJsonValue &value) const {
    if (value.isString())
        return QString::fromUtf8(mask(value.toString().toUtf8()));
    if (value.isArray()) {
        QJsonArray out;
        for (const QJsonValue &v : value.toArray())
            out.append(maskJson(v));
        return out;
    }
    if (value.isObject()) {
        QJsonObject out;
        const QJsonObject in = value.toObject();
        for (auto it = in.constBegin(); it != in.constEnd(); ++it)
            out.insert(it.key(), maskJson(it.value()));
        return out;
    }
    return value;
}

} // namespace flotilla
