// The web page in a real browser: headless Chromium (tests/web/browser_driver.py
// drives it with Selenium) against the real service in this process, its agents running the
// pinned Claude Code CLI against the mock model. The page is used as a person would on a phone:
// a wrong token, sign-in, the agents and their filter, a conversation streamed delta by delta
// with hostile markdown that must stay inert, MCP tool calls as "Flotilla · report_task" rows
// (a failed one marked), a permission request granted from the inbox (once,
// then remembered as a rule), a notification, an exec task killed, and the clear screens after a
// service restart and a rotated token. Usage and budgets on the page: tst_web_usage.
// Screenshots (phone 360 px, desktop 1280 px) go to <build>/screenshots.

#include "support/AgentRig.h"
#include "support/BrowserBridge.h"
#include "support/HistoryFixtures.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
const QByteArray kToken = QByteArrayLiteral("browser-suite-token-5f1c");
} // namespace

class TestWebBrowser : public QObject {
    Q_OBJECT

    std::unique_ptr<AgentRig> m_rig;
    Browser m_browser;
    QString m_otherId;
    QNetworkAccessManager m_nam;

    QJsonArray rules() {
        return m_rig->http.get(m_rig->svc->url(QStringLiteral("/api/permission-rules")))
            .object()
            .value(QStringLiteral("rules"))
            .toArray();
    }

private Q_SLOTS:
    void initTestCase() {
        for (const char *tool : {"/usr/bin/chromium", "/usr/bin/chromedriver"})
            QVERIFY2(QFile::exists(QString::fromLatin1(tool)),
                     "Debian's chromium and chromium-driver are needed: scripts/install-deps.sh");
        m_rig = std::make_unique<AgentRig>([](ServerConfig &c) { c.authToken = kToken; });
        QVERIFY(m_rig->start());
        const HttpResponse other = m_rig->createAgent(QStringLiteral("reviewer"));
        QCOMPARE(other.status, 201);
        m_otherId = other.object().value(QStringLiteral("id")).toString();
        QString error;
        QVERIFY2(m_browser.start(m_rig->svc->url(QStringLiteral("/")), {}, &error),
                 qPrintable(error));
    }

    void cleanupTestCase() {
        QJsonValue logs;
        if (m_browser.run(QStringLiteral("logs"), {}, &logs)) {
            for (const QJsonValue &line : logs.toArray()) {
                // The page logs nothing itself; a CSP violation or an exception would show here.
                QVERIFY2(!line.toString().contains(QLatin1String("Content Security Policy")),
                         qPrintable(line.toString()));
                QVERIFY2(!line.toString().contains(QLatin1String("Uncaught")),
                         qPrintable(line.toString()));
            }
        }
        m_browser.quit();
    }

    void wrongTokenShowsTheSignInError() {
        QVERIFY2(m_browser.run(QStringLiteral("open"),
                               args({{QStringLiteral("path"), QStringLiteral("/")},
                                     {QStringLiteral("width"), Browser::kPhoneWidth},
                                     {QStringLiteral("height"), Browser::kPhoneHeight},
                                     {QStringLiteral("mobile"), true},
                                     {QStringLiteral("clearStorage"), true}})),
                 qPrintable(m_browser.lastError()));
        QVERIFY2(m_browser.waitJs(QStringLiteral("return document.getElementById('signin-form')")),
                 qPrintable(m_browser.lastError()));
        QVERIFY(m_browser.typeInto(QStringLiteral("#token"), QStringLiteral("not-the-token\n")));
        const QString shown = m_browser.signInError(10);
        QVERIFY2(shown.startsWith(QLatin1String("Wrong token")), qPrintable(shown));
        QVERIFY(m_browser.eval(QStringLiteral("return localStorage.getItem('flotilla.token')"))
                    .isNull());
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-signin-wrong-token")));
    }

