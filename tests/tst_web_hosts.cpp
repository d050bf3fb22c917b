// Hosts on the web page, in a real browser: headless Chromium (Selenium,
// tests/web/browser_driver.py) against the real service in this process. A host whose ssh
// destination nobody listens on (127.0.0.2:1) is unreachable with ssh's reason; an agent placed
// there (its cwd that machine's, never checked here). The agent list marks that agent with its
// host and filters by host; its header names the host; the Hosts view lists `local` and the host
// with state, error and agent count, follows host_* events, checks a host (unreachable with the
// reason; local with git's version), adds, edits and removes one, and shows the 409 naming the
// agents of a host still in use; a host's agent count opens the list filtered to it; the
// new-agent form sends the chosen host; the sixth section still fits a phone's bar. Screenshots
// (phone 360 px, desktop 1280 px) go to <build>/screenshots.

#include "protocol/HostNames.h"
#include "support/AgentRig.h"
#include "support/BrowserBridge.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;
namespace hk = flotilla::wire::host::key;

namespace {
const QByteArray kToken = QByteArrayLiteral("hosts-suite-token-8d21");
const QString kDown = QStringLiteral("down");
const QString kNobody = QStringLiteral("someone@127.0.0.2:1"); // nothing listens there
} // namespace

#define WAIT_JS(js) QVERIFY2(m_browser.waitJs(js), qPrintable(m_browser.lastError()))
#define CLICK(css) QVERIFY2(click(css), qPrintable(m_browser.lastError()))
#define TYPE(css, text)                                                                            \
    QVERIFY2(m_browser.typeInto(css, text, true), qPrintable(m_browser.lastError()))

