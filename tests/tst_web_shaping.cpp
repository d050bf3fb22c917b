// What shapes agents, on the web page in a real browser: headless Chromium (Selenium,
// tests/web/browser_driver.py) against the real service in this process, its agents running the
// pinned Claude Code CLI against the mock model. The library's sections (classes, skills, saved
// prompts, hooks, buildings) each list what the service holds and follow its events; a class
// made in the form with an icon shows that icon beside its agents; the skill editor's preview
// stays inert; the new-agent form sends class, skills and instructions; a saved prompt fills the
// message box; a failing hook run is marked; a building's log loads and follows. An SVG icon
// with a script never runs: the page shows icons as images only. Screenshots (phone 360 px,
// desktop 1280 px) go to <build>/screenshots.

#include "protocol/ShapingNames.h"
#include "support/AgentRig.h"
#include "support/BrowserBridge.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;
namespace k = flotilla::wire::shaping::key;

namespace {
const QByteArray kToken = QByteArrayLiteral("shaping-suite-token-3c9e");
// A 16x16 PNG, one colour.
const QByteArray kPng = QByteArray::fromBase64(
    "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAGUlEQVR42mOQ9Z/4nxLMMGrAqAGjBgwXAwCsavwQ2gjOvQ"
    "AAAABJRU5ErkJggg==");
// Well-formed SVG whose script and handlers would set window.top.__svgPwned if they ever ran.
const QByteArray kHostileSvg = QByteArrayLiteral(
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"16\" height=\"16\" "
    "onload=\"window.top.__svgPwned = 1\"><script>window.top.__svgPwned = 2</script>"
    "<rect width=\"16\" height=\"16\" fill=\"#b3261e\" onmouseover=\"window.top.__svgPwned = 3\"/>"
    "</svg>");
} // namespace

#define WAIT_JS(js) QVERIFY2(m_browser.waitJs(js), qPrintable(m_browser.lastError()))
#define CLICK(css) QVERIFY2(click(css), qPrintable(m_browser.lastError()))
#define WAIT_JS_LONG(js, s) QVERIFY2(m_browser.waitJs(js, s), qPrintable(m_browser.lastError()))

class TestWebShaping : public QObject {
    Q_OBJECT

    std::unique_ptr<AgentRig> m_rig;
    Browser m_browser;
    QTemporaryDir m_dir;
    QString m_reviewerId; // the agent made with the new-agent form

    HttpResponse rest(const QByteArray &method, const QString &path, const QJsonObject &body = {}) {
        const QUrl url = m_rig->svc->url(path);
        if (method == "GET")
            return m_rig->http.get(url);
        if (method == "DELETE")
            return m_rig->http.del(url);
        if (method == "PATCH")
            return m_rig->http.patch(url, body);
        return m_rig->http.post(url, body);
    }
    bool click(const QString &css) {
        return m_browser.run(QStringLiteral("click"), args({{QStringLiteral("css"), css}}));
    }
    bool choose(const QString &css, const QString &value) {
        return m_browser.run(QStringLiteral("select"), args({{QStringLiteral("css"), css},
                                                             {QStringLiteral("value"), value}}));
    }
    // The library at `section`, its list shown.
    bool openLibrary(const QString &section) {
        return m_browser.clickNav(QStringLiteral("library")) &&
               click(QStringLiteral(".tabs a[data-tab=\"%1\"]").arg(section)) &&
               m_browser.waitJs(
                   QStringLiteral("return document.getElementById('%1-list')").arg(section));
    }
    // JS: the row of `key` in section `kind`'s list.
    static QString row(const QString &kind, const QString &key) {
        return QStringLiteral("document.querySelector('#%1-list li[data-key=\"%2\"]')")
            .arg(kind, key);
    }
    // JS: the class icon <img> of `slug` under `scope` has loaded.
    static QString iconLoaded(const QString &scope, const QString &slug) {
        return QStringLiteral(
                   "const i = document.querySelector('%1 img.class-icon[data-class=\"%2\"]');"
                   "return !!i && i.complete && i.naturalWidth > 0")
            .arg(scope, slug);
    }
    QJsonObject icon(const char *mediaType, const QByteArray &bytes) {
        return {{QString(k::MediaType), QLatin1String(mediaType)},
                {QString(k::DataBase64), QString::fromLatin1(bytes.toBase64())}};
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_rig = std::make_unique<AgentRig>([](ServerConfig &c) { c.authToken = kToken; });
        QVERIFY(m_rig->start());
        QString error;
        QVERIFY2(m_browser.startSignedIn(m_rig->svc->url(QStringLiteral("/")), kToken, 1, &error),
                 qPrintable(error));
    }

