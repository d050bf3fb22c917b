// Classes, skills, area instructions and the agents' new fields over REST, against the real
// service: every route's rows, each refusal with its status and code, the limits, the events,
// class defaults applied at creation, deletion in use, the icon route's headers, and what
// survives a restart.

#include "support/OrgFixture.h"

#include <QJsonArray>

using namespace flotilla;
using namespace flotilla::test;

namespace {
const QByteArray kPng = QByteArray::fromBase64(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg"
    "==");

QJsonObject icon(const QString &type, const QByteArray &bytes) {
    return QJsonObject{{QStringLiteral("mediaType"), type},
                       {QStringLiteral("dataBase64"), QString::fromLatin1(bytes.toBase64())}};
}

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}
} // namespace

class TestShapingCatalog : public QObject {
    Q_OBJECT

    OrgFixture f;

    HttpResponse patch(const QString &path, const QJsonObject &body) {
        return f.http->patch(f.url(path), body);
    }

private Q_SLOTS:
    void init() { QVERIFY(f.start()); }
    void cleanup() { f.reset(); }

    void builtinClassesAreListed() {
        const QJsonArray classes = f.get(QStringLiteral("/api/classes")).array();
        QVERIFY(classes.size() >= 2);
        QCOMPARE(str(classes.at(0).toObject(), "slug"), QStringLiteral("builder"));
        QCOMPARE(str(classes.at(1).toObject(), "slug"), QStringLiteral("boss"));
        QVERIFY(classes.at(0).toObject().value(QStringLiteral("builtin")).toBool());
        expectError(f.del(QStringLiteral("/api/classes/builder")), 409,
                    QStringLiteral("builtin_class"));
        // Their instructions can be overridden, and that survives a restart.
        const auto r = patch(QStringLiteral("/api/classes/builder"),
                             {{QStringLiteral("instructions"), QStringLiteral("Be careful.")}});
        QCOMPARE(r.status, 200);
        QVERIFY(f.barrier());
        QCOMPARE(f.payloads(QLatin1String("class_updated")).size(), 1);
        QVERIFY(f.restart());
        QCOMPARE(str(f.get(QStringLiteral("/api/classes/builder")).object(), "instructions"),
                 QStringLiteral("Be careful."));
    }

    void classLifecycle() {
        QCOMPARE(f.post(QStringLiteral("/api/skills"),
                        {{QStringLiteral("slug"), QStringLiteral("tests")},
                         {QStringLiteral("description"), QStringLiteral("Run the tests.")}})
                     .status,
                 201);
        const auto created =
            f.post(QStringLiteral("/api/classes"),
                   {{QStringLiteral("slug"), QStringLiteral("reviewer")},
                    {QStringLiteral("name"), QStringLiteral("Reviewer")},
                    {QStringLiteral("instructions"), QStringLiteral("Review, do not write.")},
                    {QStringLiteral("defaults"),
                     QJsonObject{{QStringLiteral("provider"), QStringLiteral("codex")},
                                 {QStringLiteral("permissionMode"), QStringLiteral("auto")},
                                 {QStringLiteral("idleTimeoutSeconds"), 120}}},
                    {QStringLiteral("skills"), QJsonArray{QStringLiteral("tests")}},
                    {QStringLiteral("disallowedTools"), QJsonArray{QStringLiteral("Write")}},
                    {QStringLiteral("icon"), icon(QStringLiteral("image/png"), kPng)}});
        QCOMPARE(created.status, 201);
        QCOMPARE(created.header("location"), QByteArray("/api/classes/reviewer"));
        const QJsonObject cls = created.object();
        QVERIFY(cls.value(QStringLiteral("hasIcon")).toBool());
        QVERIFY(!cls.contains(QStringLiteral("icon"))); // the bytes only at iconUrl
        QCOMPARE(str(cls, "iconUrl"), QStringLiteral("/api/classes/reviewer/icon"));
        QVERIFY(f.barrier());
        QCOMPARE(f.payloads(QLatin1String("class_created")).size(), 1);

        // The defaults fill what the body leaves out; what it gives wins.
        const auto a = f.post(QStringLiteral("/api/agents"),
                              {{QStringLiteral("name"), QStringLiteral("r1")},
                               {QStringLiteral("cwd"), f.svc->workDir()},
                               {QStringLiteral("class"), QStringLiteral("reviewer")},
                               {QStringLiteral("permissionMode"), QStringLiteral("ask")}});
        QCOMPARE(a.status, 201);
        QCOMPARE(str(a.object(), "provider"), QStringLiteral("codex"));
        QCOMPARE(str(a.object(), "permissionMode"), QStringLiteral("ask"));
        QCOMPARE(a.object().value(QStringLiteral("idleTimeoutSeconds")).toInt(), 120);

        // In use: 409 naming the agents; once they are gone it can be deleted.
        const auto inUse = f.del(QStringLiteral("/api/classes/reviewer"));
        expectError(inUse, 409, QStringLiteral("class_in_use"));
        QCOMPARE(inUse.object().value(QStringLiteral("agents")).toArray(),
                 QJsonArray{QStringLiteral("r1")});
        QCOMPARE(f.del(QStringLiteral("/api/agents/") + str(a.object(), "id")).status, 204);
        QCOMPARE(f.del(QStringLiteral("/api/classes/reviewer")).status, 204);
        QVERIFY(f.barrier());
        QCOMPARE(f.payloads(QLatin1String("class_deleted")).size(), 1);
        QCOMPARE(f.get(QStringLiteral("/api/classes/reviewer")).status, 404);
    }

