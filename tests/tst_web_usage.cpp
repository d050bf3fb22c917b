// Usage and budgets on the web page in a real browser: headless Chromium (Selenium,
// tests/web/browser_driver.py) against the real service in this process, its agent running the
// pinned Claude Code CLI against the mock model with scripted usage. After a real turn the agents
// list and the conversation's header show exactly what the service recorded; a lifetime token
// budget shows its use with a bar, a day budget what today used (GET /api/usage), a budget
// below what was used marks the agent in the list, and a stopped agent shows its process
// released. An agent's sandbox shows in the list and the header the same way, and a command's
// refused write gets a hint; a connection its allow-list refused is a line in its conversation
// (one for repeats in a turn) and a count in the list. Screenshots go to <build>/screenshots.

#include "protocol/SandboxNames.h"
#include "support/AgentRig.h"
#include "support/BrowserBridge.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTest>
#include <QUuid>

using namespace flotilla;
using namespace flotilla::test;

namespace {
const QByteArray kToken = QByteArrayLiteral("usage-suite-token-77ab");
} // namespace

#define WAIT_JS(js) QVERIFY2(m_browser.waitJs(js), qPrintable(m_browser.lastError()))
#define WAIT_JS_LONG(js, s) QVERIFY2(m_browser.waitJs(js, s), qPrintable(m_browser.lastError()))
#define CLICK(css)                                                                                 \
    QVERIFY2(m_browser.run(QStringLiteral("click"), args({{QStringLiteral("css"), css}})),         \
             qPrintable(m_browser.lastError()))

class TestWebUsage : public QObject {
    Q_OBJECT

    std::unique_ptr<AgentRig> m_rig;
    Browser m_browser;

