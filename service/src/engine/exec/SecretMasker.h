#pragma once
// Replaces secret values by "***" in a byte stream that arrives in pieces.
//
// A value may be split across two reads ("AB" now, "CD" later for the secret ABCD), so the end of
// what was fed is held back while it could still become a secret: exactly the longest suffix
// that is a proper prefix of some value (never more than max(len) - 1 bytes). Output that cannot
// start a secret leaves at once, so masking adds no latency to ordinary output.
// Overlapping occurrences of different values in one window are masked as one "***".

#include <QByteArray>
#include <QByteArrayMatcher>
#include <QJsonValue>
#include <QList>

namespace flotilla {

class SecretMasker final {
public:
    static constexpr char kMask[] = "***";

    SecretMasker() = default;
    // Empty values are ignored (they would match everywhere).
    explicit SecretMasker(const QList<QByteArray> &values);

    // Feeds the next bytes of the stream; returns what is now safe to show.
    QByteArray feed(const QByteArray &data);
    // End of the stream: returns the held-back rest (masked if it completes a secret).
    QByteArray finish();

    // Masks a complete text in one go (commands in events and logs).
    QByteArray mask(const QByteArray &text) const;
    // Every string inside a JSON value, masked (tool inputs in the permission decision log).
    QJsonValue maskJson(const QJsonValue &value) const;

    bool isEmpty() const { return m_values.isEmpty(); }
    qsizetype heldBytes() const { return m_pending.size(); }

private:
    struct Match {
        qsizetype start = -1;
        qsizetype length = 0;
    };
    QByteArray drain(bool final);
    Match nextMatch(const QByteArray &text, qsizetype from, QList<qsizetype> &cache) const;
    qsizetype undecidedSuffixStart(const QByteArray &text) const;

    QList<QByteArray> m_values;
    QList<QByteArrayMatcher> m_matchers;
    qsizetype m_longest = 0;
    QByteArray m_pending;
    qsizetype m_covered = 0; // leading bytes of m_pending already shown as part of a "***"
};

} // namespace flotilla