    void cleanupTestCase() {
        QJsonValue logs;
        if (m_browser.run(QStringLiteral("logs"), {}, &logs)) {
            for (const QJsonValue &line : logs.toArray()) {
                // A CSP violation (an icon refused) or an exception would show here.
                QVERIFY2(!line.toString().contains(QLatin1String("Content Security Policy")),
                         qPrintable(line.toString()));
                QVERIFY2(!line.toString().contains(QLatin1String("Uncaught")),
                         qPrintable(line.toString()));
            }
        }
        m_browser.quit();
    }

    void classesListAndFollowEvents() {
        QVERIFY2(openLibrary(QStringLiteral("classes")), qPrintable(m_browser.lastError()));
        // The built-in classes, marked, without a delete button.
        WAIT_JS(QStringLiteral("const b = %1; return b && b.textContent.includes('built-in') &&"
                               " !b.querySelector('button.delete') && %2")
                    .arg(row(QStringLiteral("classes"), QStringLiteral("builder")),
                         row(QStringLiteral("classes"), QStringLiteral("boss"))));
        // Created, changed and deleted elsewhere: the list follows.
        QCOMPARE(rest("POST", QStringLiteral("/api/classes"),
                      {{QString(k::Slug), QStringLiteral("watcher")},
                       {QStringLiteral("name"), QStringLiteral("Watcher")}})
                     .status,
                 201);
        WAIT_JS(QStringLiteral("const r = %1; return r && r.textContent.includes('Watcher')")
                    .arg(row(QStringLiteral("classes"), QStringLiteral("watcher"))));
        QCOMPARE(rest("PATCH", QStringLiteral("/api/classes/watcher"),
                      {{QString(k::Description), QStringLiteral("Keeps an eye on CI")}})
                     .status,
                 200);
        WAIT_JS(QStringLiteral("const r = %1; return r && r.textContent.includes('Keeps an eye')")
                    .arg(row(QStringLiteral("classes"), QStringLiteral("watcher"))));
        QCOMPARE(rest("DELETE", QStringLiteral("/api/classes/watcher")).status, 204);
        WAIT_JS(QStringLiteral("return !%1")
                    .arg(row(QStringLiteral("classes"), QStringLiteral("watcher"))));
    }