    // A class's default host: its agents made without `host` run there, an explicit one wins,
    // and a host that does not exist is refused when an agent is made, not when the class is.
    // (The host points at a port nothing listens on: creating agents does not connect.)
    void classDefaultHost() {
        QCOMPARE(f.post(QStringLiteral("/api/hosts"),
                        {{QStringLiteral("name"), QStringLiteral("far")},
                         {QStringLiteral("ssh"), QStringLiteral("x@127.0.0.2:1")}})
                     .status,
                 201);
        HttpResponse r =
            f.post(QStringLiteral("/api/classes"),
                   {{QStringLiteral("slug"), QStringLiteral("remote-worker")},
                    {QStringLiteral("defaults"),
                     QJsonObject{{QStringLiteral("host"), QStringLiteral("far")},
                                 {QStringLiteral("permissionMode"), QStringLiteral("auto")}}}});
        QCOMPARE(r.status, 201);
        QCOMPARE(str(r.object().value(QStringLiteral("defaults")).toObject(), "host"),
                 QStringLiteral("far"));
        // Its cwd is that machine's: not checked here.
        r = f.post(QStringLiteral("/api/agents"),
                   {{QStringLiteral("name"), QStringLiteral("w1")},
                    {QStringLiteral("cwd"), QStringLiteral("/srv/far/project")},
                    {QStringLiteral("class"), QStringLiteral("remote-worker")}});
        QCOMPARE(r.status, 201);
        QCOMPARE(str(r.object(), "host"), QStringLiteral("far"));
        QCOMPARE(str(r.object(), "cwd"), QStringLiteral("/srv/far/project"));
        QCOMPARE(str(r.object(), "permissionMode"), QStringLiteral("auto"));
        r = f.post(QStringLiteral("/api/agents"),
                   {{QStringLiteral("name"), QStringLiteral("w2")},
                    {QStringLiteral("cwd"), f.svc->workDir()},
                    {QStringLiteral("class"), QStringLiteral("remote-worker")},
                    {QStringLiteral("host"), QStringLiteral("local")}});
        QCOMPARE(r.status, 201);
        QCOMPARE(str(r.object(), "host"), QStringLiteral("local"));
        // A host nobody defined: the class is accepted, its agents are not.
        QCOMPARE(patch(QStringLiteral("/api/classes/remote-worker"),
                       {{QStringLiteral("defaults"),
                         QJsonObject{{QStringLiteral("host"), QStringLiteral("nowhere")}}}})
                     .status,
                 200);
        expectError(f.post(QStringLiteral("/api/agents"),
                           {{QStringLiteral("name"), QStringLiteral("w3")},
                            {QStringLiteral("cwd"), QStringLiteral("/srv/far/project")},
                            {QStringLiteral("class"), QStringLiteral("remote-worker")}}),
                    422, QStringLiteral("unknown_host"));
        // "local" is a host too.
        QCOMPARE(patch(QStringLiteral("/api/classes/remote-worker"),
                       {{QStringLiteral("defaults"),
                         QJsonObject{{QStringLiteral("host"), QStringLiteral("local")}}}})
                     .status,
                 200);
        r = f.post(QStringLiteral("/api/agents"),
                   {{QStringLiteral("name"), QStringLiteral("w3")},
                    {QStringLiteral("cwd"), f.svc->workDir()},
                    {QStringLiteral("class"), QStringLiteral("remote-worker")}});
        QCOMPARE(r.status, 201);
        QCOMPARE(str(r.object(), "host"), QStringLiteral("local"));
    }

