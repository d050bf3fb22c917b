// Conversation history through the real in-process service: entries from real Claude Code CLI
// sessions (tests/data/history), and the history, search and sessions routes.

#include "support/HistoryFixtures.h"

using namespace flotilla;
using namespace flotilla::history;
using namespace flotilla::test;

class TestHistoryRest final : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString path(const QString &name) const { return m_tmp.filePath(name); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void entriesFromRealCliSessions() {
        const QString data = QFINDTESTDATA("data/history");
        QVERIFY(!data.isEmpty());
        SessionIndex bash(data + s("/%1.jsonl").arg(kBashSession), false, claude::scanSessionLine);
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
        SessionIndex main(data + s("/%1.jsonl").arg(kMainSession), false, claude::scanSessionLine);
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

        const auto subagents = claude::subagentFiles(data + s("/%1.jsonl").arg(kMainSession));
        QCOMPARE(subagents.keys(), QStringList{kTaskToolUse});
        QCOMPARE(SessionIndex(subagents.value(kTaskToolUse), true, claude::scanSessionLine)
                     .refresh()
                     ->entries,
                 5);
        QCOMPARE(SessionIndex(subagents.value(kTaskToolUse), false, claude::scanSessionLine)
                     .refresh()
                     ->entries,
                 0);
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

QTEST_GUILESS_MAIN(TestHistoryRest)
#include "tst_history_rest.moc"