    void skillsEditorPreviewStaysInert() {
        QVERIFY2(openLibrary(QStringLiteral("skills")), qPrintable(m_browser.lastError()));
        QCOMPARE(rest("POST", QStringLiteral("/api/skills"),
                      {{QString(k::Slug), QStringLiteral("checklist")},
                       {QString(k::Description), QStringLiteral("The review checklist")},
                       {QString(k::Content), QStringLiteral("1. Tests\n2. Docs\n")}})
                     .status,
                 201);
        WAIT_JS(
            QStringLiteral("const r = %1; return r && r.textContent.includes('review checklist')")
                .arg(row(QStringLiteral("skills"), QStringLiteral("checklist"))));
        // A new skill from the editor; its preview renders markdown and nothing else.
        CLICK(QStringLiteral("#skills-new"));
        QVERIFY(m_browser.typeInto(QStringLiteral("#skill-slug"), QStringLiteral("release-notes")));
        QVERIFY(m_browser.typeInto(QStringLiteral("#skill-description"),
                                   QStringLiteral("How release notes are written")));
        const QString content = QStringLiteral(
            "## Release notes\n\nWrite **short** lines:\n\n- one per change\n- `code` names\n\n"
            "<img src=x onerror=\"window.__pwned = 1\"> <script>window.__pwned = 2</script>\n\n"
            "[bad](javascript:window.__pwned=3) [docs](https://example.org/notes)\n");
        QVERIFY(m_browser.typeInto(QStringLiteral("#skill-content"), content));
        WAIT_JS(QStringLiteral(
            "const p = document.getElementById('skill-preview');"
            "return p.querySelector('strong') && p.querySelectorAll('li').length === 2"
            " && p.textContent.includes('docs')"));
        QVERIFY(m_browser
                    .eval(QStringLiteral(
                        "const p = document.getElementById('skill-preview');"
                        "return !p.querySelector('img, script, h1, a[href^=\"javascript\"]') &&"
                        " p.querySelector('a').rel.includes('noopener') &&"
                        " p.textContent.includes('<script>') && window.__pwned === undefined"))
                    .toBool());
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-library-skill-editor")));
        CLICK(QStringLiteral("#skills-save"));
        WAIT_JS(QStringLiteral("return !document.getElementById('skills-form') && %1")
                    .arg(row(QStringLiteral("skills"), QStringLiteral("release-notes"))));
        const QJsonObject stored =
            rest("GET", QStringLiteral("/api/skills/release-notes")).object();
        QCOMPARE(stored.value(QString(k::Content)).toString(), content);
        QCOMPARE(stored.value(QString(k::Enabled)).toBool(), true);
    }