    qint64 usageNumber(const char *key) {
        return qint64(m_rig->agent()
                          .value(QStringLiteral("usage"))
                          .toObject()
                          .value(QLatin1String(key))
                          .toDouble());
    }
    // As the page writes token counts and dollars (dom.js formatTokens, formatUsd).
    static QString compact(qint64 n) {
        if (n >= 1'000'000)
            return QString::number(double(n) / 1e6, 'f', 1) + QLatin1Char('M');
        if (n >= 10'000)
            return QString::number(qRound64(double(n) / 1e3)) + QLatin1Char('k');
        if (n >= 1'000)
            return QString::number(double(n) / 1e3, 'f', 1) + QLatin1Char('k');
        return QString::number(n);
    }
    static QString formatUsd(double usd) {
        if (usd == 0)
            return QStringLiteral("$0");
        return QLatin1Char('$') + QString::number(usd, 'f', usd >= 1 ? 2 : usd >= 0.01 ? 3 : 4);
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

    void usageAndBudgetShow() {
        // A real turn's usage (the mock model's scripted usage, as the CLI reports it)
        // in the agents list and the conversation's header, then a budget with what it used.
        const qint64 turns = usageNumber("turns") + 1;
        m_rig->mock.setUsage(1200, 300, 5000);
        m_rig->model().queueText(QStringLiteral("Counted."));
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        QCOMPARE(m_rig->send(QStringLiteral("Count this turn")).status, 200);
        QVERIFY(m_rig->waitTurns(int(turns), 30000));
        QTRY_COMPARE_WITH_TIMEOUT(usageNumber("turns"), turns, 15000);
        const qint64 input = usageNumber("inputTokens");
        const qint64 output = usageNumber("outputTokens");
        const qint64 cacheRead = usageNumber("cacheReadTokens");
        QVERIFY2(input >= 1200 && output >= 300 && cacheRead >= 5000,
                 qPrintable(QStringLiteral("%1 %2 %3").arg(input).arg(output).arg(cacheRead)));
        const double cost = m_rig->agent()
                                .value(QStringLiteral("usage"))
                                .toObject()
                                .value(QStringLiteral("costUsd"))
                                .toDouble();
        QVERIFY2(cost > 0, qPrintable(QString::number(cost)));

        // The list: "$cost · tokens tok" (input + output, what a budget counts).
        const QString row = QStringLiteral("#agent-list li[data-id=\"%1\"]").arg(m_rig->agentId);
        QVERIFY2(
            m_browser.waitJs(QStringLiteral("const u = document.querySelector('%1 .usage');"
                                            "return u && u.textContent === '%2' + ' · %3 tok' &&"
                                            " u.textContent")
                                 .arg(row, formatUsd(cost), compact(input + output))),
            qPrintable(m_browser.lastError() + QLatin1Char(' ') +
                       m_browser
                           .eval(QStringLiteral("return document.querySelector('%1 .usage')"
                                                ".textContent")
                                     .arg(row))
                           .toString()));

        // The header: turns, tokens by kind, cost; no budget yet, the process still there.
        QVERIFY(
            m_browser.run(QStringLiteral("click"),
                          args({{QStringLiteral("css"), QString(row + QStringLiteral(" a"))}})));
        QVERIFY2(m_browser.waitJs(
                     QStringLiteral("const u = document.getElementById('agent-usage');"
                                    "return u && u.textContent === '%1'")
                         .arg(QStringLiteral("%1 turn%2 · in %3 · out %4 · cache read %5 · %6")
                                  .arg(QString::number(turns),
                                       turns == 1 ? QString() : QStringLiteral("s"), compact(input),
                                       compact(output), compact(cacheRead), formatUsd(cost)))),
                 qPrintable(m_browser
                                .eval(QStringLiteral(
                                    "return document.getElementById('agent-usage').textContent"))
                                .toString()));
        QVERIFY(m_browser
                    .eval(QStringLiteral("return document.getElementById('agent-budget').hidden &&"
                                         " document.getElementById('agent-process').hidden"))
                    .toBool());

        // A lifetime token budget four times what was used: 25 %, live from agent_updated.
        const qint64 used = input + output;
        const QUrl agentUrl = m_rig->svc->url(QStringLiteral("/api/agents/") + m_rig->agentId);
        QCOMPARE(m_rig->http
                     .patch(agentUrl,
                            {{QStringLiteral("budget"),
                              QJsonObject{{QStringLiteral("tokens"), 4 * used},
                                          {QStringLiteral("period"), QStringLiteral("total")}}}})
                     .status,
                 200);
        const QString budgetText = QStringLiteral("Budget %1 tokens in total: %2 of %1 tokens used "
                                                  "(25%)")
                                       .arg(compact(4 * used), compact(used));
        QVERIFY2(
            m_browser.waitJs(QStringLiteral("const b = document.getElementById('agent-budget');"
                                            "return !b.hidden && b.textContent.trim() === '%1' &&"
                                            " b.querySelector('meter').value === 0.25")
                                 .arg(budgetText)),
            qPrintable(m_browser
                           .eval(QStringLiteral("return document.getElementById('agent-budget')"
                                                ".textContent"))
                           .toString()));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-conversation-usage")));

        // A day budget on cost: what today used, from GET /api/usage (every turn is today's).
        QCOMPARE(
            m_rig->http
                .patch(agentUrl, {{QStringLiteral("budget"),
                                   QJsonObject{{QStringLiteral("costUsd"), 100},
                                               {QStringLiteral("period"), QStringLiteral("day")}}}})
                .status,
            200);
        QVERIFY2(
            m_browser.waitJs(
                QStringLiteral("return document.getElementById('agent-budget').textContent"
                               ".includes('Budget $100.00 per day: %1 of $100.00 used "
                               "today')")
                    .arg(formatUsd(cost))),
            qPrintable(m_browser
                           .eval(QStringLiteral("return document.getElementById('agent-budget')"
                                                ".textContent"))
                           .toString()));

        // Lowered under what was used: the list marks the agent.
        QCOMPARE(m_rig->http
                     .patch(agentUrl,
                            {{QStringLiteral("budget"),
                              QJsonObject{{QStringLiteral("tokens"), used / 2},
                                          {QStringLiteral("period"), QStringLiteral("total")}}}})
                     .status,
                 200);
        QVERIFY(m_browser.waitJs(QStringLiteral("const b = document.getElementById('agent-budget');"
                                                "return b.classList.contains('over') &&"
                                                " b.textContent.includes('(200%)')")));
        // A stopped (or idle-released) agent has no process: the header says so.
        QCOMPARE(m_rig
                     ->post(QStringLiteral("/api/agents/bulk/stop"),
                            {{QStringLiteral("agentIds"), QJsonArray{m_rig->agentId}}})
                     .status,
                 200);
        QVERIFY(
            m_browser.waitJs(QStringLiteral("const p = document.getElementById('agent-process');"
                                            "return !p.hidden && p.textContent.startsWith("
                                            "'Process released (idle)')"),
                             20));
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        QVERIFY(m_browser.waitJs(QStringLiteral("const r = document.querySelector('%1');"
                                                "return r && r.dataset.budget === 'over' &&"
                                                " r.querySelector('.budget-over').textContent === "
                                                "'Budget reached'")
                                     .arg(row)));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-agents-usage")));
        // Cleared: the mark goes.
        QCOMPARE(m_rig->http.patch(agentUrl, {{QStringLiteral("budget"), QJsonValue()}}).status,
                 200);
        QVERIFY(m_browser.waitJs(
            QStringLiteral("return !document.querySelector('%1').dataset.budget").arg(row)));
    }

    // An agent whose allow-list leaves out a loopback port, and a command that tries it twice
    // (the service's egress proxy refuses both, nothing connects): one line below the command in
    // the conversation that says twice, and a count in the list.
    void refusedConnectionsShowInTheConversation() {
        namespace sb = flotilla::wire::sandbox;
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("socat")).isEmpty(),
                 "socat not on PATH: run scripts/install-deps.sh");
        QTcpServer forbidden;
        QVERIFY(forbidden.listen(QHostAddress::LocalHost, 0));
        const QString where = QStringLiteral("127.0.0.1:%1").arg(forbidden.serverPort());
        // A project of its own: a new agent's first history page is the newest session in its
        // directory, and the next row reads the first tool block of its agent's conversation.
        const QString project = QDir(m_rig->cwd).absoluteFilePath(QStringLiteral("../fenced"));
        QVERIFY(QDir().mkpath(project));
        const HttpResponse made = m_rig->createAgent(
            QStringLiteral("fenced"),
            {{QStringLiteral("cwd"), project},
             {QStringLiteral("permissionMode"), QStringLiteral("auto")},
             {QString(sb::key::Sandbox), QJsonObject{{sb::key::Mode, sb::mode::Workspace},
                                                     {sb::key::Network, sb::network::Allowlist}}}});
        QCOMPARE(made.status, 201);
        const QString id = made.object().value(QStringLiteral("id")).toString();
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        CLICK(QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(id));
        WAIT_JS(QStringLiteral("const s = document.getElementById('agent-sandbox');"
                               "return !!s && s.textContent ==="
                               " 'Sandbox: workspace · network allowlist: no hosts'"));

        const QString curl = QStringLiteral("curl -s -m 10 -o /dev/null -w '%1=%{http_code}' "
                                            "http://%2/; echo");
        m_rig->model().queueCommand(curl.arg(QStringLiteral("try1"), where) + QStringLiteral("; ") +
                                    curl.arg(QStringLiteral("try2"), where));
        m_rig->model().queueText(QStringLiteral("Refused."));
        QCOMPARE(m_rig->send(QStringLiteral("reach out"), id).status, 200);
        const QString twice = QStringLiteral("Sandbox blocked a connection to %1 (not on this "
                                             "agent's allow-list) (2 times)")
                                  .arg(where);
        WAIT_JS_LONG(
            QStringLiteral("const ls = [...document.querySelectorAll("
                           "'#transcript .note.sandbox-blocked')]"
                           ".filter((n) => n.dataset.where === '%1');"
                           "const tool = ls.length === 1 && ls[0].previousElementSibling;"
                           "return !!tool && tool.matches('.tool') &&"
                           " ls[0].textContent === \"%2\" && ls[0].dataset.times === '2' &&"
                           " tool.querySelector('.tool-output').textContent"
                           ".includes('try2=403')")
                .arg(where, twice),
            60);
        QVERIFY(!forbidden.hasPendingConnections());
        QVERIFY(m_browser
                    .eval(QStringLiteral("document.querySelector('#transcript .sandbox-blocked')"
                                         ".scrollIntoView({block: 'end'}); return true"))
                    .toBool());
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-conversation-sandbox-blocked")));
        QVERIFY(m_rig->waitStatus(QStringLiteral("idle"), 30000, id));

        // The list: how many its sandbox refused while the page watched, the last in the title.
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        WAIT_JS(QStringLiteral("const b = document.querySelector("
                               "'#agent-list li[data-id=\"%1\"] .badge.blocked');"
                               "return !!b && parseInt(b.textContent, 10) >= 2 &&"
                               " b.textContent.endsWith(' blocked') &&"
                               " b.title.startsWith('Connections its sandbox refused (last: ')")
                    .arg(id));
    }

    // A sandbox asked for at creation: "Sandboxed" in the list (its title says which), the
    // sandbox in the header, a hint under a command's refused write outside the working
    // directory; turned off by PATCH, the header says so. An agent without one shows the default
    // for its permission mode: none for ask agents, the service's for auto agents.
    void sandboxShowsInTheListTheHeaderAndRefusedWrites() {
        namespace sb = flotilla::wire::sandbox;
        const HttpResponse made = m_rig->createAgent(
            QStringLiteral("boxed"),
            {{QStringLiteral("permissionMode"), QStringLiteral("auto")},
             {QString(sb::key::Sandbox), QJsonObject{{sb::key::Mode, sb::mode::Workspace}}}});
        QCOMPARE(made.status, 201);
        const QString id = made.object().value(QStringLiteral("id")).toString();
        const auto inRow = [](const QString &agentId, const QString &css) {
            return QStringLiteral("document.querySelector('#agent-list li[data-id=\"%1\"] %2')")
                .arg(agentId, css);
        };
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        WAIT_JS(QStringLiteral("const b = %1; return !!b && b.textContent === 'Sandboxed' &&"
                               " b.title === 'Sandbox: workspace · network full'")
                    .arg(inRow(id, QStringLiteral(".badge.sandbox"))));
        WAIT_JS(QStringLiteral("return !!%1 && !%2")
                    .arg(inRow(m_rig->agentId, QStringLiteral(".agent-name")),
                         inRow(m_rig->agentId, QStringLiteral(".badge.sandbox"))));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-agents-sandbox")));

        CLICK(QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(id));
        WAIT_JS(QStringLiteral("const s = document.getElementById('agent-sandbox');"
                               "return !!s && !s.hidden &&"
                               " s.textContent === 'Sandbox: workspace · network full'"));
        const QString outside =
            QStringLiteral("/etc/flotilla-web-") + QUuid::createUuid().toString(QUuid::Id128);
        m_rig->model().queueCommand(QStringLiteral("touch %1; echo outside-rc=$?").arg(outside));
        m_rig->model().queueText(QStringLiteral("Tried."));
        QCOMPARE(m_rig->send(QStringLiteral("write outside"), id).status, 200);
        WAIT_JS_LONG(QStringLiteral("const t = document.querySelector('#transcript .tool-hint');"
                                    "return !!t && !t.hidden &&"
                                    " t.textContent.startsWith('The sandbox allows writes only') &&"
                                    " t.closest('.tool').querySelector('.tool-output').textContent"
                                    ".includes('Read-only file system')"),
                     60);
        QVERIFY(!QFileInfo::exists(outside));
        QVERIFY(m_browser
                    .eval(QStringLiteral("const t = document.querySelector('#transcript .tool');"
                                         "t.open = true; t.querySelector('.tool-hint')"
                                         ".scrollIntoView({block: 'end'}); return true"))
                    .toBool());
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-conversation-sandbox")));

        QVERIFY(m_rig->waitStatus(QStringLiteral("idle"), 30000, id));
        QCOMPARE(
            m_rig->http
                .patch(m_rig->svc->url(QStringLiteral("/api/agents/") + id),
                       {{QString(sb::key::Sandbox), QJsonObject{{sb::key::Mode, sb::mode::Off}}}})
                .status,
            200);
        WAIT_JS(QStringLiteral("return document.getElementById('agent-sandbox').textContent ==="
                               " 'No sandbox'"));
        // No sandbox of its own: an ask agent has none by default.
        const QString header =
            QStringLiteral("const s = document.getElementById('agent-sandbox');"
                           "return document.body.dataset.phase === 'ready' && !!s && !s.hidden &&"
                           " s.textContent === '%1'");
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        CLICK(QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(m_rig->agentId));
        WAIT_JS(header.arg(QStringLiteral("No sandbox (default)")));
        // An auto agent gets the service's default: off here, so no badge in the list.
        const HttpResponse plainMade = m_rig->createAgent(
            QStringLiteral("plain"), {{QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(plainMade.status, 201);
        const QString plain = plainMade.object().value(QStringLiteral("id")).toString();
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        WAIT_JS(QStringLiteral("return !!%1 && !%2")
                    .arg(inRow(plain, QStringLiteral(".agent-name")),
                         inRow(plain, QStringLiteral(".badge.sandbox"))));
        CLICK(QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(plain));
        WAIT_JS(header.arg(QStringLiteral("No sandbox (default)")));
        // The service restarted with workspace as its default (the page asks for it again on
        // reconnecting): that agent is confined now, and it says that is the default. Last in
        // the suite: the service keeps that default.
        m_rig->svc->config().port = m_rig->svc->port();
        m_rig->svc->config().sandboxDefault = QString(sb::mode::Workspace);
        QVERIFY(m_rig->restartService());
        WAIT_JS_LONG(header.arg(QStringLiteral("Sandbox: workspace (default) · network full")), 30);
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        WAIT_JS(QStringLiteral("const b = %1; return !!b && b.textContent === 'Sandboxed' &&"
                               " b.title === 'Sandbox: workspace (default) · network full' && !%2")
                    .arg(inRow(plain, QStringLiteral(".badge.sandbox")),
                         inRow(m_rig->agentId, QStringLiteral(".badge.sandbox"))));
    }
};

QTEST_GUILESS_MAIN(TestWebUsage)
#include "tst_web_usage.moc"
