// Conversation history: the line scanner, the session index (paging, growth, damage,
// replacement), real Claude Code CLI lines (tests/data/history), and the three REST routes
// through the real in-process service.

#include "controllers/HistoryController.h"
#include "domain/AgentRegistry.h"
#include "history/HistoryEntries.h"
#include "history/IndexCache.h"
#include "history/LineScanner.h"
#include "history/SessionFiles.h"
#include "history/SessionIndex.h"
#include "support/HttpClient.h"
#include "support/TestService.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

using namespace flotilla;
using namespace flotilla::history;
using namespace flotilla::test;

namespace {

const QString kMainSession = QStringLiteral("00e58ff5-3e47-4994-b023-221040dd2bc4");
const QString kBashSession = QStringLiteral("1e338c88-d394-419d-847a-430c5ccb9ad5");
const QString kTaskToolUse = QStringLiteral("toolu_task0002");

QString s(const char *utf8) {
    return QString::fromUtf8(utf8);
}

QByteArray jsonLine(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

QJsonObject convLine(const QString &type, const QString &uuid, const QJsonValue &content) {
    return {{s("type"), type},
            {s("uuid"), uuid},
            {s("timestamp"), s("2026-11-21T00:26:13.077Z")},
            {s("isSidechain"), false},
            {s("message"), QJsonObject{{s("role"), type}, {s("content"), content}}}};
}

// A session file built in memory, with the entries' contents in order, to check pages against.
struct Synthetic {
    QByteArray bytes;
    QStringList contents;
    void user() {
        const QString c = s("e%1").arg(contents.size());
        bytes += jsonLine(convLine(s("user"), c, c));
        contents.append(c);
    }
    // One line, two entries: text + tool_use.
    void assistantWithTool() {
        const QString text = s("e%1").arg(contents.size());
        const QJsonObject input{{s("n"), int(contents.size()) + 1}};
        const QJsonArray blocks{
            QJsonObject{{s("type"), s("thinking")}, {s("thinking"), s("hidden")}},
            QJsonObject{{s("type"), s("text")}, {s("text"), text}},
            QJsonObject{{s("type"), s("tool_use")},
                        {s("id"), s("t%1").arg(contents.size())},
                        {s("name"), s("Bash")},
                        {s("input"), input}}};
        bytes += jsonLine(convLine(s("assistant"), text, blocks));
        contents << text << QString::fromUtf8(QJsonDocument(input).toJson(QJsonDocument::Compact));
    }
    void noise() {
        bytes += jsonLine({{s("type"), s("attachment")},
                           {s("attachment"), QJsonObject{{s("content"), QString(3000, u'x')}}}});
        bytes += jsonLine({{s("type"), s("queue-operation")}, {s("operation"), s("enqueue")}});
    }
    void add(int lines) {
        for (int i = 0; i < lines; ++i) {
            if (i % 5 == 4)
                assistantWithTool();
            else
                user();
            if (i % 3 == 0)
                noise();
        }
    }
};

bool writeFile(const QString &path, const QByteArray &bytes, QIODevice::OpenMode mode) {
    QFile f(path);
    return f.open(mode) && f.write(bytes) == bytes.size();
}

QStringList contentsOf(const QList<QJsonObject> &entries) {
    QStringList out;
    for (const QJsonObject &e : entries)
        out.append(e.value(s("content")).toString());
    return out;
}

bool copyTree(const QString &from, const QString &to) {
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString src = it.next();
        const QString dst = to + src.mid(from.size());
        if (!QDir().mkpath(QFileInfo(dst).path()) || !QFile::copy(src, dst))
            return false;
    }
    return true;
}

bool setMtime(const QString &path, const QDateTime &t) {
    QFile f(path);
    return f.open(QIODevice::ReadWrite) && f.setFileTime(t, QFileDevice::FileModificationTime);
}

// The real service with a temp claudeHome and one agent whose cwd is the service's workDir.
struct Rest {
    QTemporaryDir home;
    std::unique_ptr<TestService> svc;
    std::unique_ptr<HttpClient> http;
    std::unique_ptr<HistoryController> attached;
    QString agentId;
    QString projectDir;