    void classFromTheFormWithAnIcon() {
        const QString png = m_dir.filePath(QStringLiteral("reviewer.png"));
        QFile f(png);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kPng);
        f.close();
        QVERIFY2(openLibrary(QStringLiteral("classes")), qPrintable(m_browser.lastError()));
        CLICK(QStringLiteral("#classes-new"));
        QVERIFY(m_browser.typeInto(QStringLiteral("#class-slug"), QStringLiteral("reviewer")));
        QVERIFY(m_browser.typeInto(QStringLiteral("#class-name"), QStringLiteral("Reviewer")));
        QVERIFY(m_browser.typeInto(QStringLiteral("#class-description"),
                                   QStringLiteral("Reads diffs and says what is wrong")));
        QVERIFY(m_browser.typeInto(QStringLiteral("#class-instructions"),
                                   QStringLiteral("Review only; never edit files.")));
        QVERIFY(choose(QStringLiteral("#class-permission"), QStringLiteral("ask")));
        CLICK(QStringLiteral("#class-skills input[value=\"checklist\"]"));
        QVERIFY(m_browser.typeInto(QStringLiteral("#class-icon-file"), png));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-library-class-form")));
        CLICK(QStringLiteral("#classes-save"));
        WAIT_JS(iconLoaded(QStringLiteral("#classes-list li[data-key=\"reviewer\"]"),
                           QStringLiteral("reviewer")));
        const QJsonObject stored = rest("GET", QStringLiteral("/api/classes/reviewer")).object();
        QVERIFY(stored.value(QString(k::HasIcon)).toBool());
        QCOMPARE(stored.value(QString(k::Instructions)).toString(),
                 QStringLiteral("Review only; never edit files."));
        QCOMPARE(stored.value(QString(k::Skills)).toArray(),
                 QJsonArray{QStringLiteral("checklist")});
        QCOMPARE(stored.value(QString(k::Defaults))
                     .toObject()
                     .value(QString(k::PermissionMode))
                     .toString(),
                 QStringLiteral("ask"));
        const HttpResponse served = rest("GET", QStringLiteral("/api/classes/reviewer/icon"));
        QCOMPARE(served.body, kPng);
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-library-classes")));
        QVERIFY(m_browser.desktop());
        QVERIFY(m_browser.screenshot(QStringLiteral("desktop-library-classes")));
        QVERIFY(m_browser.phone());
    }

    void newAgentFormSendsClassSkillsAndInstructions() {
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        CLICK(QStringLiteral("#new-agent"));
        QVERIFY(m_browser.typeInto(QStringLiteral("#new-agent-name"), QStringLiteral("rev-1")));
        QVERIFY(m_browser.typeInto(QStringLiteral("#new-agent-cwd"), m_rig->cwd, true));
        QVERIFY(m_browser.typeInto(QStringLiteral("#new-agent-class"), QStringLiteral("reviewer")));
        WAIT_JS(QStringLiteral("return document.getElementById('new-agent-class-about')"
                               ".textContent.includes('Reads diffs')"));
        CLICK(QStringLiteral("#new-agent-skills input[value=\"release-notes\"]"));
        QVERIFY(m_browser.typeInto(QStringLiteral("#new-agent-instructions"),
                                   QStringLiteral("Answer in one paragraph.")));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-new-agent")));
        CLICK(QStringLiteral("#new-agent-create"));
        WAIT_JS(QStringLiteral("return !document.getElementById('new-agent-form') &&"
                               " document.querySelectorAll('#agent-list li.agent').length === 2"));
        const QJsonArray agents = rest("GET", QStringLiteral("/api/agents")).array();
        QJsonObject made;
        for (const QJsonValue &a : agents)
            if (a.toObject().value(QStringLiteral("name")).toString() == QLatin1String("rev-1"))
                made = a.toObject();
        m_reviewerId = made.value(QStringLiteral("id")).toString();
        QVERIFY(!m_reviewerId.isEmpty());
        QCOMPARE(made.value(QStringLiteral("class")).toString(), QStringLiteral("reviewer"));
        QCOMPARE(made.value(QString(k::Skills)).toArray(),
                 QJsonArray{QStringLiteral("release-notes")});
        QCOMPARE(made.value(QString(k::CustomInstructions)).toString(),
                 QStringLiteral("Answer in one paragraph."));
        // The class's icon beside the agent in the list.
        WAIT_JS(iconLoaded(QStringLiteral("#agent-list li[data-id=\"%1\"]").arg(m_reviewerId),
                           QStringLiteral("reviewer")));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-agents-with-class-icon")));
    }

    void agentHeaderShowsClassAndSkills() {
        CLICK(QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(m_reviewerId));
        WAIT_JS(QStringLiteral("const s = document.getElementById('agent-shape');"
                               "return s && !s.hidden && s.textContent.includes('Reviewer') &&"
                               " s.textContent.includes('release-notes')"));
        WAIT_JS(iconLoaded(QStringLiteral(".view-head"), QStringLiteral("reviewer")));
    }

    void savedPromptFillsTheMessageBox() {
        const auto prompt = [this](const QString &name, const QString &text,
                                   const QJsonObject &scope) {
            return rest("POST", QStringLiteral("/api/prompts"),
                        {{QStringLiteral("name"), name},
                         {QString(k::Text), text},
                         {QString(k::Scope), scope}});
        };
        QCOMPARE(
            prompt(QStringLiteral("Daily status"), QStringLiteral("What did you change today?"), {})
                .status,
            201);
        QCOMPARE(prompt(QStringLiteral("Review the diff"),
                        QStringLiteral("Review the current diff."),
                        {{QStringLiteral("class"), QStringLiteral("reviewer")}})
                     .status,
                 201);
        QCOMPARE(prompt(QStringLiteral("Run the tests"),
                        QStringLiteral("Run make check and report."),
                        {{QStringLiteral("agentId"), m_rig->agentId}})
                     .status,
                 201);
        // The reviewer's box offers the global prompt and its class's, not agent-1's own.
        WAIT_JS(QStringLiteral(
            "const p = document.getElementById('prompt-picker');"
            "const names = [...p.options].map((o) => o.textContent);"
            "return !p.hidden && names.length === 3 && names.includes('Review the diff')"
            " && names.includes('Daily status') && !names.includes('Run the tests')"));
        // Agent-1: pick, edit, send.
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        CLICK(QStringLiteral("#agent-list li[data-id=\"%1\"] a").arg(m_rig->agentId));
        WAIT_JS(QStringLiteral("const p = document.getElementById('prompt-picker');"
                               "return p && p.options.length === 3"));
        const QString id =
            m_browser
                .eval(QStringLiteral("return [...document.getElementById('prompt-picker').options]"
                                     ".find((o) => o.textContent === 'Run the tests').value"))
                .toString();
        QVERIFY(choose(QStringLiteral("#prompt-picker"), id));
        WAIT_JS(QStringLiteral("return document.getElementById('message').value ==="
                               " 'Run make check and report.'"));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-prompt-picked")));
        QVERIFY(m_browser.typeInto(QStringLiteral("#message"), QStringLiteral(" Briefly.")));
        const int before = m_rig->model().requestCount();
        m_rig->model().queueText(QStringLiteral("All green."));
        CLICK(QStringLiteral("#send"));
        QVERIFY(m_rig->waitTurns(1, 60000));
        QVERIFY(m_rig->model().requestCount() > before);
        QVERIFY2(m_rig->model()
                     .lastUserTextOf(m_rig->model().requestCount() - 1)
                     .endsWith(QLatin1String("Run make check and report. Briefly.")),
                 qPrintable(m_rig->model().lastUserTextOf(m_rig->model().requestCount() - 1)));
        // A prompt added elsewhere reaches the open box.
        QCOMPARE(prompt(QStringLiteral("Summarise"), QStringLiteral("Summarise the session."), {})
                     .status,
                 201);
        WAIT_JS(
            QStringLiteral("return document.getElementById('prompt-picker').options.length === 4"));
        // The prompts section lists them and follows a deletion.
        QVERIFY2(openLibrary(QStringLiteral("prompts")), qPrintable(m_browser.lastError()));
        WAIT_JS(
            QStringLiteral("return document.querySelectorAll('#prompts-list li').length === 4"));
        const QString summarise =
            m_browser
                .eval(
                    QStringLiteral("return [...document.querySelectorAll('#prompts-list li')]"
                                   ".find((l) => l.textContent.includes('Summarise')).dataset.key"))
                .toString();
        QCOMPARE(rest("DELETE", QStringLiteral("/api/prompts/") + summarise).status, 204);
        WAIT_JS(
            QStringLiteral("return document.querySelectorAll('#prompts-list li').length === 3"));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-library-prompts")));
    }

    void deletingAClassInUseShowsTheServersError() {
        QVERIFY2(openLibrary(QStringLiteral("classes")), qPrintable(m_browser.lastError()));
        const QString button =
            QStringLiteral("#classes-list li[data-key=\"reviewer\"] button.delete");
        CLICK(button);
        CLICK(button);
        WAIT_JS(QStringLiteral("const e = document.getElementById('classes-error');"
                               "return !e.hidden && e.dataset.code === 'class_in_use' &&"
                               " e.textContent.includes('rev-1')"));
        QVERIFY(rest("GET", QStringLiteral("/api/classes/reviewer")).status == 200);
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-library-class-in-use")));
    }

    void anSvgIconWithAScriptNeverRuns() {
        QCOMPARE(rest("POST", QStringLiteral("/api/classes"),
                      {{QString(k::Slug), QStringLiteral("hostile")},
                       {QString(k::Icon), icon("image/svg+xml", kHostileSvg)}})
                     .status,
                 201);
        QCOMPARE(m_rig
                     ->createAgent(QStringLiteral("hostile-1"),
                                   {{QStringLiteral("class"), QStringLiteral("hostile")}})
                     .status,
                 201);
        WAIT_JS(iconLoaded(QStringLiteral("#classes-list li[data-key=\"hostile\"]"),
                           QStringLiteral("hostile")));
        QVERIFY(m_browser.clickNav(QStringLiteral("agents")));
        WAIT_JS(iconLoaded(QStringLiteral("#agent-list"), QStringLiteral("hostile")));
        QVERIFY(m_browser.run(QStringLiteral("click"),
                              args({{QStringLiteral("css"),
                                     QStringLiteral("#agent-list img[data-class=\"hostile\"]")}})));
        WAIT_JS(iconLoaded(QStringLiteral(".view-head"), QStringLiteral("hostile")));
        // Shown, hovered, clicked: nothing of it ran, and the page holds no SVG markup at all.
        QVERIFY(m_browser
                    .eval(QStringLiteral(
                        "return window.__svgPwned === undefined &&"
                        " document.querySelectorAll('svg, foreignObject').length === 0"))
                    .toBool());
        const HttpResponse served = rest("GET", QStringLiteral("/api/classes/hostile/icon"));
        QCOMPARE(served.header("content-type"), QByteArrayLiteral("image/svg+xml"));
        QCOMPARE(served.header("x-content-type-options"), QByteArrayLiteral("nosniff"));
        QVERIFY(served.header("content-security-policy").contains("sandbox"));
    }

    void hooksShowRunsAndAFailingLastRun() {
        QVERIFY2(openLibrary(QStringLiteral("hooks")), qPrintable(m_browser.lastError()));
        const HttpResponse made =
            rest("POST", QStringLiteral("/api/hooks"),
                 {{QStringLiteral("name"), QStringLiteral("notify-ci")},
                  {QString(k::Event), QStringLiteral("turn_finished")},
                  {QString(k::Filter), QJsonObject{{QStringLiteral("agentId"), m_rig->agentId}}},
                  {QString(k::Command),
                   QJsonArray{
                       QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                       QStringLiteral("cat >/dev/null; echo hook-ran-$FLOTILLA_EVENT; exit 3")}}});
        QCOMPARE(made.status, 201);
        const QString hookId = made.object().value(QStringLiteral("id")).toString();
        WAIT_JS(QStringLiteral("const r = %1; return r && r.textContent.includes('turn_finished')")
                    .arg(row(QStringLiteral("hooks"), hookId)));
        m_rig->model().queueText(QStringLiteral("Done."));
        QCOMPARE(m_rig->send(QStringLiteral("One more turn")).status, 200);
        // hook_run: the row marks the failing last run.
        WAIT_JS_LONG(QStringLiteral("const r = %1; return r && r.classList.contains('failed') &&"
                                    " r.querySelector('.last-run').textContent.includes('Exit 3')")
                         .arg(row(QStringLiteral("hooks"), hookId)),
                     60);
        CLICK(QStringLiteral("#hooks-list li[data-key=\"%1\"] button.panel-toggle").arg(hookId));
        WAIT_JS(QStringLiteral(
                    "const r = document.querySelector('#hooks-list li[data-key=\"%1\"] li.run');"
                    "return r && r.classList.contains('failed') &&"
                    " r.textContent.includes('hook-ran-turn_finished')")
                    .arg(hookId));
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-library-hooks")));
        // Edited in the form.
        CLICK(QStringLiteral("#hooks-list li[data-key=\"%1\"] button.edit").arg(hookId));
        QVERIFY(m_browser.typeInto(QStringLiteral("#hook-timeout"), QStringLiteral("12"), true));
        CLICK(QStringLiteral("#hooks-save"));
        WAIT_JS(QStringLiteral("return !document.getElementById('hooks-form') &&"
                               " %1.textContent.includes('timeout 12 s')")
                    .arg(row(QStringLiteral("hooks"), hookId)));
        const QJsonObject hook = rest("GET", QStringLiteral("/api/hooks/") + hookId).object();
        QCOMPARE(hook.value(QString(k::TimeoutSeconds)).toInt(), 12);
        QCOMPARE(hook.value(QString(k::Command)), made.object().value(QString(k::Command)));
    }

    void buildingsStateLogsAndControls() {
        QVERIFY2(openLibrary(QStringLiteral("buildings")), qPrintable(m_browser.lastError()));
        const QString go = QDir(m_dir.path()).filePath(QStringLiteral("go"));
        const HttpResponse made =
            rest("POST", QStringLiteral("/api/buildings"),
                 {{QStringLiteral("name"), QStringLiteral("dev-server")},
                  {QStringLiteral("cwd"), m_dir.path()},
                  {QString(k::Command),
                   QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                              QStringLiteral("echo started-1; echo warned-1 >&2;"
                                             " while [ ! -e go ]; do sleep 0.1; done;"
                                             " echo after-go; exec sleep 600")}},
                  {QString(k::Restart), QStringLiteral("no")},
                  {QString(k::Url), QStringLiteral("http://127.0.0.1:5173/")}});
        QCOMPARE(made.status, 201);
        const QString id = made.object().value(QStringLiteral("id")).toString();
        const QString r = row(QStringLiteral("buildings"), id);
        WAIT_JS(QStringLiteral("const r = %1; const a = r && r.querySelector('a.building-url');"
                               "return a && a.rel.includes('noopener') && a.target === '_blank' &&"
                               " a.href === 'http://127.0.0.1:5173/'")
                    .arg(r));
        QVERIFY(
            click(QStringLiteral("#buildings-list li[data-key=\"%1\"] button.op-start").arg(id)));
        WAIT_JS_LONG(
            QStringLiteral("return %1.querySelector('.building-state').textContent === 'Running'")
                .arg(r),
            30);
        CLICK(QStringLiteral("#buildings-list li[data-key=\"%1\"] button.panel-toggle").arg(id));
        const QString log =
            QStringLiteral("document.querySelector('#buildings-list li[data-key=\"%1\"] pre.log')")
                .arg(id);
        WAIT_JS(QStringLiteral("const l = %1; return l && l.textContent.includes('started-1') &&"
                               " l.querySelector('.stderr') &&"
                               " l.querySelector('.stderr').textContent.includes('warned-1')")
                    .arg(log));
        // What it prints now arrives as building_output.
        QFile trigger(go);
        QVERIFY(trigger.open(QIODevice::WriteOnly));
        trigger.close();
        WAIT_JS_LONG(QStringLiteral("return %1.textContent.includes('after-go')").arg(log), 30);
        QVERIFY(m_browser.screenshot(QStringLiteral("phone-library-buildings")));
        QVERIFY(m_browser.desktop());
        QVERIFY(m_browser.screenshot(QStringLiteral("desktop-library-buildings")));
        QVERIFY(m_browser.phone());
        QVERIFY(
            click(QStringLiteral("#buildings-list li[data-key=\"%1\"] button.op-stop").arg(id)));
        WAIT_JS_LONG(QStringLiteral("const s = %1.querySelector('.building-state').textContent;"
                                    "return s === 'Stopped' || s === 'Exited'")
                         .arg(r),
                     30);
        // The log panel stayed open across the state changes.
        QVERIFY(m_browser.eval(QStringLiteral("return !!%1").arg(log)).toBool());
        // Edited in the form: the whole building goes back as it was, renamed.
        CLICK(QStringLiteral("#buildings-list li[data-key=\"%1\"] button.edit").arg(id));
        QVERIFY(
            m_browser.typeInto(QStringLiteral("#building-name"), QStringLiteral("web-dev"), true));
        CLICK(QStringLiteral("#buildings-save"));
        WAIT_JS(QStringLiteral("return !document.getElementById('buildings-form') &&"
                               " %1.textContent.includes('web-dev')")
                    .arg(r));
        const QJsonObject stored = rest("GET", QStringLiteral("/api/buildings/") + id).object();
        QCOMPARE(stored.value(QStringLiteral("name")).toString(), QStringLiteral("web-dev"));
        QCOMPARE(stored.value(QString(k::Command)), made.object().value(QString(k::Command)));
        QCOMPARE(stored.value(QString(k::Url)).toString(),
                 QStringLiteral("http://127.0.0.1:5173/"));
    }

    void aLibrarySectionOpensByItsAddress() {
        // A reload or a bookmark of /library/<section> gets the page, which shows that section.
        QVERIFY2(m_browser.run(QStringLiteral("open"),
                               args({{QStringLiteral("path"), QStringLiteral("/library/skills")}})),
                 qPrintable(m_browser.lastError()));
        WAIT_JS(
            QStringLiteral("return %1 && document.querySelector('.tabs a[aria-current=\"page\"]')"
                           ".dataset.tab === 'skills'")
                .arg(row(QStringLiteral("skills"), QStringLiteral("checklist"))));
    }
};

QTEST_GUILESS_MAIN(TestWebShaping)
#include "tst_web_shaping.moc"
