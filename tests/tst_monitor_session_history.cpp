// History paging through MonitorSession against the real service (in-process, with a
// synthetic CLI session file): pages go on top of the TranscriptModel, oldest first, without
// gaps or repeats, also when the conversation grows between two pages.

#include "core/HistoryConvert.h"
#include "core/MonitorSession.h"
#include "support/HistoryFixtures.h"
#include "support/MonitorFixture.h"

#include <QJsonDocument>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

using namespace flotilla::test;
using namespace flotilla::monitor;

namespace {

// Each synthetic entry as a line: user and assistant text as they are, a tool call as
// "Bash  <input>".
QStringList expectedLines(const QStringList &contents) {
    QStringList out;
    for (const QString &c : contents) {
        if (c.startsWith(QLatin1Char('{')))
            out << QStringLiteral("Bash  ") + c;
        else
            out << c;
    }
    return out;
}

QStringList shown(const TranscriptModel &m) {
    QStringList out;
    for (int row = 0; row < m.rowCount(); ++row) {
        const TranscriptEntry &e = m.entry(row);
        if (e.kind == TranscriptEntry::Kind::Tool)
            out << e.toolName + QStringLiteral("  ") +
                       QString::fromUtf8(QJsonDocument(e.toolInput).toJson(QJsonDocument::Compact));
        else
            out << e.text;
    }
    return out;
}

} // namespace

class TestMonitorSessionHistory final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pagesGoOnTopWithoutGapsOrRepeats() {
        Rest rest;
        QVERIFY(rest.start());
        Synthetic syn;
        syn.add(100);
        const QString file = rest.projectDir + QStringLiteral("/%1.jsonl").arg(kMainSession);
        QVERIFY(writeFile(file, syn.bytes, QIODevice::WriteOnly));
        const QStringList before = syn.contents;
        QVERIFY(before.size() > 2 * MonitorSession::kHistoryPageSize);

        MonitorSession session;
        QSignalSpy resynced(&session, &MonitorSession::resynced);
        session.open({rest.svc->url(QString()), {}});
        QTRY_VERIFY(!resynced.isEmpty());

        TranscriptModel &out = session.conversation(rest.agentId);
        int pages = 0;
        bool more = true;
        while (more) {
            bool called = false;
            session.loadOlderHistory(rest.agentId, [&](bool hasMore) {
                called = true;
                more = hasMore;
            });
            QTRY_VERIFY(called);
            ++pages;
            QCOMPARE(shown(out), expectedLines(before).mid(before.size() - out.rowCount()));
            if (pages == 1) {
                // The agent keeps talking while the user scrolls back: newer entries must not
                // shift the next page into lines already shown.
                const qsizetype old = syn.bytes.size();
                syn.add(7);
                QVERIFY(writeFile(file, syn.bytes.mid(old), QIODevice::Append));
            }
            QVERIFY(pages < 10);
        }
        QCOMPARE(pages, int((before.size() + MonitorSession::kHistoryPageSize - 1) /
                            MonitorSession::kHistoryPageSize));
        QCOMPARE(shown(out), expectedLines(before));
        const QStringList all = shown(out);
        QCOMPARE(QSet<QString>(all.cbegin(), all.cend()).size(), out.rowCount());

        // Exhausted: further calls answer at once and add nothing.
        bool called = false;
        session.loadOlderHistory(rest.agentId, [&](bool hasMore) {
            called = true;
            more = hasMore;
        });
        QVERIFY(called);
        QVERIFY(!more);
        QCOMPARE(out.rowCount(), int(before.size()));
    }

    // Two requests while a page is on its way (a view scrolled twice): one page, two answers.
    void callersOfAPageInFlightShareIt() {
        Rest rest;
        QVERIFY(rest.start());
        Synthetic syn;
        syn.add(10);
        QVERIFY(writeFile(rest.projectDir + QStringLiteral("/%1.jsonl").arg(kMainSession),
                          syn.bytes, QIODevice::WriteOnly));
        MonitorSession session;
        QSignalSpy resynced(&session, &MonitorSession::resynced);
        session.open({rest.svc->url(QString()), {}});
        QTRY_VERIFY(!resynced.isEmpty());
        int answers = 0;
        session.loadOlderHistory(rest.agentId, [&](bool) { ++answers; });
        session.loadOlderHistory(rest.agentId, [&](bool) { ++answers; });
        QTRY_COMPARE(answers, 2);
        QCOMPARE(shown(session.conversation(rest.agentId)), expectedLines(syn.contents));

        // Deleting the agent answers a pending request instead of leaving it hanging.
        Rest other;
        QVERIFY(other.start());
        QVERIFY(writeFile(other.projectDir + QStringLiteral("/%1.jsonl").arg(kMainSession),
                          syn.bytes, QIODevice::WriteOnly));
        MonitorSession watcher;
        QSignalSpy synced(&watcher, &MonitorSession::resynced);
        watcher.open({other.svc->url(QString()), {}});
        QTRY_VERIFY(!synced.isEmpty());
        bool called = false;
        bool more = true;
        watcher.loadOlderHistory(other.agentId, [&](bool hasMore) {
            called = true;
            more = hasMore;
        });
        QCOMPARE(
            other.http->del(other.svc->url(QStringLiteral("/api/agents/") + other.agentId)).status,
            204);
        QTRY_VERIFY(called);
        QVERIFY(!more);
    }

    void noConversationYetIsNotTheEnd() {
        Rest rest;
        QVERIFY(rest.start());
        MonitorSession session;
        QSignalSpy resynced(&session, &MonitorSession::resynced);
        session.open({rest.svc->url(QString()), {}});
        QTRY_VERIFY(!resynced.isEmpty());
        bool called = false;
        bool more = true;
        session.loadOlderHistory(rest.agentId, [&](bool hasMore) {
            called = true;
            more = hasMore;
        });
        QTRY_VERIFY(called);
        QVERIFY(!more);
        QCOMPARE(session.conversation(rest.agentId).rowCount(), 0);

        // The conversation starts later: the next request finds it.
        Synthetic syn;
        syn.add(4);
        QVERIFY(writeFile(rest.projectDir + QStringLiteral("/%1.jsonl").arg(kMainSession),
                          syn.bytes, QIODevice::WriteOnly));
        called = false;
        session.loadOlderHistory(rest.agentId, [&](bool) { called = true; });
        QTRY_VERIFY(called);
        QCOMPARE(shown(session.conversation(rest.agentId)), expectedLines(syn.contents));
    }
};

QTEST_GUILESS_MAIN(TestMonitorSessionHistory)
#include "tst_monitor_session_history.moc"
