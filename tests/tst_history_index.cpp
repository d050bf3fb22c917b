// Conversation history internals: the line scanner, the session index (paging, growth, damage,
// replacement) and its cache.

#include "support/HistoryFixtures.h"

using namespace flotilla;
using namespace flotilla::history;
using namespace flotilla::test;

class TestHistoryIndex final : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString path(const QString &name) const { return m_tmp.filePath(name); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    // ---- session files ----

    void encodesProjectDirLikeTheCli_data() {
        QTest::addColumn<QString>("cwd");
        QTest::addColumn<QString>("expected");
        // All observed with Claude Code 2.1.329.
        QTest::newRow("plain") << s("/tmp/work") << s("-tmp-work");
        QTest::newRow("space, underscore, dot")
            << s("/tmp/histstub/work dir/my_proj.v2") << s("-tmp-histstub-work-dir-my-proj-v2");
        QTest::newRow("non-ascii letter")
            << s("/tmp/histstub/w\xc3\xb6rk") << s("-tmp-histstub-w-rk");
        QTest::newRow("over 200: cut + hash")
            << s("/tmp/histstub/") + QString(120, u'a') + s("/") + QString(120, u'b')
            << s("-tmp-histstub-") + QString(120, u'a') + s("-") + QString(65, u'b') + s("-qare95");
    }
    void encodesProjectDirLikeTheCli() {
        QFETCH(QString, cwd);
        QFETCH(QString, expected);
        QCOMPARE(claude::encodeProjectDirName(cwd), expected);
    }