class TestWebHosts : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<AgentRig> m_rig;
    Browser m_browser;
    QString m_remoteId; // the agent on kDown

    QJsonObject hostByRest(const QString &name, int *status = nullptr) {
        const HttpResponse r =
            m_rig->http.get(m_rig->svc->url(QStringLiteral("/api/hosts/") + name));
        if (status)
            *status = r.status;
        return r.object();
    }
    QString js(const QString &expression) {
        return m_browser.eval(QStringLiteral("return ") + expression).toString();
    }
    bool click(const QString &css) {
        return m_browser.run(QStringLiteral("click"), args({{QStringLiteral("css"), css}}));
    }
    bool choose(const QString &css, const QString &value) {
        return m_browser.run(QStringLiteral("select"), args({{QStringLiteral("css"), css},
                                                             {QStringLiteral("value"), value}}));
    }
    // JS: the Hosts view's row of `name`.
    static QString hostRow(const QString &name) {
        return QStringLiteral("document.querySelector('#host-list li[data-key=\"%1\"]')").arg(name);
    }
    static QString agentRow(const QString &id) {
        return QStringLiteral("document.querySelector('#agent-list li[data-id=\"%1\"]')").arg(id);
    }
    static QString rowCount() {
        return QStringLiteral("document.querySelectorAll('#agent-list li.agent').length");
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // An empty ssh config: nothing of the user's own is read.
        const QString sshConfig = m_dir.filePath(QStringLiteral("ssh_config"));
        QFile config(sshConfig);
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.close();
        m_rig = std::make_unique<AgentRig>([sshConfig](ServerConfig &c) {
            c.authToken = kToken;
            c.sshConfig = sshConfig;
        });
        QVERIFY(m_rig->start());
        QCOMPARE(m_rig->http
                     .post(m_rig->svc->url(QStringLiteral("/api/hosts")),
                           {{QString(hk::Name_), kDown}, {QString(hk::Ssh), kNobody}})
                     .status,
                 201);
        QTRY_COMPARE_WITH_TIMEOUT(hostByRest(kDown).value(hk::State).toString(),
                                  QStringLiteral("unreachable"), 20000);
        // Its cwd is that machine's: it need not exist here.
        const HttpResponse r = m_rig->createAgent(
            QStringLiteral("faraway"),
            {{QString(hk::Host), kDown}, {QStringLiteral("cwd"), QStringLiteral("/srv/anywhere")}});
        QCOMPARE(r.status, 201);
        QCOMPARE(r.object().value(hk::Host).toString(), kDown);
        m_remoteId = r.object().value(QStringLiteral("id")).toString();
        QString error;
        QVERIFY2(m_browser.startSignedIn(m_rig->svc->url(QStringLiteral("/")), kToken, 2, &error),
                 qPrintable(error));
    }

    void cleanupTestCase() {
        QJsonValue logs;
        if (m_browser.run(QStringLiteral("logs"), {}, &logs)) {
            for (const QJsonValue &line : logs.toArray())
                QVERIFY2(!line.toString().contains(QLatin1String("Uncaught")),
                         qPrintable(line.toString()));
        }
        m_browser.quit();
    }

    void agentRowShowsItsHost() {
        // The remote agent carries the host's badge, coloured by its state; the local one none.
        WAIT_JS(QStringLiteral("const b = %1.querySelector('.badge.host');"
                               "return b && b.textContent === 'down' && b.dataset.state === "
                               "'unreachable'")
                    .arg(agentRow(m_remoteId)));
        QCOMPARE(js(QStringLiteral("String(!!%1.querySelector('.badge.host'))")
                        .arg(agentRow(m_rig->agentId))),
                 QStringLiteral("false"));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-agents-hosts")));
    }

    void sixSectionsFitAPhone() {
        // Hosts is the sixth section: with every count showing, the bar still fits 360 px; with
        // three-digit counts it scrolls by itself, never widening the page.
        QVERIFY(m_browser.phone());
        const QString counts = QStringLiteral(
            "for (const id of ['count-inbox', 'count-notifications', 'count-tasks']) {"
            "  const c = document.getElementById(id); c.textContent = '%1'; c.hidden = false; }"
            "const n = document.querySelector('nav');");
        WAIT_JS(counts.arg(12) + QStringLiteral("return n.scrollWidth <= n.clientWidth"));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-nav-counts")));
        WAIT_JS(counts.arg(199) +
                QStringLiteral("return document.documentElement.scrollWidth <= innerWidth"));
        m_browser.eval(
            QStringLiteral("for (const id of ['count-inbox', 'count-notifications',"
                           " 'count-tasks']) document.getElementById(id).hidden = true"));
    }

    void hostFilterNarrowsTheList() {
        WAIT_JS(QStringLiteral("const s = document.getElementById('agent-host-filter');"
                               "return s && !s.hidden && [...s.options].map((o) => o.value).join()"
                               " === ',local,down'"));
        QVERIFY(choose(QStringLiteral("#agent-host-filter"), kDown));
        WAIT_JS(QStringLiteral("return %1 === 1 && %2").arg(rowCount(), agentRow(m_remoteId)));
        QCOMPARE(js(QStringLiteral("document.querySelector('.summary').textContent")),
                 QStringLiteral("1 of 2 agents"));
        QVERIFY(choose(QStringLiteral("#agent-host-filter"), QStringLiteral("local")));
        WAIT_JS(QStringLiteral("return %1 === 1 && %2").arg(rowCount(), agentRow(m_rig->agentId)));
        QVERIFY(choose(QStringLiteral("#agent-host-filter"), QString()));
        WAIT_JS(QStringLiteral("return %1 === 2").arg(rowCount()));
    }

    void headerNamesTheHost() {
        CLICK(QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(m_remoteId));
        WAIT_JS(QStringLiteral("const e = document.getElementById('agent-host');"
                               "return e && !e.hidden && e.dataset.state === 'unreachable' &&"
                               " e.textContent.startsWith('Host down: unreachable')"));
        QVERIFY(js(QStringLiteral("document.querySelector('.agent-meta').textContent"))
                    .contains(QStringLiteral("/srv/anywhere")));
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        CLICK(QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(m_rig->agentId));
        WAIT_JS(QStringLiteral(
            "const e = document.getElementById('agent-host'); return e && e.hidden"));
    }

    void hostsViewListsStateAndError() {
        QVERIFY(m_browser.clickNav(QStringLiteral("hosts")));
        WAIT_JS(
            QStringLiteral("const l = %1, d = %2; return l && d && l.dataset.state === 'local' &&"
                           " d.dataset.state === 'unreachable' &&"
                           " d.querySelector('.host-agents').textContent === '1 agent' &&"
                           " l.querySelector('.host-agents').textContent === '1 agent'")
                .arg(hostRow(QStringLiteral("local")), hostRow(kDown)));
        // local first, then the stored ones; ssh's own reason under the host.
        QCOMPARE(js(QStringLiteral("[...document.querySelectorAll('#host-list > li')]"
                                   ".map((li) => li.dataset.key).join()")),
                 QStringLiteral("local,down"));
        QCOMPARE(js(hostRow(kDown) + QStringLiteral(".querySelector('.host-ssh').textContent")),
                 kNobody);
        // (Between retries the host is briefly `connecting`, without an error.)
        QString why;
        QTRY_VERIFY_WITH_TIMEOUT(!(why = hostByRest(kDown).value(hk::Error).toString()).isEmpty(),
                                 20000);
        QVERIFY2(why.contains(QStringLiteral("refused")), qPrintable(why));
        WAIT_JS(QStringLiteral("const e = %1.querySelector('.host-error');"
                               "return e && e.textContent === %2")
                    .arg(hostRow(kDown),
                         QString::fromUtf8(
                             QJsonDocument(QJsonArray{why}).toJson(QJsonDocument::Compact))
                             .mid(1)
                             .chopped(1)));
        // Added and removed elsewhere: the list follows host_created and host_deleted.
        QCOMPARE(m_rig->http
                     .post(m_rig->svc->url(QStringLiteral("/api/hosts")),
                           {{QString(hk::Name_), QStringLiteral("other")},
                            {QString(hk::Ssh), QStringLiteral("me@127.0.0.2:2")}})
                     .status,
                 201);
        WAIT_JS(QStringLiteral("const r = %1; return r && r.dataset.state === 'unreachable'")
                    .arg(hostRow(QStringLiteral("other"))));
        QCOMPARE(m_rig->http.del(m_rig->svc->url(QStringLiteral("/api/hosts/other"))).status, 204);
        WAIT_JS(QStringLiteral("return !%1").arg(hostRow(QStringLiteral("other"))));
    }

    void checkShowsWhatItFound() {
        CLICK(QStringLiteral("#host-list li[data-key=\"down\"] button.check"));
        WAIT_JS(QStringLiteral("const c = %1.querySelector('.check-result[data-reachable]');"
                               "return c && c.dataset.reachable === '0' &&"
                               " c.textContent.startsWith('Unreachable: ') &&"
                               " c.textContent.includes('refused')")
                    .arg(hostRow(kDown)));
        // The local host answers without ssh: reachable, with the versions found here.
        const QJsonObject local =
            m_rig->http.post(m_rig->svc->url(QStringLiteral("/api/hosts/local/check")), {})
                .object();
        CLICK(QStringLiteral("#host-list li[data-key=\"local\"] button.check"));
        WAIT_JS(QStringLiteral("const c = %1.querySelector('.check-result[data-reachable]');"
                               "return c && c.dataset.reachable === '1' &&"
                               " c.textContent.startsWith('Reachable in ')")
                    .arg(hostRow(QStringLiteral("local"))));
        const QString git = local.value(hk::Git).toString();
        QCOMPARE(js(hostRow(QStringLiteral("local")) +
                    QStringLiteral(".querySelector('dd[data-tool=\"git\"]').textContent")),
                 git.isEmpty() ? QStringLiteral("not found") : git);
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-hosts")));
        QVERIFY(m_browser.desktop());
        QVERIFY(m_browser.screenshot(QStringLiteral("desktop-hosts")));
        QVERIFY(m_browser.phone());
    }

    void removingAHostInUseSaysWho() {
        const QString remove = QStringLiteral("#host-list li[data-key=\"down\"] button.delete");
        CLICK(remove);
        WAIT_JS(
            QStringLiteral("return %1.querySelector('button.delete.armed')").arg(hostRow(kDown)));
        CLICK(remove);
        WAIT_JS(QStringLiteral("const e = document.getElementById('hosts-error');"
                               "return e && !e.hidden && e.dataset.code === 'host_in_use'"));
        const QString text =
            js(QStringLiteral("document.getElementById('hosts-error').textContent"));
        QVERIFY2(text.contains(QStringLiteral("faraway")), qPrintable(text));
        int status = 0;
        hostByRest(kDown, &status);
        QCOMPARE(status, 200);
        QVERIFY(!js(hostRow(kDown) + QStringLiteral(".querySelector('button.delete').className"))
                     .contains(QStringLiteral("armed")));
    }

    void addEditAndRemoveAHost() {
        CLICK(QStringLiteral("#host-new"));
        TYPE(QStringLiteral("#host-name"), QStringLiteral("spare"));
        TYPE(QStringLiteral("#host-ssh"), QStringLiteral("nobody@127.0.0.2:3"));
        TYPE(QStringLiteral("#host-claude"), QStringLiteral("/opt/claude/bin/claude"));
        CLICK(QStringLiteral("#host-save"));
        WAIT_JS(QStringLiteral("return %1 && !document.getElementById('host-form')")
                    .arg(hostRow(QStringLiteral("spare"))));
        QJsonObject spare = hostByRest(QStringLiteral("spare"));
        QCOMPARE(spare.value(hk::Ssh).toString(), QStringLiteral("nobody@127.0.0.2:3"));
        QCOMPARE(spare.value(hk::ClaudeBin).toString(), QStringLiteral("/opt/claude/bin/claude"));
        QVERIFY(spare.value(hk::CodexBin).isNull());
        // A refusal shows in the form as the service words it.
        CLICK(QStringLiteral("#host-list li[data-key=\"spare\"] button.edit"));
        TYPE(QStringLiteral("#host-codex"), QStringLiteral("bin/codex"));
        CLICK(QStringLiteral("#host-save"));
        WAIT_JS(QStringLiteral("const e = document.getElementById('host-form-error');"
                               "return e && !e.hidden && e.textContent.includes('codexBin')"));
        TYPE(QStringLiteral("#host-codex"), QStringLiteral("codex-1.2"));
        TYPE(QStringLiteral("#host-max"), QStringLiteral("3"));
        CLICK(QStringLiteral("#host-save"));
        WAIT_JS(QStringLiteral("return !document.getElementById('host-form')"));
        spare = hostByRest(QStringLiteral("spare"));
        QCOMPARE(spare.value(hk::CodexBin).toString(), QStringLiteral("codex-1.2"));
        QCOMPARE(spare.value(hk::MaxAgents).toInt(), 3);
        WAIT_JS(QStringLiteral("return %1.textContent.includes('at most 3 agents')")
                    .arg(hostRow(QStringLiteral("spare"))));
        // Unused: two taps remove it.
        const QString remove = QStringLiteral("#host-list li[data-key=\"spare\"] button.delete");
        CLICK(remove);
        WAIT_JS(QStringLiteral("return %1.querySelector('button.delete.armed')")
                    .arg(hostRow(QStringLiteral("spare"))));
        CLICK(remove);
        WAIT_JS(QStringLiteral("return !%1").arg(hostRow(QStringLiteral("spare"))));
        int status = 0;
        hostByRest(QStringLiteral("spare"), &status);
        QCOMPARE(status, 404);
    }

    void agentCountOpensItsAgents() {
        QVERIFY(m_browser.clickNav(QStringLiteral("hosts")));
        CLICK(QStringLiteral("#host-list li[data-key=\"down\"] a.host-agents"));
        WAIT_JS(
            QStringLiteral("return document.getElementById('agent-host-filter').value === 'down'"
                           " && %1 === 1 && %2")
                .arg(rowCount(), agentRow(m_remoteId)));
        QVERIFY(choose(QStringLiteral("#agent-host-filter"), QString()));
        WAIT_JS(QStringLiteral("return %1 === 2").arg(rowCount()));
    }

    void newAgentFormSendsTheHost() {
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        CLICK(QStringLiteral("#new-agent"));
        WAIT_JS(QStringLiteral("const s = document.getElementById('new-agent-host');"
                               "return s && s.value === 'local' &&"
                               " [...s.options].map((o) => o.value).join() === 'local,down'"));
        QVERIFY(choose(QStringLiteral("#new-agent-host"), kDown));
        // What that machine cannot do yet is not offered; its directory is not checked here.
        WAIT_JS(QStringLiteral("return document.getElementById('new-agent-worktree').disabled &&"
                               " document.getElementById('new-agent-cwd-hint').textContent"
                               ".startsWith('A directory on down')"));
        TYPE(QStringLiteral("#new-agent-name"), QStringLiteral("remote-two"));
        TYPE(QStringLiteral("#new-agent-cwd"), QStringLiteral("/srv/elsewhere"));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-new-agent-host")));
        CLICK(QStringLiteral("#new-agent-create"));
        WAIT_JS(QStringLiteral("return %1 === 3 && !document.getElementById('new-agent-form')")
                    .arg(rowCount()));
        QJsonObject made;
        for (const QJsonValue &v :
             m_rig->http.get(m_rig->svc->url(QStringLiteral("/api/agents"))).array()) {
            if (v.toObject().value(QStringLiteral("name")).toString() ==
                QLatin1String("remote-two"))
                made = v.toObject();
        }
        QCOMPARE(made.value(hk::Host).toString(), kDown);
        QCOMPARE(made.value(QStringLiteral("cwd")).toString(), QStringLiteral("/srv/elsewhere"));
        WAIT_JS(
            QStringLiteral("const b = %1.querySelector('.badge.host'); return b && b.textContent"
                           " === 'down'")
                .arg(agentRow(made.value(QStringLiteral("id")).toString())));
        // The local choice sends no host: the agent is local.
        CLICK(QStringLiteral("#new-agent"));
        WAIT_JS(QStringLiteral("const s = document.getElementById('new-agent-host');"
                               "return s && s.value === 'local' &&"
                               " !document.getElementById('new-agent-worktree').disabled"));
        TYPE(QStringLiteral("#new-agent-name"), QStringLiteral("at-home"));
        TYPE(QStringLiteral("#new-agent-cwd"), m_rig->cwd);
        CLICK(QStringLiteral("#new-agent-create"));
        WAIT_JS(QStringLiteral("return %1 === 4").arg(rowCount()));
        for (const QJsonValue &v :
             m_rig->http.get(m_rig->svc->url(QStringLiteral("/api/agents"))).array()) {
            if (v.toObject().value(QStringLiteral("name")).toString() == QLatin1String("at-home"))
                QCOMPARE(v.toObject().value(hk::Host).toString(), QStringLiteral("local"));
        }
    }
};

QTEST_GUILESS_MAIN(TestWebHosts)
#include "tst_web_hosts.moc"