    bool start() {
        svc = std::make_unique<TestService>(
            [this](ServerConfig &c) { c.claudeHome = home.path() + s("/.claude"); });
        if (!svc->start())
            return false;
        http = std::make_unique<HttpClient>();
        const HttpResponse created =
            http->post(svc->url(s("/api/agents")),
                       QJsonObject{{s("name"), s("historian")}, {s("cwd"), svc->workDir()}});
        agentId = created.object().value(s("id")).toString();
        const QString cwd = created.object().value(s("cwd")).toString();
        projectDir = home.path() + s("/.claude/projects/") + encodeProjectDirName(cwd);
        // The composition root may not construct the history controller yet: attach one.
        if (get(s("history")).object().value(s("code")).toString() == s("route_not_found"))
            attached = std::make_unique<HistoryController>(svc->app().http(), svc->app().agents(),
                                                           svc->config().claudeHome);
        return !agentId.isEmpty() && QDir().mkpath(projectDir);
    }
    HttpResponse get(const QString &route, const QUrlQuery &q = {}, const QString &id = {}) {
        QUrl u = svc->url(s("/api/agents/%1/%2").arg(id.isEmpty() ? agentId : id, route));
        u.setQuery(q);
        return http->get(u);
    }
    bool installFixture() {
        const QString data = QFINDTESTDATA("data/history");
        const QDateTime now = QDateTime::currentDateTimeUtc();
        return !data.isEmpty() && copyTree(data, projectDir) &&
               setMtime(projectDir + s("/%1.jsonl").arg(kBashSession), now.addSecs(-60)) &&
               setMtime(projectDir + s("/%1.jsonl").arg(kMainSession), now);
    }
};

QUrlQuery query(std::initializer_list<std::pair<QString, QString>> items) {
    QUrlQuery q;
    for (const auto &[k, v] : items)
        q.addQueryItem(k, v);
    return q;
}

} // namespace