    void validatesSessionIds_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("valid");
        QTest::newRow("uuid") << kMainSession << true;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("parent dir") << s("../../etc/passwd") << false;
        QTest::newRow("slash") << s("a/b") << false;
        QTest::newRow("dot") << s("x.jsonl") << false;
        QTest::newRow("encoded slash") << s("a%2Fb") << false;
        QTest::newRow("too long") << QString(129, u'a') << false;
    }
    void validatesSessionIds() {
        QFETCH(QString, id);
        QFETCH(bool, valid);
        QCOMPARE(isValidSessionId(id), valid);
    }

    // ---- line scanner ----

    void scannerCountsEntries_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<int>("entries");
        auto user = [](const QJsonValue &c) {
            return jsonLine(convLine(s("user"), s("u"), c)).trimmed();
        };
        auto asst = [](const QJsonValue &c) {
            return jsonLine(convLine(s("assistant"), s("a"), c)).trimmed();
        };
        auto text = [](const QString &t) {
            return QJsonObject{{s("type"), s("text")}, {s("text"), t}};
        };
        const QString reminder = s("<system-reminder>\nnote\n</system-reminder>");
        QTest::newRow("user string") << user(s("hi")) << true << 1;
        QTest::newRow("reminder only") << user(reminder) << true << 0;
        QTest::newRow("two reminders and blanks")
            << user(QString(reminder + s("\n \t") + reminder)) << true << 0;
        QTest::newRow("reminder then text")
            << user(QString(reminder + s("\nreal question"))) << true << 1;
        QTest::newRow("blank text") << user(s(" \n\t")) << true << 0;
        QTest::newRow("text + tool_result + image")
            << user(QJsonArray{text(s("see")),
                               QJsonObject{{s("type"), s("tool_result")},
                                           {s("tool_use_id"), s("t")},
                                           {s("content"), s("ok")}},
                               QJsonObject{{s("type"), s("image")}}})
            << true << 3;
        QTest::newRow("thinking, empty text, text, tool_use")
            << asst(QJsonArray{QJsonObject{{s("type"), s("thinking")}, {s("thinking"), s("x")}},
                               text(QString()), text(s("ok")),
                               QJsonObject{{s("type"), s("tool_use")},
                                           {s("id"), s("t")},
                                           {s("name"), s("Bash")},
                                           {s("input"), QJsonObject()}}})
            << true << 2;
        QJsonObject meta = convLine(s("user"), s("m"), s("caveat"));
        meta.insert(s("isMeta"), true);
        QTest::newRow("isMeta") << jsonLine(meta).trimmed() << true << 0;
        // Literal lines (escaped, not raw strings: moc 6.4 skips files with some raw literals).
        static const struct {
            const char *name, *line;
            bool valid;
            int entries;
        } literal[] = {
            {"attachment", "{\"type\":\"attachment\",\"attachment\":{}}", true, 0},
            {"message before type", "{\"message\":{\"content\":\"hi\"},\"type\":\"user\"}", true,
             1},
            {"escapes", "{\"type\":\"user\",\"message\":{\"content\":\"\\u00e9\\n\\\"q\"}}", true,
             1},
            {"numbers, literals", "{\"a\":[-1.5e3,0,true,false,null],\"type\":\"assistant\"}", true,
             0},
            {"truncated", "{\"type\":\"user\",\"message\":{\"content\":\"hi", false, 0},
            {"trailing garbage", "{\"type\":\"user\"} x", false, 0},
            {"bad literal", "{\"type\":\"user\",\"a\":tru}", false, 0},
            {"bad escape", "{\"type\":\"user\",\"a\":\"\\x\"}", false, 0},
            {"raw control char", "{\"type\":\"user\",\"a\":\"\x01\"}", false, 0},
            {"not an object", "[1,2]", false, 0},
            {"leading zero", "{\"a\":01}", false, 0},
            // Numbers a double cannot hold are broken lines for Qt, so for us (fuzz_history).
            {"exponent overflows", "{\"parentUuid\":36E777}", false, 0},
            {"exponent underflows", "{\"a\":1e-400}", false, 0},
            {"just below the smallest denormal", "{\"a\":2e-324}", false, 0},
            {"smallest denormal", "{\"a\":3e-324}", true, 0},
            {"largest finite", "{\"a\":1.7e308}", true, 0},
            {"zero, huge exponent", "{\"a\":0e999}", true, 0},
            {"400-digit integer",
             "{\"a\":1"
             "0000000000000000000000000000000000000000000000000000000000000000000"
             "0000000000000000000000000000000000000000000000000000000000000000000"
             "0000000000000000000000000000000000000000000000000000000000000000000"
             "0000000000000000000000000000000000000000000000000000000000000000000"
             "0000000000000000000000000000000000000000000000000000000000000000000"
             "00000000000000000000000000000000000000000000000000000000000000000}",
             false, 0},
        };
        for (const auto &row : literal)
            QTest::newRow(row.name) << QByteArray(row.line) << row.valid << row.entries;
    }
    void scannerCountsEntries() {
        QFETCH(QByteArray, line);
        QFETCH(bool, valid);
        QFETCH(int, entries);
        ScannedLine scanned;
        claude::scanSessionLine(line.constBegin(), line.constEnd(), &scanned);
        QCOMPARE(scanned.valid, valid);
        QCOMPARE(scanned.entryCount(), entries);
        if (valid) // what the scanner accepts, Qt's parser accepts (it is laxer on escapes)
            QVERIFY(QJsonDocument::fromJson(line).isObject());
    }

    // Every prefix of every real line: the skimmer and Qt's parser agree on what is valid JSON.
    void scannerAgreesWithQtOnCutRealLines() {
        const QString data = QFINDTESTDATA("data/history");
        QDirIterator it(data, {s("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
        int checked = 0;
        ScannedLine scanned;
        while (it.hasNext()) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            for (const QByteArray &line : f.readAll().split('\n')) {
                for (qsizetype n = line.size(); n > 0; n -= 13) {
                    const QByteArray cut = line.left(n);
                    claude::scanSessionLine(cut.constBegin(), cut.constEnd(), &scanned);
                    QCOMPARE(scanned.valid, QJsonDocument::fromJson(cut).isObject());
                    ++checked;
                }
            }
        }
        QVERIFY(checked > 1000);
    }

    void decodesStringsAndTimestamps() {
        const QByteArray raw("a\\u00e9\\n\\\"\\ud83d\\ude00\\/b");
        QCOMPARE(decodeJsonString({raw.constBegin(), raw.constEnd()}),
                 s("a\xc3\xa9\n\"\xf0\x9f\x98\x80/b"));
        for (const char *ts : {"2026-11-21T00:26:13.077Z", "2024-02-29T23:59:59Z",
                               "2026-11-21T02:26:13.5+02:00", "1969-12-31T23:59:59.999Z"}) {
            const QByteArray b(ts);
            QCOMPARE(parseTimestampMs({b.constBegin(), b.constEnd()}),
                     QDateTime::fromString(QString::fromLatin1(ts), Qt::ISODateWithMs)
                         .toMSecsSinceEpoch());
        }
        const QByteArray bad("yesterday");
        QCOMPARE(parseTimestampMs({bad.constBegin(), bad.constEnd()}), -1);
    }

    // ---- the index ----

    void pagesCountBackFromTheNewest_data() {
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("limit");
        // 60 lines -> 72 entries (every 5th line holds two), interleaved with noise lines.
        QTest::newRow("newest page") << 0 << 50;
        QTest::newRow("second page") << 50 << 50;
        QTest::newRow("cut inside a two-entry line") << 3 << 4;
        QTest::newRow("single newest") << 0 << 1;
        QTest::newRow("exactly everything") << 0 << 72;
        QTest::newRow("more than everything") << 0 << 1000;
        QTest::newRow("last one") << 71 << 10;
        QTest::newRow("offset at end") << 72 << 10;
        QTest::newRow("offset past end") << 500 << 10;
        QTest::newRow("limit 0") << 0 << 0;
    }
    void pagesCountBackFromTheNewest() {
        QFETCH(int, offset);
        QFETCH(int, limit);
        Synthetic syn;
        syn.add(60);
        QCOMPARE(syn.contents.size(), 72);
        const QString file = path(s("paging.jsonl"));
        QVERIFY(writeFile(file, syn.bytes, QIODevice::WriteOnly | QIODevice::Truncate));
        SessionIndex index(file, false, claude::scanSessionLine);
        const auto page = index.page(offset, limit);
        QVERIFY(page.ok());
        const int total = int(syn.contents.size());
        const int end = std::max(0, total - offset);
        const int first = std::max(0, end - limit);
        QCOMPARE(page->stats.entries, total);
        QCOMPARE(page->first, first);
        QCOMPARE(contentsOf(page->entries), syn.contents.mid(first, end - first));
        QCOMPARE(page->stats.skippedLines, 0);
    }

    void entriesOfMultiBlockLinesHaveUniqueUuids() {
        Synthetic syn;
        syn.assistantWithTool();
        const QString file = path(s("uuids.jsonl"));
        QVERIFY(writeFile(file, syn.bytes, QIODevice::WriteOnly | QIODevice::Truncate));
        const auto page = SessionIndex(file, false, claude::scanSessionLine).page(0, 10);
        QVERIFY(page.ok());
        QCOMPARE(page->entries.size(), 2);
        QCOMPARE(page->entries[0].value(s("uuid")).toString(), s("e0"));
        QCOMPARE(page->entries[1].value(s("uuid")).toString(), s("e0:1"));
        QCOMPARE(page->entries[1].value(s("type")).toString(), s("tool_use"));
        QCOMPARE(page->entries[1].value(s("toolName")).toString(), s("Bash"));
        QCOMPARE(page->entries[1].value(s("toolInput")).toObject().value(s("n")).toInt(), 1);
        QCOMPARE(page->entries[1].value(s("toolUseId")).toString(), s("t0"));
    }

    void longContentAndInputAreCut() {
        const QJsonObject input{{s("content"), QString(40, u'w')}};
        const QByteArray line = jsonLine(
            convLine(s("assistant"), s("a"),
                     QJsonArray{QJsonObject{{s("type"), s("text")}, {s("text"), QString(30, u'x')}},
                                QJsonObject{{s("type"), s("tool_use")},
                                            {s("id"), s("t")},
                                            {s("name"), s("Write")},
                                            {s("input"), input}}}));
        ScannedLine scanned;
        claude::scanSessionLine(line.constBegin(), line.constEnd() - 1, &scanned);
        QCOMPARE(scanned.entryCount(), 2);
        const QJsonObject text = makeEntry(scanned, 0, QString(), 20);
        QCOMPARE(text.value(s("content")).toString(), QString(20, u'x'));
        QCOMPARE(text.value(s("truncated")).toBool(), true);
        QCOMPARE(text.value(s("contentLength")).toInt(), 30);
        const QJsonObject use = makeEntry(scanned, 1, QString(), 20);
        QVERIFY(!use.contains(s("toolInput")));
        QCOMPARE(use.value(s("truncated")).toBool(), true);
        QCOMPARE(use.value(s("toolName")).toString(), s("Write"));
        const QJsonObject whole = makeEntry(scanned, 1);
        QCOMPARE(whole.value(s("toolInput")).toObject(), input);
        QVERIFY(!whole.contains(s("truncated")));
    }

    void growthIsIndexedIncrementally() {
        Synthetic syn;
        syn.add(40);
        const QString file = path(s("growth.jsonl"));
        QVERIFY(writeFile(file, syn.bytes, QIODevice::WriteOnly | QIODevice::Truncate));
        SessionIndex index(file, false, claude::scanSessionLine);
        QCOMPARE(index.page(0, 5)->stats.entries, syn.contents.size());
        const qint64 before = index.bytesScanned();
        QCOMPARE(before, syn.bytes.size());

        const qsizetype oldSize = syn.bytes.size();
        syn.add(7);
        QVERIFY(writeFile(file, syn.bytes.mid(oldSize), QIODevice::Append));
        const auto page = index.page(0, 3);
        QCOMPARE(page->stats.entries, syn.contents.size());
        QCOMPARE(contentsOf(page->entries), syn.contents.mid(syn.contents.size() - 3));
        QCOMPARE(index.builds(), 1);                                         // not rebuilt
        QCOMPARE(index.bytesScanned() - before, syn.bytes.size() - oldSize); // only the new bytes
        index.page(0, 3); // unchanged file: nothing scanned
        QCOMPARE(index.bytesScanned() - before, syn.bytes.size() - oldSize);
    }

    void partialLastLineWaitsForItsNewline() {
        Synthetic syn;
        syn.add(3);
        const QByteArray next = jsonLine(convLine(s("user"), s("late"), s("late")));
        const QString file = path(s("partial.jsonl"));
        QVERIFY(
            writeFile(file, syn.bytes + next.left(20), QIODevice::WriteOnly | QIODevice::Truncate));
        SessionIndex index(file, false, claude::scanSessionLine);
        auto stats = index.refresh();
        QCOMPARE(stats->entries, syn.contents.size());
        QCOMPARE(stats->skippedLines, 0);
        QCOMPARE(stats->indexedBytes, syn.bytes.size());
        QVERIFY(writeFile(file, next.mid(20), QIODevice::Append));
        const auto page = index.page(0, 1);
        QCOMPARE(page->stats.entries, syn.contents.size() + 1);
        QCOMPARE(page->stats.skippedLines, 0);
        QCOMPARE(contentsOf(page->entries), QStringList{s("late")});
        QCOMPARE(index.builds(), 1);
    }

    void brokenLinesAreSkippedAndCounted() {
        Synthetic syn;
        syn.add(4);
        QByteArray bytes = syn.bytes;
        bytes += "{\"type\":\"user\",\"message\":{\"content\":\"cut\n"; // truncated mid-write
        bytes += "not json at all\n";
        bytes += "\n"; // blank: not broken
        const qsizetype tail = syn.bytes.size();
        syn.add(2);
        bytes += syn.bytes.mid(tail);
        const QString file = path(s("broken.jsonl"));
        QVERIFY(writeFile(file, bytes, QIODevice::WriteOnly | QIODevice::Truncate));
        const auto page = SessionIndex(file, false, claude::scanSessionLine).page(0, 100);
        QVERIFY(page.ok());
        QCOMPARE(page->stats.skippedLines, 2);
        QCOMPARE(contentsOf(page->entries), syn.contents);
    }

    void oversizedLineIsSkippedAndCounted() {
        Synthetic syn;
        syn.user();
        QByteArray bytes = syn.bytes;
        bytes += jsonLine(
            convLine(s("user"), s("huge"), QString(int(SessionIndex::kMaxLineBytes) + 10, u'h')));
        syn.user();
        bytes += syn.bytes.mid(syn.bytes.indexOf('\n') + 1);
        const QString file = path(s("huge.jsonl"));
        QVERIFY(writeFile(file, bytes, QIODevice::WriteOnly | QIODevice::Truncate));
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(s("skipping a line over .*huge")));
        const auto page = SessionIndex(file, false, claude::scanSessionLine).page(0, 10);
        QCOMPARE(page->stats.skippedLines, 1);
        QCOMPARE(contentsOf(page->entries), syn.contents);
        QFile::remove(file);
    }

    void replacedOrRewrittenFileIsRebuilt_data() {
        QTest::addColumn<QString>("how");
        QTest::newRow("replaced by rename") << s("rename");
        QTest::newRow("truncated, shorter") << s("shrink");
        QTest::newRow("rewritten in place, longer") << s("rewrite");
    }
    void replacedOrRewrittenFileIsRebuilt() {
        QFETCH(QString, how);
        Synthetic first;
        first.add(30);
        const QString file = path(s("replaced-%1.jsonl").arg(how));
        QVERIFY(writeFile(file, first.bytes, QIODevice::WriteOnly | QIODevice::Truncate));
        SessionIndex index(file, false, claude::scanSessionLine);
        QCOMPARE(index.refresh()->entries, first.contents.size());

        Synthetic second; // different contents, same shape
        second.bytes = jsonLine(convLine(s("user"), s("x"), s("other start")));
        second.contents.append(s("other start"));
        second.add(how == s("shrink") ? 5 : 40);
        if (how == s("rename")) {
            QSaveFile f(file); // writes a new file and renames it over the old one
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(second.bytes);
            QVERIFY(f.commit());
        } else {
            QVERIFY(writeFile(file, second.bytes, QIODevice::ReadWrite)); // same inode
            QVERIFY(QFile::resize(file, second.bytes.size()));
        }
        const auto page = index.page(0, 1000);
        QCOMPARE(page->stats.entries, second.contents.size());
        QCOMPARE(contentsOf(page->entries), second.contents);
        QCOMPARE(index.builds(), 2);
    }

    void missingFileIsNotFound() {
        SessionIndex index(path(s("nope.jsonl")), false, claude::scanSessionLine);
        const auto r = index.page(0, 10);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().kind, ErrorKind::NotFound);
    }

    void cacheStaysWithinItsBudget() {
        IndexCache cache(1, 10); // 1 byte: only the most recent index may stay
        for (int i = 0; i < 3; ++i) {
            Synthetic syn;
            syn.add(10);
            const QString file = path(s("cache-%1.jsonl").arg(i));
            QVERIFY(writeFile(file, syn.bytes, QIODevice::WriteOnly | QIODevice::Truncate));
            QVERIFY(cache.acquire(file, false, claude::scanSessionLine)->refresh().ok());
            cache.trim();
            QCOMPARE(cache.size(), 1);
            QVERIFY(cache.peek(file));
        }
        IndexCache counted(1 << 20, 2); // by number of files
        for (int i = 0; i < 3; ++i)
            counted.acquire(path(s("cache-%1.jsonl").arg(i)), false, claude::scanSessionLine)
                ->refresh();
        counted.trim();
        QCOMPARE(counted.size(), 2);
        QVERIFY(!counted.peek(path(s("cache-0.jsonl"))));
    }

    // ---- real CLI output ----
};

QTEST_GUILESS_MAIN(TestHistoryIndex)
#include "tst_history_index.moc"
