// The page shows what a request will change and renders replies as the monitor does,
// in a real browser: headless Chromium (tests/web/browser_driver.py) against the real service in
// this process, its agent the pinned Claude Code CLI against the mock model. A pending Write's
// inbox card shows the content it will write, folded after 20 lines; a Bash request its command;
// a reply with a GitHub-style table renders a <table> whose cells are text only. Screenshots (phone
// and desktop) go to <build>/screenshots.

#include "support/AgentRig.h"
#include "support/BrowserBridge.h"

#include <QFile>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
const QByteArray kToken = QByteArrayLiteral("replies-suite-token-31c5");
} // namespace

class TestWebReplies : public QObject {
    Q_OBJECT

    std::unique_ptr<AgentRig> m_rig;
    Browser m_browser;
    int m_turns = 0;

    QString js(const QString &expression) {
        return m_browser.eval(QStringLiteral("return ") + expression).toString();
    }
    bool denyTheRequest() {
        return m_browser.run(QStringLiteral("click"),
                             args({{QStringLiteral("css"),
                                    QStringLiteral("#request-list .request .deny")}})) &&
               m_rig->waitTurns(++m_turns, 60000);
    }

private Q_SLOTS:
    void initTestCase() {
        m_rig = std::make_unique<AgentRig>([](ServerConfig &c) { c.authToken = kToken; });
        QVERIFY(m_rig->start());
        QString error;
        QVERIFY2(m_browser.startSignedIn(m_rig->svc->url(QStringLiteral("/")), kToken, 1, &error),
                 qPrintable(error));
    }

    void cleanupTestCase() { m_browser.quit(); }

    void writeRequestShowsItsContent() {
        QStringList content;
        for (int i = 1; i <= 25; ++i)
            content << QStringLiteral("line %1 <b>not bold</b>").arg(i);
        m_rig->mock.queueToolUse(
            QStringLiteral("Write"),
            {{QStringLiteral("file_path"), QString(m_rig->cwd + QStringLiteral("/notes.md"))},
             {QStringLiteral("content"), content.join(QLatin1Char('\n'))}});
        m_rig->model().queueText(QStringLiteral("Not written."));
        QCOMPARE(m_rig->send(QStringLiteral("Write the notes")).status, 200);
        QVERIFY(m_browser.clickNav(QStringLiteral("inbox")));
        QVERIFY2(m_browser.waitJs(QStringLiteral("return document.querySelector("
                                                 "'#request-list .request .change pre.diff')"),
                                  60),
                 qPrintable(m_browser.lastError()));
        const QString card = QStringLiteral("document.querySelector('#request-list .request')");
        // The file, then its first 19 lines as added lines; the rest folded.
        QCOMPARE(js(card + QStringLiteral(".querySelector('.diff-file').textContent")),
                 QString(m_rig->cwd + QStringLiteral("/notes.md")));
        QCOMPARE(js(card + QStringLiteral(".querySelector('.change > pre .diff-add').textContent")),
                 QStringLiteral("+line 1 <b>not bold</b>"));
        QCOMPARE(js(QStringLiteral("String(") + card +
                    QStringLiteral(".querySelectorAll('.change > pre .diff-add').length)")),
                 QStringLiteral("19"));
        QCOMPARE(js(card + QStringLiteral(".querySelector('.change-rest summary').textContent")),
                 QStringLiteral("Show all 26 lines"));
        QCOMPARE(
            js(QStringLiteral("String(") + card + QStringLiteral(".querySelectorAll('b').length)")),
            QStringLiteral("0"));
        QVERIFY(m_browser.phone());
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-inbox-write")));
        QVERIFY(denyTheRequest());
        QVERIFY(!QFile::exists(m_rig->cwd + QStringLiteral("/notes.md")));
    }

    void bashRequestShowsItsCommand() {
        m_rig->model().queueCommand(QStringLiteral("rm -rf build && make -j4"));
        m_rig->model().queueText(QStringLiteral("Not run."));
        QCOMPARE(m_rig->send(QStringLiteral("Rebuild")).status, 200);
        QVERIFY(m_browser.clickNav(QStringLiteral("inbox")));
        QVERIFY2(m_browser.waitJs(
                     QStringLiteral("const p = document.querySelector('#request-list .request "
                                    "pre.command'); return p && p.textContent === "
                                    "'rm -rf build && make -j4'"),
                     60),
                 qPrintable(m_browser.lastError()));
        QVERIFY(denyTheRequest());
    }

    void tablesRenderAsTables() {
        const QString reply =
            QStringLiteral("Changed files:\n\n"
                           "| File | Change | Lines |\n"
                           "|:-----|:------:|------:|\n"
                           "| `src/a.cpp` | **renamed** `x \\| y` | 12 |\n"
                           "| <script>alert(1)</script> | <img src=x onerror=alert(2)> | 3 |\n"
                           "\nDone.");
        m_rig->model().queueText(reply);
        QCOMPARE(m_rig->send(QStringLiteral("Summarise")).status, 200);
        QVERIFY(m_rig->waitTurns(++m_turns, 60000));
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        QVERIFY(m_browser.run(
            QStringLiteral("click"),
            args({{QStringLiteral("css"),
                   QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(m_rig->agentId)}})));
        QVERIFY2(
            m_browser.waitJs(QStringLiteral(
                "return document.querySelectorAll('.msg.assistant .table-wrap table').length")),
            qPrintable(m_browser.lastError()));
        const QString table = QStringLiteral(
            "[...document.querySelectorAll('.msg.assistant .table-wrap table')].pop()");
        QCOMPARE(js(QStringLiteral("[...") + table +
                    QStringLiteral(".querySelectorAll('th')].map((c) => c.textContent).join('|')")),
                 QStringLiteral("File|Change|Lines"));
        QCOMPARE(js(QStringLiteral("[...") + table +
                    QStringLiteral(".querySelectorAll('tbody tr')[0].children].map((c) => "
                                   "c.textContent).join('|')")),
                 QStringLiteral("src/a.cpp|renamed x | y|12"));
        QCOMPARE(js(table + QStringLiteral(".querySelector('tbody td code').textContent")),
                 QStringLiteral("src/a.cpp"));
        QCOMPARE(js(table + QStringLiteral(".querySelector('tbody td strong').textContent")),
                 QStringLiteral("renamed"));
        QCOMPARE(js(table + QStringLiteral(".querySelectorAll('th')[1].className")),
                 QStringLiteral("align-center"));
        QCOMPARE(js(table + QStringLiteral(".querySelectorAll('th')[2].className")),
                 QStringLiteral("align-right"));
        // What the reply wrote as HTML stays text.
        QCOMPARE(
            js(table + QStringLiteral(".querySelectorAll('tbody tr')[1].children[0].textContent")),
            QStringLiteral("<script>alert(1)</script>"));
        QCOMPARE(
            js(QStringLiteral("String(document.querySelectorAll('.msg script, .msg img').length)")),
            QStringLiteral("0"));
        QVERIFY(m_browser.phone());
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-reply-table")));
        QVERIFY(m_browser.desktop());
        QVERIFY(m_browser.screenshot(QStringLiteral("desktop-reply-table")));
    }
};

QTEST_GUILESS_MAIN(TestWebReplies)
#include "tst_web_replies.moc"