class TestHistory final : public QObject {
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
        QCOMPARE(encodeProjectDirName(cwd), expected);
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
        };
        for (const auto &row : literal)
            QTest::newRow(row.name) << QByteArray(row.line) << row.valid << row.entries;
    }
    void scannerCountsEntries() {
        QFETCH(QByteArray, line);
        QFETCH(bool, valid);
        QFETCH(int, entries);
        ScannedLine scanned;
        scanLine(line.constBegin(), line.constEnd(), &scanned);
        QCOMPARE(scanned.valid, valid);
        QCOMPARE(scanned.entryCount(), entries);
        if (valid) // the scanner's verdict agrees with Qt's parser
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
                    scanLine(cut.constBegin(), cut.constEnd(), &scanned);
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
        SessionIndex index(file, false);
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
        const auto page = SessionIndex(file, false).page(0, 10);
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
        scanLine(line.constBegin(), line.constEnd() - 1, &scanned);
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
        SessionIndex index(file, false);
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
        SessionIndex index(file, false);
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
        const auto page = SessionIndex(file, false).page(0, 100);
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
        const auto page = SessionIndex(file, false).page(0, 10);
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
        SessionIndex index(file, false);
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
        SessionIndex index(path(s("nope.jsonl")), false);
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
            QVERIFY(cache.acquire(file, false)->refresh().ok());
            cache.trim();
            QCOMPARE(cache.size(), 1);
            QVERIFY(cache.peek(file));
        }
        IndexCache counted(1 << 20, 2); // by number of files
        for (int i = 0; i < 3; ++i)
            counted.acquire(path(s("cache-%1.jsonl").arg(i)), false)->refresh();
        counted.trim();
        QCOMPARE(counted.size(), 2);
        QVERIFY(!counted.peek(path(s("cache-0.jsonl"))));
    }

    // ---- real CLI output ----

    void entriesFromRealCliSessions() {
        const QString data = QFINDTESTDATA("data/history");
        QVERIFY(!data.isEmpty());
        SessionIndex bash(data + s("/%1.jsonl").arg(kBashSession), false);
        const auto page = bash.page(0, 50);
        QVERIFY(page.ok());
        QCOMPARE(page->stats.skippedLines, 0);
        QStringList types;
        for (const QJsonObject &e : page->entries)
            types.append(e.value(s("type")).toString());
        QCOMPARE(types, (QStringList{s("user"), s("assistant"), s("tool_use"), s("tool_result"),
                                     s("assistant")}));
        QCOMPARE(contentsOf(page->entries).at(0), s("please RUN_BASH"));
        const QJsonObject use = page->entries[2];
        QCOMPARE(use.value(s("toolName")).toString(), s("Bash"));
        QCOMPARE(use.value(s("toolInput")).toObject().value(s("command")).toString(), s("echo hi"));
        const QJsonObject result = page->entries[3];
        QCOMPARE(result.value(s("toolUseId")).toString(), use.value(s("toolUseId")).toString());
        QCOMPARE(result.value(s("content")).toString(), s("hi"));
        QVERIFY(!result.contains(s("isError")));
        QCOMPARE(page->entries[0].value(s("timestamp")).toInteger(),
                 QDateTime::fromString(s("2026-11-21T00:26:24.611Z"), Qt::ISODateWithMs)
                     .toMSecsSinceEpoch());

        // The Agent (Task) session: the isMeta reminder is skipped, the task notification kept.
        SessionIndex main(data + s("/%1.jsonl").arg(kMainSession), false);
        const auto all = main.page(0, 50);
        QCOMPARE(all->stats.entries, 9);
        QCOMPARE(all->entries[4].value(s("toolName")).toString(), s("Agent"));
        QCOMPARE(all->entries[4].value(s("toolUseId")).toString(), kTaskToolUse);
        QVERIFY(
            all->entries[5].value(s("content")).toString().startsWith(s("Async agent launched")));
        QVERIFY(
            all->entries[7].value(s("content")).toString().startsWith(s("<task-notification>")));
        QSet<QString> uuids;
        for (const QJsonObject &e : all->entries)
            uuids.insert(e.value(s("uuid")).toString());
        QCOMPARE(uuids.size(), 9);

        const auto subagents = subagentFiles(data + s("/%1.jsonl").arg(kMainSession));
        QCOMPARE(subagents.keys(), QStringList{kTaskToolUse});
        QCOMPARE(SessionIndex(subagents.value(kTaskToolUse), true).refresh()->entries, 5);
        QCOMPARE(SessionIndex(subagents.value(kTaskToolUse), false).refresh()->entries, 0);
    }

    // ---- REST ----

    void restHistoryWithSubagents() {
        Rest rest;
        QVERIFY(rest.start());
        QVERIFY(rest.installFixture());
        HttpResponse r = rest.get(s("history"));
        QCOMPARE(r.status, 200);
        QJsonObject o = r.object();
        QCOMPARE(o.value(s("sessionId")).toString(), kMainSession); // the newest file
        QCOMPARE(o.value(s("totalCount")).toInt(), 9);
        QCOMPARE(o.value(s("hasMore")).toBool(), false);
        QCOMPARE(o.value(s("offset")).toInt(), 0);
        QCOMPARE(o.value(s("limit")).toInt(), 50);
        QCOMPARE(o.value(s("skippedLines")).toInt(), 0);
        QJsonArray m = o.value(s("messages")).toArray();
        QCOMPARE(m.size(), 9 + 5);
        QCOMPARE(m[4].toObject().value(s("subagentEntryCount")).toInt(), 5);
        for (int i = 5; i < 10; ++i) {
            const QJsonObject e = m[i].toObject();
            QCOMPARE(e.value(s("isSubagent")).toBool(), true);
            QCOMPARE(e.value(s("parentToolUseId")).toString(), kTaskToolUse);
            QCOMPARE(e.value(s("agentId")).toString(), s("ab54f2a2864230218"));
        }
        QCOMPARE(m[5].toObject().value(s("content")).toString(), s("SUBTASK please RUN_BASH now"));
        QCOMPARE(m[10].toObject().value(s("type")).toString(), s("tool_result"));

        r = rest.get(s("history"), query({{s("subagentEntriesLimit"), s("2")}}));
        QCOMPARE(r.object().value(s("messages")).toArray().size(), 9 + 2);
        QCOMPARE(r.object().value(s("subagentEntriesTruncated")).toBool(), true);
        r = rest.get(s("history"), query({{s("includeSubagents"), s("false")},
                                          {s("limit"), s("4")},
                                          {s("offset"), s("2")}}));
        o = r.object();
        QCOMPARE(o.value(s("totalCount")).toInt(), 9);
        QCOMPARE(o.value(s("hasMore")).toBool(), true);
        m = o.value(s("messages")).toArray();
        QCOMPARE(m.size(), 4);
        QCOMPARE(m[0].toObject().value(s("content")).toString(), s("Delegating to a sub-agent."));
        QVERIFY(!m[1].toObject().contains(s("subagentEntryCount")));

        r = rest.get(s("history"), query({{s("sessionId"), kBashSession}}));
        QCOMPARE(r.object().value(s("sessionId")).toString(), kBashSession);
        QCOMPARE(r.object().value(s("totalCount")).toInt(), 5);
    }

    void restSessionsAndCurrentSession() {
        Rest rest;
        QVERIFY(rest.start());
        QVERIFY(rest.installFixture());
        HttpResponse r = rest.get(s("sessions"));
        QCOMPARE(r.status, 200);
        QJsonArray list = r.object().value(s("sessions")).toArray();
        QCOMPARE(list.size(), 2);
        QCOMPARE(list[0].toObject().value(s("sessionId")).toString(), kMainSession);
        QCOMPARE(list[0].toObject().value(s("messageCount")).toInt(), 9);
        QCOMPARE(list[0].toObject().value(s("sizeBytes")).toInteger(),
                 QFileInfo(rest.projectDir + s("/%1.jsonl").arg(kMainSession)).size());
        QCOMPARE(list[1].toObject().value(s("messageCount")).toInt(), 5);
        QVERIFY(list[0].toObject().value(s("lastModified")).toInteger() >
                list[1].toObject().value(s("lastModified")).toInteger());
        QCOMPARE(r.object().value(s("currentSessionId")).toString(), kMainSession);

        // The agent's own session wins over the newest file...
        rest.svc->app().agents().updateRuntime(rest.agentId,
                                               [](Agent &a) { a.sessionId = kBashSession; });
        QCOMPARE(rest.get(s("sessions")).object().value(s("currentSessionId")).toString(),
                 kBashSession);
        QCOMPARE(rest.get(s("history")).object().value(s("totalCount")).toInt(), 5);
        // ...even before the CLI has written it: empty, never another conversation.
        const QString fresh = s("11111111-2222-3333-4444-555555555555");
        rest.svc->app().agents().updateRuntime(rest.agentId,
                                               [&](Agent &a) { a.sessionId = fresh; });
        const QJsonObject o = rest.get(s("history")).object();
        QCOMPARE(o.value(s("sessionId")).toString(), fresh);
        QCOMPARE(o.value(s("totalCount")).toInt(), 0);
        QCOMPARE(o.value(s("messages")).toArray().size(), 0);
    }

    void restEmptyWithoutSessions() {
        Rest rest;
        QVERIFY(rest.start());
        QJsonObject o = rest.get(s("history")).object();
        QVERIFY(o.value(s("sessionId")).isNull());
        QCOMPARE(o.value(s("totalCount")).toInt(), 0);
        QCOMPARE(o.value(s("hasMore")).toBool(), false);
        QCOMPARE(o.value(s("messages")).toArray().size(), 0);
        o = rest.get(s("sessions")).object();
        QCOMPARE(o.value(s("sessions")).toArray().size(), 0);
        QVERIFY(o.value(s("currentSessionId")).isNull());
        o = rest.get(s("search"), query({{s("q"), s("x")}})).object();
        QCOMPARE(o.value(s("totalMatches")).toInt(), 0);
    }

    void restSearch() {
        Rest rest;
        QVERIFY(rest.start());
        QVERIFY(rest.installFixture());
        HttpResponse r = rest.get(s("search"), query({{s("q"), s("run_bash")}}));
        QCOMPARE(r.status, 200);
        QJsonObject o = r.object();
        QCOMPARE(o.value(s("sessionId")).toString(), kMainSession);
        QVERIFY(o.value(s("scannedBytes")).toInteger() > 0);
        const QJsonArray matches = o.value(s("matches")).toArray();
        QCOMPARE(o.value(s("totalMatches")).toInt(), matches.size());
        QVERIFY(matches.size() >= 2);
        qint64 previous = -1;
        for (const QJsonValue &v : matches) {
            const QJsonObject m = v.toObject();
            QVERIFY(m.value(s("content")).toString().contains(s("RUN_BASH")));
            const qint64 offset = m.value(s("offset")).toInteger();
            QVERIFY(offset > previous); // newest first
            previous = offset;
            // offset points history at exactly this entry
            const QJsonArray at =
                rest.get(s("history"), query({{s("offset"), QString::number(offset)},
                                              {s("limit"), s("1")},
                                              {s("includeSubagents"), s("false")}}))
                    .object()
                    .value(s("messages"))
                    .toArray();
            QCOMPARE(at.size(), 1);
            QCOMPARE(at[0].toObject().value(s("uuid")), m.value(s("uuid")));
        }
        o = rest.get(s("search"), query({{s("q"), s("SUBTASK")}, {s("limit"), s("1")}})).object();
        QCOMPARE(o.value(s("totalMatches")).toInt(), 1);
        QCOMPARE(o.value(s("matches")).toArray()[0].toObject().value(s("type")).toString(),
                 s("tool_use"));
        o = rest.get(s("search"),
                     query({{s("q"), s("\"echo hi\"")}, {s("sessionId"), kBashSession}}))
                .object(); // quotes: no byte prefilter, same answer
        QCOMPARE(o.value(s("totalMatches")).toInt(), 1);
        o = rest.get(s("search"), query({{s("q"), s("e")}, {s("limit"), s("3")}})).object();
        QCOMPARE(o.value(s("matches")).toArray().size(), 3);
        QVERIFY(o.value(s("totalMatches")).toInt() > 3);
    }

    void restGrowthAndDamageBetweenCalls() {
        Rest rest;
        QVERIFY(rest.start());
        Synthetic syn;
        syn.add(10);
        const QString file = rest.projectDir + s("/%1.jsonl").arg(kMainSession);
        QVERIFY(writeFile(file, syn.bytes, QIODevice::WriteOnly));
        QCOMPARE(rest.get(s("history")).object().value(s("totalCount")).toInt(), 12);
        QVERIFY(writeFile(file, QByteArray("garbage\n"), QIODevice::Append));
        const qsizetype old = syn.bytes.size();
        syn.add(5);
        QVERIFY(writeFile(file, syn.bytes.mid(old), QIODevice::Append));
        const QJsonObject o = rest.get(s("history"), query({{s("limit"), s("2")}})).object();
        QCOMPARE(o.value(s("totalCount")).toInt(), syn.contents.size());
        QCOMPARE(o.value(s("skippedLines")).toInt(), 1);
        const QJsonArray m = o.value(s("messages")).toArray();
        QCOMPARE(m[1].toObject().value(s("content")).toString(), syn.contents.last());
    }

    void restRefusals_data() {
        QTest::addColumn<QString>("route");
        QTest::addColumn<QString>("queryString");
        QTest::addColumn<bool>("unknownAgent");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        for (const char *route : {"history", "search", "sessions"})
            QTest::addRow("%s: unknown agent", route)
                << s(route) << s("q=x") << true << 404 << s("not_found");
        static const struct {
            const char *name, *route, *query;
            int status;
            const char *code;
        } rows[] = {
            {"limit not a number", "history", "limit=abc", 400, "wrong_type"},
            {"limit negative", "history", "limit=-1", 422, "invalid_value"},
            {"limit too big", "history", "limit=1001", 422, "invalid_value"},
            {"offset negative", "history", "offset=-5", 422, "invalid_value"},
            {"offset float", "history", "offset=1.5", 400, "wrong_type"},
            {"includeSubagents", "history", "includeSubagents=maybe", 400, "wrong_type"},
            {"subagent limit", "history", "subagentEntriesLimit=-1", 422, "invalid_value"},
            {"path in sessionId", "history", "sessionId=..%2F..%2Fetc%2Fpasswd", 422,
             "invalid_value"},
            {"empty sessionId", "history", "sessionId=", 422, "invalid_value"},
            {"unknown sessionId", "history", "sessionId=1e338c88-d394-419d-847a-430c5ccb9ad5", 404,
             "not_found"},
            {"search without q", "search", "", 400, "missing_field"},
            {"search blank q", "search", "q=%20", 400, "missing_field"},
            {"search limit 0", "search", "q=x&limit=0", 422, "invalid_value"},
            {"search path sessionId", "search", "q=x&sessionId=a/b", 422, "invalid_value"},
        };
        for (const auto &r : rows)
            QTest::newRow(r.name) << s(r.route) << s(r.query) << false << r.status << s(r.code);
        QTest::newRow("search q too long")
            << s("search") << s("q=") + QString(1001, u'x') << false << 422 << s("invalid_value");
    }
    void restRefusals() {
        QFETCH(QString, route);
        QFETCH(QString, queryString);
        QFETCH(bool, unknownAgent);
        QFETCH(int, status);
        QFETCH(QString, code);
        Rest rest;
        QVERIFY(rest.start());
        const HttpResponse r =
            rest.get(route, QUrlQuery(queryString), unknownAgent ? s("no-such-agent") : QString());
        QCOMPARE(r.status, status);
        QCOMPARE(r.object().value(s("code")).toString(), code);
        QVERIFY(!r.object().value(s("error")).toString().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestHistory)
#include "tst_history.moc"
