// libFuzzer target: a Claude Code session file (JSONL) -> its line scanner (ClaudeSessions.h),
// HistoryEntries and SessionIndex, the way the history routes read it. The first input byte
// picks the mode (includeSidechain, page size); the rest is the file.
//
// Invariants:
//  - a line the skimmer calls valid is one JSON object for Qt's parser too (differential check;
//    invalid UTF-8 excepted: the skimmer reads it leniently, as U+FFFD);
//  - SessionIndex counts exactly the entries and broken lines a plain per-line model counts
//    (complete lines only: a last line without '\n' is not indexed yet);
//  - paging from the newest end, whatever the page size, returns the same entries, in the same
//    order, as makeEntry over the model's lines; head() returns the oldest ones.

#include "FuzzSupport.h"

#include "agents/claude/ClaudeSessions.h"
#include "history/HistoryEntries.h"
#include "history/LineScanner.h"
#include "history/SessionIndex.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>

using namespace flotilla::history;

namespace {

QString scratchFile() {
    // tmpfs when there is one: the index re-reads the file for every page.
    static QTemporaryDir dir(QFileInfo::exists(QStringLiteral("/dev/shm"))
                                 ? QStringLiteral("/dev/shm/flotilla-fuzz-XXXXXX")
                                 : QDir::tempPath() + QStringLiteral("/flotilla-fuzz-XXXXXX"));
    return dir.path() + QStringLiteral("/session.jsonl");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    const bool includeSidechain = (data[0] & 1) != 0;
    const qint64 pageSize = 1 + (data[0] >> 1) % 8;
    const char *begin = reinterpret_cast<const char *>(data + 1);
    const char *end = begin + (size - 1);

    // The model: every complete line through the same skimmer, entries built one by one.
    QList<QJsonObject> expected;
    qint64 broken = 0;
    ScannedLine scanned;
    for (const char *b = begin; b < end;) {
        const char *nl = static_cast<const char *>(memchr(b, '\n', size_t(end - b)));
        if (!nl)
            break; // partial last line: not indexed
        // A heap copy of exactly the line: ASan catches any read outside it.
        QByteArray copy(b, nl - b);
        std::unique_ptr<char[]> exact(new char[size_t(copy.size()) + 1]);
        memcpy(exact.get(), copy.constData(), size_t(copy.size()));
        flotilla::claude::scanSessionLine(exact.get(), exact.get() + copy.size(), &scanned);
        if (!scanned.blank) {
            // Invalid UTF-8 is read leniently (decoded as U+FFFD, like QString::fromUtf8) where
            // Qt's parser refuses the whole line: compare on the decoded-and-re-encoded bytes.
            // Bytes >= 0x80 are never JSON structure, so this changes nothing else.
            QJsonParseError err{};
            const QJsonDocument doc =
                QJsonDocument::fromJson(QString::fromUtf8(copy).toUtf8(), &err);
            if (scanned.valid)
                FUZZ_CHECK(err.error == QJsonParseError::NoError && doc.isObject(),
                           "the skimmer accepts a line Qt's JSON parser rejects");
            if (!scanned.valid)
                ++broken;
            else if (!scanned.sidechain || includeSidechain) {
                for (int i = 0; i < scanned.entryCount(); ++i) {
                    const QJsonObject entry = makeEntry(scanned, i);
                    FUZZ_CHECK(entry.contains(QLatin1String("type")), "entry without a type");
                    blockContent(scanned.blocks[i]); // search's view of the block
                    expected.append(entry);
                }
            }
        }
        b = nl + 1;
    }

    const QString path = scratchFile();
    {
        QFile f(path);
        FUZZ_CHECK(f.open(QIODevice::WriteOnly | QIODevice::Truncate), "cannot write scratch");
        f.write(begin, end - begin);
    }
    SessionIndex index(path, includeSidechain, flotilla::claude::scanSessionLine);
    const auto stats = index.refresh();
    FUZZ_CHECK(stats.ok(), "refresh failed on a readable file");
    FUZZ_CHECK(stats->entries == expected.size(), "entry count differs from the model");
    FUZZ_CHECK(stats->skippedLines == broken, "broken line count differs from the model");

    // Newest page first, walking back to the oldest entry.
    QList<QJsonObject> paged;
    for (qint64 offset = 0; offset < stats->entries; offset += pageSize) {
        const auto page = index.page(offset, pageSize);
        FUZZ_CHECK(page.ok(), "page failed");
        FUZZ_CHECK(page->entries.size() == qMin(pageSize, stats->entries - offset), "short page");
        FUZZ_CHECK(page->first == qMax<qint64>(0, stats->entries - offset - pageSize),
                   "page starts at the wrong ordinal");
        paged = page->entries + paged;
    }
    FUZZ_CHECK(paged == expected, "paged entries differ from the model");
    const auto head = index.head(pageSize);
    FUZZ_CHECK(head.ok(), "head failed");
    FUZZ_CHECK(head->entries == expected.mid(0, pageSize), "head differs from the model");
    return 0;
}