    void signInShowsTheAgents() {
        QVERIFY(
            m_browser.typeInto(QStringLiteral("#token"), QString::fromLatin1(kToken + "\n"), true));
        QVERIFY2(m_browser.waitJs(QStringLiteral(
                     "return document.querySelectorAll('#agent-list li.agent').length === 2")),
                 qPrintable(m_browser.lastError()));
        QCOMPARE(m_browser.eval(QStringLiteral("return localStorage.getItem('flotilla.token')"))
                     .toString(),
                 QString::fromLatin1(kToken));
        const QString text =
            m_browser.eval(QStringLiteral("return document.getElementById('agent-list').innerText"))
                .toString();
        QVERIFY2(text.contains(QLatin1String("agent-1")) &&
                     text.contains(QLatin1String("reviewer")),
                 qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Idle")) && text.contains(QLatin1String("claude")),
                 qPrintable(text));
        // The filter.
        QVERIFY(m_browser.typeInto(QStringLiteral("#agent-filter"), QStringLiteral("review")));
        QVERIFY(m_browser.waitJs(
            QStringLiteral("const rows = document.querySelectorAll('#agent-list li.agent');"
                           "return rows.length === 1 && rows[0].dataset.id === '%1'")
                .arg(m_otherId)));
        QVERIFY(m_browser.typeInto(QStringLiteral("#agent-filter"), QStringLiteral(" "), true));
        QVERIFY(m_browser.waitJs(QStringLiteral(
            "return document.querySelectorAll('#agent-list li.agent').length === 2")));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-agents")));
        QVERIFY(m_browser.desktop());
        QVERIFY(m_browser.screenshot(QStringLiteral("desktop-agents")));
        QVERIFY(m_browser.phone());
    }