    void classRefusals_data() {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const auto row = [](const char *name, QJsonObject body, int status, const char *code) {
            QTest::newRow(name) << body << status << QString::fromLatin1(code);
        };
        const QString slug = QStringLiteral("slug");
        row("no slug", {{QStringLiteral("name"), QStringLiteral("x")}}, 400, "missing_field");
        row("bad slug", {{slug, QStringLiteral("Bad Slug")}}, 422, "invalid_value");
        row("taken", {{slug, QStringLiteral("builder")}}, 409, "conflict");
        row("unknown field", {{slug, QStringLiteral("a")}, {QStringLiteral("colour"), 1}}, 422,
            "unknown_field");
        row("instructions too long",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("instructions"), QString(64 * 1024 + 1, QLatin1Char('x'))}},
            422, "invalid_value");
        row("unknown skill",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("skills"), QJsonArray{QStringLiteral("nope")}}},
            422, "unknown_skill");
        row("bad default",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("defaults"),
              QJsonObject{{QStringLiteral("permissionMode"), QStringLiteral("yolo")}}}},
            422, "invalid_value");
        row("unknown provider default",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("defaults"),
              QJsonObject{{QStringLiteral("provider"), QStringLiteral("gpt")}}}},
            422, "invalid_value");
        row("unknown default field",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("defaults"),
              QJsonObject{{QStringLiteral("cwd"), QStringLiteral("/")}}}},
            422, "unknown_field");
        row("host default not a string",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("defaults"), QJsonObject{{QStringLiteral("host"), 3}}}},
            400, "wrong_type");
        row("host default not a name",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("defaults"),
              QJsonObject{{QStringLiteral("host"), QStringLiteral("Big Box")}}}},
            422, "invalid_value");
        row("host default with a worktree",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("defaults"),
              QJsonObject{{QStringLiteral("host"), QStringLiteral("far")},
                          {QStringLiteral("worktree"), true}}}},
            422, "invalid_value");
        row("icon not png",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("icon"), icon(QStringLiteral("image/png"), "GIF89a")}},
            422, "invalid_icon");
        row("icon type",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("icon"), icon(QStringLiteral("text/html"), "<b>")}},
            422, "invalid_icon");
        row("icon too big",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("icon"),
              icon(QStringLiteral("image/png"), kPng + QByteArray(64 * 1024, 'x'))}},
            422, "invalid_icon");
        row("icon svg not svg",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("icon"), icon(QStringLiteral("image/svg+xml"), "<html></html>")}},
            422, "invalid_icon");
        row("icon not base64",
            {{slug, QStringLiteral("a")},
             {QStringLiteral("icon"),
              QJsonObject{{QStringLiteral("mediaType"), QStringLiteral("image/png")},
                          {QStringLiteral("dataBase64"), QStringLiteral("*!*")}}}},
            422, "invalid_icon");
        row("tools wrong type", {{slug, QStringLiteral("a")}, {QStringLiteral("allowedTools"), 3}},
            400, "wrong_type");
    }
    void classRefusals() {
        QFETCH(QJsonObject, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        expectError(f.post(QStringLiteral("/api/classes"), body), status, code);
        QCOMPARE(f.get(QStringLiteral("/api/classes")).array().size(), 2); // nothing made
    }

    // Served as its own type, never sniffed; an SVG (which can hold script) sandboxed.
    void iconIsServedSafely() {
        const QByteArray svg = "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script>"
                               "<rect width='4' height='4'/></svg>";
        QCOMPARE(f.post(QStringLiteral("/api/classes"),
                        {{QStringLiteral("slug"), QStringLiteral("drawn")},
                         {QStringLiteral("icon"), icon(QStringLiteral("image/svg+xml"), svg)}})
                     .status,
                 201);
        const auto r = f.get(QStringLiteral("/api/classes/drawn/icon"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body, svg);
        QCOMPARE(r.header("content-type"), QByteArray("image/svg+xml"));
        QCOMPARE(r.header("x-content-type-options"), QByteArray("nosniff"));
        QVERIFY(r.header("content-security-policy").startsWith("sandbox"));
        // Removed with null; then 404.
        QCOMPARE(
            patch(QStringLiteral("/api/classes/drawn"), {{QStringLiteral("icon"), QJsonValue()}})
                .status,
            200);
        expectError(f.get(QStringLiteral("/api/classes/drawn/icon")), 404,
                    QStringLiteral("not_found"));
        expectError(f.get(QStringLiteral("/api/classes/nope/icon")), 404,
                    QStringLiteral("not_found"));
    }

    void skillLifecycleAndRefusals() {
        const auto made =
            f.post(QStringLiteral("/api/skills"),
                   {{QStringLiteral("slug"), QStringLiteral("brief")},
                    {QStringLiteral("description"), QStringLiteral("Write a brief.")},
                    {QStringLiteral("content"), QStringLiteral("# Brief\nThree bullets.")},
                    {QStringLiteral("allowedTools"), QJsonArray{QStringLiteral("Read")}}});
        QCOMPARE(made.status, 201);
        QCOMPARE(str(made.object(), "name"), QStringLiteral("brief"));
        QVERIFY(made.object().value(QStringLiteral("enabled")).toBool());
        expectError(f.post(QStringLiteral("/api/skills"),
                           {{QStringLiteral("slug"), QStringLiteral("brief")},
                            {QStringLiteral("description"), QStringLiteral("again")}}),
                    409, QStringLiteral("conflict"));
        expectError(
            f.post(QStringLiteral("/api/skills"), {{QStringLiteral("slug"), QStringLiteral("x")}}),
            400, QStringLiteral("missing_field"));
        expectError(
            f.post(QStringLiteral("/api/skills"),
                   {{QStringLiteral("slug"), QStringLiteral("x")},
                    {QStringLiteral("description"), QStringLiteral("d")},
                    {QStringLiteral("content"), QString(256 * 1024 + 1, QLatin1Char('x'))}}),
            422, QStringLiteral("invalid_value"));
        expectError(f.post(QStringLiteral("/api/skills"),
                           {{QStringLiteral("slug"), QStringLiteral("x")},
                            {QStringLiteral("description"), QStringLiteral("d")},
                            {QStringLiteral("name"), QStringLiteral("Has Spaces")}}),
                    422, QStringLiteral("invalid_value"));
        QCOMPARE(
            patch(QStringLiteral("/api/skills/brief"), {{QStringLiteral("enabled"), false}}).status,
            200);
        expectError(patch(QStringLiteral("/api/skills/brief"),
                          {{QStringLiteral("slug"), QStringLiteral("b")}}),
                    422, QStringLiteral("unknown_field"));
        expectError(patch(QStringLiteral("/api/skills/none"), {{QStringLiteral("enabled"), true}}),
                    404, QStringLiteral("not_found"));

        // Given to an agent: in use until taken away.
        const QString agent = f.createAgent(QStringLiteral("a1"));
        QCOMPARE(patch(QStringLiteral("/api/agents/") + agent,
                       {{QStringLiteral("skills"), QJsonArray{QStringLiteral("brief")}}})
                     .status,
                 200);
        expectError(patch(QStringLiteral("/api/agents/") + agent,
                          {{QStringLiteral("skills"), QJsonArray{QStringLiteral("missing")}}}),
                    422, QStringLiteral("unknown_skill"));
        const auto inUse = f.del(QStringLiteral("/api/skills/brief"));
        expectError(inUse, 409, QStringLiteral("skill_in_use"));
        QCOMPARE(inUse.object().value(QStringLiteral("agents")).toArray(),
                 QJsonArray{QStringLiteral("a1")});
        QCOMPARE(patch(QStringLiteral("/api/agents/") + agent,
                       {{QStringLiteral("skills"), QJsonArray{}}})
                     .status,
                 200);
        QCOMPARE(f.del(QStringLiteral("/api/skills/brief")).status, 204);
        QVERIFY(f.barrier());
        QCOMPARE(f.payloads(QLatin1String("skill_created")).size(), 1);
        QCOMPARE(f.payloads(QLatin1String("skill_updated")).size(), 1);
        QCOMPARE(f.payloads(QLatin1String("skill_deleted")).size(), 1);
    }

    // spawn_boss_agent (and a boss's spawn blocks, through the same parser) take them too.
    void bossSpawnTakesShapingFields() {
        QCOMPARE(f.post(QStringLiteral("/api/skills"),
                        {{QStringLiteral("slug"), QStringLiteral("lead")},
                         {QStringLiteral("description"), QStringLiteral("Lead a team.")}})
                     .status,
                 201);
        f.ws->sendJson(QJsonObject{
            {QStringLiteral("type"), QStringLiteral("spawn_boss_agent")},
            {QStringLiteral("payload"),
             QJsonObject{{QStringLiteral("name"), QStringLiteral("chief")},
                         {QStringLiteral("cwd"), f.svc->workDir()},
                         {QStringLiteral("customInstructions"), QStringLiteral("Plan first.")},
                         {QStringLiteral("skills"), QJsonArray{QStringLiteral("lead")}}}}});
        QVERIFY(f.ws->waitFor(QStringLiteral("agent_created")));
        const QJsonObject boss = f.payloads(QLatin1String("agent_created")).constLast();
        QCOMPARE(str(boss, "class"), QStringLiteral("boss"));
        QCOMPARE(str(boss, "customInstructions"), QStringLiteral("Plan first."));
        QCOMPARE(boss.value(QStringLiteral("skills")).toArray(),
                 QJsonArray{QStringLiteral("lead")});
        f.ws->sendJson(QJsonObject{
            {QStringLiteral("type"), QStringLiteral("spawn_boss_agent")},
            {QStringLiteral("payload"),
             QJsonObject{{QStringLiteral("name"), QStringLiteral("chief-2")},
                         {QStringLiteral("cwd"), f.svc->workDir()},
                         {QStringLiteral("skills"), QJsonArray{QStringLiteral("ghost")}}}}});
        QVERIFY(f.ws->waitFor(QStringLiteral("error")));
        QCOMPARE(
            f.payloads(QLatin1String("error")).constLast().value(QStringLiteral("code")).toString(),
            QStringLiteral("unknown_skill"));
    }

    void agentAndAreaInstructions() {
        const auto a =
            f.post(QStringLiteral("/api/agents"),
                   {{QStringLiteral("name"), QStringLiteral("a1")},
                    {QStringLiteral("cwd"), f.svc->workDir()},
                    {QStringLiteral("customInstructions"), QStringLiteral("Be terse.")}});
        QCOMPARE(a.status, 201);
        QCOMPARE(str(a.object(), "customInstructions"), QStringLiteral("Be terse."));
        QCOMPARE(a.object().value(QStringLiteral("skills")).toArray(), QJsonArray());
        const QString id = str(a.object(), "id");
        expectError(patch(QStringLiteral("/api/agents/") + id,
                          {{QStringLiteral("customInstructions"),
                            QString(64 * 1024 + 1, QLatin1Char('x'))}}),
                    422, QStringLiteral("invalid_value"));
        expectError(
            patch(QStringLiteral("/api/agents/") + id, {{QStringLiteral("customInstructions"), 5}}),
            400, QStringLiteral("wrong_type"));
        expectError(patch(QStringLiteral("/api/agents/") + id,
                          {{QStringLiteral("skills"),
                            QJsonArray{QStringLiteral("a"), QStringLiteral("a")}}}),
                    422, QStringLiteral("invalid_value"));

        const QJsonObject area = f.createArea(QStringLiteral("Backend"));
        const QString areaPath = QStringLiteral("/api/areas/") + str(area, "id");
        const auto changed =
            patch(areaPath, {{QStringLiteral("instructions"), QStringLiteral("Use Go.")},
                             {QStringLiteral("color"), QStringLiteral("#AABBCC")}});
        QCOMPARE(changed.status, 200);
        QCOMPARE(str(changed.object(), "instructions"), QStringLiteral("Use Go."));
        QCOMPARE(str(changed.object(), "color"), QStringLiteral("#aabbcc"));
        QVERIFY(f.barrier());
        QCOMPARE(f.payloads(QLatin1String("area_updated")).size(), 1);
        f.createArea(QStringLiteral("Frontend"));
        expectError(patch(areaPath, {{QStringLiteral("name"), QStringLiteral("frontend")}}), 409,
                    QStringLiteral("conflict"));
        expectError(patch(areaPath, {{QStringLiteral("owner"), QStringLiteral("x")}}), 422,
                    QStringLiteral("unknown_field"));
        expectError(patch(QStringLiteral("/api/areas/nope"),
                          {{QStringLiteral("name"), QStringLiteral("x")}}),
                    404, QStringLiteral("not_found"));

        QVERIFY(f.restart());
        QCOMPARE(str(f.get(areaPath).object(), "instructions"), QStringLiteral("Use Go."));
        QCOMPARE(str(f.agent(id), "customInstructions"), QStringLiteral("Be terse."));
    }
};

QTEST_GUILESS_MAIN(TestShapingCatalog)
#include "tst_shaping_catalog.moc"
