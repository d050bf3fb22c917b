// libFuzzer target: {{NAME}} substitution (SecretStore::expand) and output masking
// (SecretMasker), with the secret values, the text and the way the stream is split all chosen
// by the input (FuzzedDataProvider).
//
// Invariants:
//  - masking a stream fed in arbitrary pieces gives exactly what masking it in one go gives;
//  - no secret value appears in masked output, however the input is split (values containing
//    the mask character '*' excepted: "***" itself could spell them);
//  - expand() agrees with a plain left-to-right model of the placeholder syntax: known names
//    replaced once (a value is never expanded again), any unknown name -> an error;
//  - the masked expansion shows no secret value.

#include "FuzzSupport.h"

#include "exec/SecretMasker.h"
#include "exec/SecretStore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QTemporaryDir>

#include <fuzzer/FuzzedDataProvider.h>

using flotilla::SecretMasker;
using flotilla::SecretStore;

namespace {

QString scratchFile() {
    static QTemporaryDir dir(QFileInfo::exists(QStringLiteral("/dev/shm"))
                                 ? QStringLiteral("/dev/shm/flotilla-fuzz-XXXXXX")
                                 : QDir::tempPath() + QStringLiteral("/flotilla-fuzz-XXXXXX"));
    return dir.path() + QStringLiteral("/secrets.json");
}

QByteArray bytes(const std::string &s) {
    return QByteArray(s.data(), qsizetype(s.size()));
}

bool isNameChar(QChar c, bool first) {
    return (c >= QLatin1Char('A') && c <= QLatin1Char('Z')) ||
           (!first && ((c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_')));
}

// The placeholder grammar, independently of SecretStore's regular expression.
std::optional<QString> modelExpand(const QString &command, const QHash<QString, QString> &known) {
    QString out;
    bool unknown = false;
    for (qsizetype i = 0; i < command.size();) {
        if (command.mid(i, 2) == QLatin1String("{{") && i + 2 < command.size() &&
            isNameChar(command.at(i + 2), true)) {
            qsizetype j = i + 3;
            while (j < command.size() && isNameChar(command.at(j), false))
                ++j;
            if (command.mid(j, 2) == QLatin1String("}}")) {
                const QString name = command.mid(i + 2, j - i - 2);
                if (known.contains(name))
                    out += known.value(name);
                else
                    unknown = true;
                i = j + 2;
                continue;
            }
        }
        out += command.at(i);
        ++i;
    }
    if (unknown)
        return std::nullopt;
    return out;
}

void checkNoValueShows(const QByteArray &masked, const QList<QByteArray> &values,
                       const char *what) {
    for (const QByteArray &v : values) {
        if (!v.isEmpty() && !v.contains('*'))
            FUZZ_CHECK(!masked.contains(v), what);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FuzzedDataProvider in(data, size);
    const int count = in.ConsumeIntegralInRange(0, 4);
    QList<QByteArray> values;
    for (int i = 0; i < count; ++i)
        values.append(bytes(in.ConsumeRandomLengthString(24)));
    const bool expandMode = in.ConsumeBool();

    if (!expandMode) {
        // The stream: pieces of random length until the input runs out.
        QList<QByteArray> pieces;
        while (in.remaining_bytes() > 0)
            pieces.append(bytes(in.ConsumeRandomLengthString(32)));
        const QByteArray whole = pieces.join();
        SecretMasker masker(values);
        QByteArray streamed;
        for (const QByteArray &p : pieces) {
            streamed += masker.feed(p);
            FUZZ_CHECK(masker.heldBytes() < 24, "held back more than the longest value");
        }
        streamed += masker.finish();
        FUZZ_CHECK(masker.heldBytes() == 0, "bytes left after finish()");
        const QByteArray once = SecretMasker(values).mask(whole);
        FUZZ_CHECK(streamed == once, "masking depends on how the stream is split");
        checkNoValueShows(streamed, values, "a secret value shows in masked output");
        if (values.isEmpty())
            FUZZ_CHECK(streamed == whole, "no secrets, yet the output changed");
        return 0;
    }

    flotilla::fuzz::initQt();
    QFile::remove(scratchFile());
    SecretStore store(scratchFile(), flotilla::Clock::system());
    QHash<QString, QString> known;
    QList<QByteArray> stored;
    for (int i = 0; i < values.size(); ++i) {
        const QString name = QStringLiteral("S%1").arg(i);
        const QString value = QString::fromUtf8(values[i]);
        bool created = false;
        if (!store.set(name, value, &created)) {
            known.insert(name, value);
            stored.append(value.toUtf8());
        }
    }
    const QString command = QString::fromUtf8(bytes(in.ConsumeRemainingBytesAsString()));
    const auto expanded = store.expand(command);
    const auto model = modelExpand(command, known);
    FUZZ_CHECK(expanded.ok() == model.has_value(), "expand() and the model disagree on errors");
    if (!expanded.ok())
        return 0;
    FUZZ_CHECK(expanded.value() == *model, "expand() differs from the model");
    const QByteArray masked = SecretMasker(store.values()).mask(expanded.value().toUtf8());
    checkNoValueShows(masked, stored, "a secret value shows in a masked expanded command");
    return 0;
}