    void conversationStreamsAndStaysInert() {
        // Deltas far enough apart to be seen one by one; markdown, raw HTML and a javascript:
        // link that must all arrive as text.
        const QStringList pieces{
            QStringLiteral("Here is **the plan**"),
            QStringLiteral(" with `make check`:"),
            QStringLiteral("\n\n- first step\n- second step\n\n"),
            QStringLiteral("<script>window.__pwned = 1</script>"),
            QStringLiteral(" <img src=x onerror=\"window.__pwned = 2\">\n\n"),
            QStringLiteral("[run me](javascript:window.__pwned=3) and "),
            QStringLiteral("[the docs](https://example.org/docs). All done."),
        };
        m_rig->mock.queueDeltas(pieces, 150);
        QVERIFY(m_browser.run(
            QStringLiteral("click"),
            args({{QStringLiteral("css"),
                   QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(m_rig->agentId)}})));
        QVERIFY(m_browser.waitJs(QStringLiteral("return document.getElementById('transcript')")));
        // Record what the streaming reply shows after each change of the page.
        QVERIFY(m_browser
                    .eval(QStringLiteral(
                        "window.__shown = [];"
                        "new MutationObserver(() => {"
                        "  const b = document.querySelector('.msg.assistant.streaming .body');"
                        "  if (b && b.textContent && window.__shown[window.__shown.length - 1] "
                        "!== b.textContent)"
                        "    window.__shown.push(b.textContent);"
                        "}).observe(document.getElementById('transcript'),"
                        "  {subtree: true, childList: true, characterData: true});"
                        "return true"))
                    .toBool());
        QVERIFY(
            m_browser.typeInto(QStringLiteral("#message"), QStringLiteral("What is the plan?")));
        QVERIFY(m_browser.run(QStringLiteral("click"),
                              args({{QStringLiteral("css"), QStringLiteral("#send")}})));
        QVERIFY2(m_browser.waitJs(
                     QStringLiteral("const m = [...document.querySelectorAll('.msg.assistant')];"
                                    "return !document.querySelector('.msg.streaming') &&"
                                    " m.some((x) => x.textContent.includes('All done.'))"),
                     90),
                 qPrintable(m_browser.lastError()));
        QVERIFY(m_rig->waitTurns(1, 30000));
        QCOMPARE(m_rig->mock.lastUserTextOf(0).endsWith(QLatin1String("What is the plan?")), true);

        // Streamed: the reply appeared on screen in several steps before it was complete (each
        // step re-rendered as markdown, so an earlier one need not be a prefix of the next).
        const QJsonArray shown = m_browser.eval(QStringLiteral("return window.__shown")).toArray();
        QVERIFY2(shown.size() >= 3, qPrintable(QString::number(shown.size())));
        QVERIFY2(shown.first().toString().startsWith(QLatin1String("Here is")),
                 QJsonDocument(shown).toJson().constData());
        QVERIFY(!shown.first().toString().contains(QLatin1String("second step")));
        QVERIFY(!shown.first().toString().contains(QLatin1String("All done.")));

        // Rendered: bold, inline code, a list, one safe link.
        const QString reply = QStringLiteral("const r = [...document.querySelectorAll("
                                             "'.msg.assistant')].pop();");
        QCOMPARE(
            m_browser.eval(reply + QStringLiteral("return r.querySelector('strong').textContent"))
                .toString(),
            QStringLiteral("the plan"));
        QCOMPARE(
            m_browser.eval(reply + QStringLiteral("return r.querySelector('code').textContent"))
                .toString(),
            QStringLiteral("make check"));
        QCOMPARE(m_browser.eval(reply + QStringLiteral("return r.querySelectorAll('li').length"))
                     .toInt(),
                 2);
        QCOMPARE(
            m_browser
                .eval(reply + QStringLiteral("const a = r.querySelectorAll('a');"
                                             "return a.length === 1 && a[0].href + ' ' + a[0].rel"))
                .toString(),
            QStringLiteral("https://example.org/docs noopener noreferrer nofollow"));
        // Inert: no script ran, nothing was parsed as HTML, the javascript: link is only text.
        QVERIFY(m_browser.eval(QStringLiteral("return window.__pwned === undefined")).toBool());
        QCOMPARE(m_browser
                     .eval(QStringLiteral(
                         "return document.querySelectorAll('#transcript script, #transcript img,"
                         " #transcript [onerror], a[href^=\"javascript\" i]').length"))
                     .toInt(),
                 0);
        const QString text =
            m_browser.eval(reply + QStringLiteral("return r.textContent")).toString();
        QVERIFY2(text.contains(QLatin1String("<script>window.__pwned = 1</script>")),
                 qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("run me (javascript:window.__pwned=3)")),
                 qPrintable(text));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-conversation")));
        QVERIFY(m_browser.desktop());
        QVERIFY(m_browser.screenshot(QStringLiteral("desktop-conversation")));
        QVERIFY(m_browser.phone());
    }

    void historyIsShownWhenTheConversationOpens() {
        // Reopened, the conversation comes from the history route (the CLI's session file).
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        QVERIFY(m_browser.run(
            QStringLiteral("click"),
            args({{QStringLiteral("css"),
                   QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(m_rig->agentId)}})));
        QVERIFY2(m_browser.waitJs(QStringLiteral(
                     "const t = document.getElementById('transcript');"
                     "return t && t.querySelector('.msg.user') &&"
                     " t.querySelector('.msg.user').textContent.includes('What is the plan?') &&"
                     " [...t.querySelectorAll('.msg.assistant')].some((m) =>"
                     "   m.textContent.includes('All done.'))")),
                 qPrintable(m_browser.lastError()));
        QVERIFY(m_browser.eval(QStringLiteral("return window.__pwned === undefined")).toBool());
    }

    void historyPagesOnScrollUp() {
        // An agent whose project has a long conversation on disk: 100 entries, e0 .. e99.
        const QString cwd = m_rig->svc->workDir() + QStringLiteral("/long-project");
        QVERIFY(QDir().mkpath(cwd));
        QByteArray session;
        for (int i = 0; i < 100; ++i) {
            const QString text = QStringLiteral("entry e%1").arg(i);
            session +=
                jsonLine(convLine(i % 2 ? QStringLiteral("assistant") : QStringLiteral("user"),
                                  QStringLiteral("u%1").arg(i), text));
        }
        const QString dir =
            m_rig->home + QStringLiteral("/.claude/projects/") + claude::encodeProjectDirName(cwd);
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(writeFile(dir + QStringLiteral("/7d1f0c2e-5b7a-4c1e-9a37-2f1d8e6b4a10.jsonl"),
                          session, QIODevice::WriteOnly));
        const HttpResponse created =
            m_rig->createAgent(QStringLiteral("historian"), {{QStringLiteral("cwd"), cwd}});
        QCOMPARE(created.status, 201);
        const QString id = created.object().value(QStringLiteral("id")).toString();

        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        QVERIFY(
            m_browser.run(QStringLiteral("click"),
                          args({{QStringLiteral("css"),
                                 QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(id)}})));
        // The newest page first, scrolled to the bottom.
        const QString has =
            QStringLiteral("return [...document.querySelectorAll('#transcript .msg')].some((m) =>"
                           " m.textContent.startsWith('entry e%1'))");
        QVERIFY2(m_browser.waitJs(has.arg(99)), qPrintable(m_browser.lastError()));
        QVERIFY(!m_browser.eval(has.arg(59)).toBool());
        // Scrolling up loads the older pages, above what is shown, until the first entry.
        const QString scrollUp =
            QStringLiteral("const t = document.getElementById('transcript');"
                           "t.scrollTop = 0; t.dispatchEvent(new Event('scroll'));"
                           "return true");
        for (int i = 0; i < 10 && !m_browser.eval(has.arg(0)).toBool(); ++i) {
            QVERIFY(m_browser.eval(scrollUp).toBool());
            QTest::qWait(200);
        }
        QVERIFY2(m_browser.waitJs(has.arg(0)), qPrintable(m_browser.lastError()));
        QVERIFY(
            m_browser.waitJs(QStringLiteral("return document.querySelector('#transcript .older')"
                                            ".textContent === 'Start of the conversation'")));
        const QJsonArray order =
            m_browser
                .eval(QStringLiteral("return [...document.querySelectorAll('#transcript .msg"
                                     " .body')].map((b) => b.textContent)"))
                .toArray();
        QCOMPARE(order.size(), 100);
        for (int i = 0; i < 100; ++i)
            QCOMPARE(order[i].toString(), QStringLiteral("entry e%1").arg(i));
    }

    void mcpToolCallsReadAsServerAndTool() {
        // A conversation on disk in which the agent called flotillad's MCP tools: report_task
        // answered, notify refused with the tool's error (is_error).
        const QString cwd = m_rig->svc->workDir() + QStringLiteral("/mcp-project");
        QVERIFY(QDir().mkpath(cwd));
        const auto use = [](const QString &id, const QString &tool, const QJsonObject &input) {
            return jsonLine(convLine(
                QStringLiteral("assistant"), id + QStringLiteral("-use"),
                QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                       {QStringLiteral("id"), id},
                                       {QStringLiteral("name"), tool},
                                       {QStringLiteral("input"), input}}}));
        };
        const auto result = [](const QString &id, const QString &text, bool isError) {
            const QJsonArray content{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                                 {QStringLiteral("text"), text}}};
            return jsonLine(convLine(
                QStringLiteral("user"), id + QStringLiteral("-result"),
                QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_result")},
                                       {QStringLiteral("tool_use_id"), id},
                                       {QStringLiteral("content"), content},
                                       {QStringLiteral("is_error"), isError}}}));
        };
        const QByteArray session =
            jsonLine(convLine(QStringLiteral("user"), QStringLiteral("m0"),
                              QStringLiteral("Report when done"))) +
            use(QStringLiteral("toolu_r1"), QStringLiteral("mcp__flotilla__report_task"),
                {{QStringLiteral("status"), QStringLiteral("completed")},
                 {QStringLiteral("summary"), QStringLiteral("Parser shipped\nTests pass")}}) +
            result(QStringLiteral("toolu_r1"), QStringLiteral("{\"ok\":true}"), false) +
            use(QStringLiteral("toolu_n1"), QStringLiteral("mcp__flotilla__notify"),
                {{QStringLiteral("title"), QString()}}) +
            result(QStringLiteral("toolu_n1"), QStringLiteral("title is required"), true);
        const QString dir =
            m_rig->home + QStringLiteral("/.claude/projects/") + claude::encodeProjectDirName(cwd);
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(writeFile(dir + QStringLiteral("/3c9a6f0e-2b1d-4e7a-8f5c-6d0b1a2e3f47.jsonl"),
                          session, QIODevice::WriteOnly));
        const HttpResponse created =
            m_rig->createAgent(QStringLiteral("reporter"), {{QStringLiteral("cwd"), cwd}});
        QCOMPARE(created.status, 201);
        const QString id = created.object().value(QStringLiteral("id")).toString();

        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        QVERIFY(
            m_browser.run(QStringLiteral("click"),
                          args({{QStringLiteral("css"),
                                 QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(id)}})));
        const QString rows = QStringLiteral(
            "return [...document.querySelectorAll('#transcript details.tool')].map((d) => ({"
            " summary: d.querySelector('summary').textContent,"
            " output: d.querySelector('.tool-output').textContent,"
            " failed: d.classList.contains('failed')}))");
        QVERIFY2(m_browser.waitJs(rows + QStringLiteral(".length === 2")),
                 qPrintable(m_browser.lastError()));
        const QJsonArray shown = m_browser.eval(rows).toArray();
        const QJsonObject report = shown[0].toObject();
        QCOMPARE(report.value(QStringLiteral("summary")).toString(),
                 QStringLiteral("Flotilla \u00b7 report_task completed \u00b7 Parser shipped"));
        QCOMPARE(report.value(QStringLiteral("output")).toString(),
                 QStringLiteral("{\"ok\":true}"));
        QVERIFY(!report.value(QStringLiteral("failed")).toBool());
        const QJsonObject notify = shown[1].toObject();
        QCOMPARE(notify.value(QStringLiteral("summary")).toString(),
                 QStringLiteral("Flotilla \u00b7 notify"));
        QCOMPARE(notify.value(QStringLiteral("output")).toString(),
                 QStringLiteral("title is required"));
        QVERIFY(notify.value(QStringLiteral("failed")).toBool());
        // The later rows count the agents the suite made.
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        QCOMPARE(m_rig->http.del(m_rig->svc->url(QStringLiteral("/api/agents/") + id)).status, 204);
    }

    void grantFromTheInbox() {
        m_rig->model().queueCommand(QStringLiteral("touch granted-in-browser.txt"));
        m_rig->model().queueText(QStringLiteral("The file is there."));
        QCOMPARE(m_rig->send(QStringLiteral("Create the marker")).status, 200);
        QVERIFY(m_browser.clickNav(QStringLiteral("inbox")));
        QVERIFY2(m_browser.waitJs(
                     QStringLiteral("const r = document.querySelector('#request-list .request');"
                                    "return r && r.textContent.includes("
                                    "'touch granted-in-browser.txt')"),
                     60),
                 qPrintable(m_browser.lastError()));
        QCOMPARE(
            m_browser
                .eval(QStringLiteral("return document.getElementById('count-inbox').textContent"))
                .toString(),
            QStringLiteral("1"));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-inbox")));
        QVERIFY(m_browser.run(
            QStringLiteral("click"),
            args({{QStringLiteral("css"), QStringLiteral("#request-list .request .grant")}})));
        QTRY_VERIFY_WITH_TIMEOUT(
            QFile::exists(m_rig->cwd + QStringLiteral("/granted-in-browser.txt")), 30000);
        QVERIFY(m_browser.waitJs(QStringLiteral(
            "return document.querySelectorAll('#request-list .request').length === 0 &&"
            " document.getElementById('count-inbox').hidden")));
        QVERIFY(m_rig->waitTurns(2, 30000));
        QCOMPARE(rules().size(), 0); // "just this once"
    }

    void rememberTheAnswerAsARule() {
        m_rig->model().queueCommand(QStringLiteral("touch remembered.txt"));
        m_rig->model().queueText(QStringLiteral("Remembered."));
        QCOMPARE(m_rig->send(QStringLiteral("Another marker")).status, 200);
        QVERIFY2(m_browser.waitJs(
                     QStringLiteral("const r = document.querySelector('#request-list .request');"
                                    "return r && r.textContent.includes('touch remembered.txt')"),
                     60),
                 qPrintable(m_browser.lastError()));
        QVERIFY(m_browser.run(
            QStringLiteral("select"),
            args({{QStringLiteral("css"), QStringLiteral("#request-list .request .remember")},
                  {QStringLiteral("value"), QStringLiteral("agent")}})));
        QVERIFY(m_browser.run(
            QStringLiteral("click"),
            args({{QStringLiteral("css"), QStringLiteral("#request-list .request .grant")}})));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(m_rig->cwd + QStringLiteral("/remembered.txt")),
                                 30000);
        QVERIFY(m_rig->waitTurns(3, 30000));
        const QJsonArray stored = rules();
        QCOMPARE(stored.size(), 1);
        const QJsonObject rule = stored.first().toObject();
        QCOMPARE(rule.value(QStringLiteral("pattern")).toString(),
                 QStringLiteral("touch remembered.txt"));
        QCOMPARE(rule.value(QStringLiteral("scope")).toObject().value(QStringLiteral("agentId")),
                 QJsonValue(m_rig->agentId));
        QCOMPARE(rule.value(QStringLiteral("source")).toString(), QStringLiteral("remember"));
    }

    void notificationShowsUp() {
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        const HttpResponse r = m_rig->post(
            QStringLiteral("/api/notify"),
            {{QStringLiteral("agentId"), m_otherId},
             {QStringLiteral("title"), QStringLiteral("Review finished")},
             {QStringLiteral("message"), QStringLiteral("<b>3 comments</b>, all minor")}});
        QCOMPARE(r.status, 201);
        QVERIFY2(m_browser.waitJs(QStringLiteral(
                     "const t = [...document.querySelectorAll('.toast')];"
                     "return t.some((x) => x.textContent.includes('Review finished')) &&"
                     " document.getElementById('count-notifications').textContent === '1'")),
                 qPrintable(m_browser.lastError()));
        QVERIFY(m_browser.clickNav(QStringLiteral("notifications")));
        QVERIFY(m_browser.waitJs(QStringLiteral(
            "const n = document.querySelector('#notification-list .notification');"
            "return n && n.textContent.includes('Review finished') &&"
            " n.textContent.includes('<b>3 comments</b>, all minor') && !n.querySelector('b') &&"
            " document.getElementById('count-notifications').hidden")));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-notifications")));
    }

    void killAnExecTask() {
        QNetworkRequest request(m_rig->svc->url(QStringLiteral("/api/exec")));
        request.setHeader(QNetworkRequest::ContentTypeHeader,
                          QByteArrayLiteral("application/json"));
        request.setRawHeader("X-Auth-Token", kToken);
        QNetworkReply *reply = m_nam.post(
            request,
            QJsonDocument(QJsonObject{{QStringLiteral("agentId"), m_rig->agentId},
                                      {QStringLiteral("command"),
                                       QStringLiteral("echo started-by-the-test; sleep 60")}})
                .toJson(QJsonDocument::Compact));
        QVERIFY(m_browser.clickNav(QStringLiteral("tasks")));
        QVERIFY2(m_browser.waitJs(QStringLiteral(
                     "const t = document.querySelector('#task-list .task[data-running=\"1\"]');"
                     "return t && t.querySelector('.task-output').textContent.includes("
                     "'started-by-the-test') &&"
                     " document.getElementById('count-tasks').textContent === '1'")),
                 qPrintable(m_browser.lastError()));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-tasks")));
        QVERIFY(
            m_browser.run(QStringLiteral("click"),
                          args({{QStringLiteral("css"),
                                 QStringLiteral("#task-list .task[data-running=\"1\"] .kill")}})));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 15000);
        const QJsonObject result = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        QCOMPARE(result.value(QStringLiteral("killed")).toBool(), true);
        QVERIFY(m_browser.waitJs(QStringLiteral(
            "const t = document.querySelector('#task-list .task[data-running=\"0\"]');"
            "return t && t.textContent.includes('Killed') &&"
            " document.getElementById('count-tasks').hidden")));
    }

    void restartShowsAClearScreenThenReconnects() {
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        // The same port again, as a restarted service would have.
        m_rig->svc->config().port = m_rig->svc->port();
        m_rig->ws.reset();
        m_rig->svc->stop();
        QVERIFY2(
            m_browser.waitJs(QStringLiteral("return document.getElementById('connection-screen') &&"
                                            " !document.getElementById('agent-list')")),
            qPrintable(m_browser.lastError()));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-connection-lost")));
        QVERIFY(m_rig->svc->start());
        QVERIFY2(
            m_browser.waitJs(
                QStringLiteral("return document.body.dataset.phase === 'ready' &&"
                               " document.querySelectorAll('#agent-list li.agent').length === 3"),
                30),
            qPrintable(m_browser.lastError()));
    }

    void aRotatedTokenAsksToSignInAgain() {
        m_rig->svc->stop();
        m_rig->svc->config().authToken = QByteArrayLiteral("rotated-token-91aa");
        QVERIFY(m_rig->svc->start());
        const QString why = m_browser.signInError(30);
        QVERIFY2(why.contains(QLatin1String("no longer accepts")), qPrintable(why));
        QVERIFY(
            m_browser.typeInto(QStringLiteral("#token"), QStringLiteral("rotated-token-91aa\n")));
        QVERIFY(m_browser.waitJs(QStringLiteral(
            "return document.querySelectorAll('#agent-list li.agent').length === 3")));
    }
};

QTEST_GUILESS_MAIN(TestWebBrowser)
#include "tst_web_browser.moc"
