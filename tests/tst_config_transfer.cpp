// Config export and import against the real service: the round trip into a fresh service (every
// one of the twelve categories with content), the category selection, every refusal (each leaving
// the state untouched), dry runs, and the undo of an import whose last write fails.

#include "protocol/ShapingNames.h"
#include "support/OrgFixture.h"

#include <QDir>
#include <QFile>

using namespace flotilla;
using namespace flotilla::test;

namespace om = wire::org::msg;
namespace m = wire::msg;
namespace sm = wire::shaping::msg;

namespace {
const QString kName = QStringLiteral("name");
const QString kCategories = QStringLiteral("categories");
const QString kImport = QStringLiteral("/api/config/import");

// The state an import may touch, for "nothing changed" checks.
struct Snapshot {
    QJsonArray agents;
    QJsonArray areas;
    QString prompt;
    QJsonValue secrets;      // names and timestamps
    QList<QByteArray> lists; // the feature categories' routes, as they answer
    bool operator==(const Snapshot &o) const {
        return agents == o.agents && areas == o.areas && prompt == o.prompt &&
               secrets == o.secrets && lists == o.lists;
    }
};

// What the feature categories hold, as their routes list it.
const QStringList kFeatureRoutes{
    QStringLiteral("/api/skills"),    QStringLiteral("/api/classes"),
    QStringLiteral("/api/prompts"),   QStringLiteral("/api/hooks"),
    QStringLiteral("/api/buildings"), QStringLiteral("/api/custom-3d-models")};

// The twelve, as QJsonObject::keys() sorts them.
const QStringList kAllCategories =
    QStringLiteral("agent-prompts,agents,areas,buildings,class-instructions,custom-3d-models,"
                   "custom-class-icons,custom-classes,hooks,permissions,skills,system-settings")
        .split(QLatin1Char(','));

const QByteArray kPng = QByteArray::fromBase64(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg"
    "==");
const QByteArray kObj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

// A value of an export document as a user set it up: ids and times left out, an area id
// replaced by the area's name (ids are each service's own).
QJsonValue comparable(const QJsonValue &v, const QHash<QString, QString> &areaNames) {
    if (v.isObject()) {
        QJsonObject out;
        const QJsonObject o = v.toObject();
        for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
            if (!QStringList{QStringLiteral("id"), QStringLiteral("createdAt"),
                             QStringLiteral("updatedAt"), QStringLiteral("exportedAt")}
                     .contains(it.key()))
                out.insert(it.key(), comparable(it.value(), areaNames));
        }
        return out;
    }
    if (v.isArray()) {
        QJsonArray out;
        for (const QJsonValue &e : v.toArray())
            out.append(comparable(e, areaNames));
        return out;
    }
    if (v.isString() && areaNames.contains(v.toString()))
        return QJsonValue(QStringLiteral("area:") + areaNames.value(v.toString()));
    return v;
}

QJsonObject comparableDocument(const QJsonObject &doc) {
    QHash<QString, QString> areaNames;
    for (const QJsonValue &a : doc[kCategories][QStringLiteral("areas")].toArray())
        areaNames.insert(a[QStringLiteral("id")].toString(), a[kName].toString());
    return comparable(doc, areaNames).toObject();
}

const QByteArray kSecretValue = "s3cr3t-Valu3-4711";

// Agents and areas as a user set them up, with area ids replaced by area names so that two
// services (with different ids) compare equal.
QJsonArray comparableAgents(const QJsonArray &agents, const QJsonArray &areas) {
    QHash<QString, QString> areaNames;
    for (const QJsonValue &a : areas)
        areaNames.insert(a[QStringLiteral("id")].toString(), a[kName].toString());
    QJsonArray out;
    for (const QJsonValue &v : agents) {
        QJsonObject o;
        for (const char *key : {"name", "class", "cwd", "provider", "model", "taskLabel",
                                "trackingStatus", "trackingStatusDetail"})
            o.insert(QLatin1String(key), v[QLatin1String(key)]);
        o.insert(QStringLiteral("area"), areaNames.value(v[QStringLiteral("areaId")].toString()));
        out.append(o);
    }
    return out;
}

QJsonArray withoutIds(const QJsonArray &areas) {
    QJsonArray out;
    for (const QJsonValue &v : areas)
        out.append(
            QJsonObject{{kName, v[kName]}, {QStringLiteral("color"), v[QStringLiteral("color")]}});
    return out;
}
} // namespace

class TestConfigTransfer final : public QObject {
    Q_OBJECT

    OrgFixture f;

    static Snapshot snapshot(OrgFixture &fx) {
        QList<QByteArray> lists;
        for (const QString &route : kFeatureRoutes)
            lists.append(fx.get(route).body);
        return Snapshot{
            fx.agents(), fx.areas(), fx.prompt(),
            fx.get(QStringLiteral("/api/secrets")).object().value(QStringLiteral("secrets")),
            lists};
    }
    Snapshot snapshot() { return snapshot(f); }
    // POSTs `body` to `path` and returns what was created (empty, and a warning, when refused).
    static QJsonObject made(OrgFixture &fx, const QString &path, const QJsonObject &body) {
        const HttpResponse r = fx.post(path, body);
        if (r.status != 201) {
            qWarning() << "POST" << path << "answered" << r.status << r.body;
            return {};
        }
        return r.object();
    }
    static int putSecret(OrgFixture &fx, const QString &name, const QByteArray &value) {
        return fx.http
            ->send("PUT", fx.url(QStringLiteral("/api/secrets/") + name),
                   compactJson(QJsonObject{{QStringLiteral("value"), QString::fromUtf8(value)}}))
            .status;
    }

    QJsonObject agentEntry(const QString &name, const QString &cwd = {}) const {
        return QJsonObject{{kName, name},
                           {QStringLiteral("cwd"), cwd.isEmpty() ? f.svc->workDir() : cwd}};
    }
    static QJsonObject document(const QJsonObject &categories) {
        return QJsonObject{{QStringLiteral("version"), 1}, {kCategories, categories}};
    }

    // Builds a small organisation in `fx`: two areas, three agents, labels, a prompt, two
    // permission rules (one everywhere, one for the API agent).
    static void populate(OrgFixture &fx) {
        const QString backend = fx.createArea(QStringLiteral("Backend"), QStringLiteral("#336699"))
                                    .value(QStringLiteral("id"))
                                    .toString();
        const QString docs =
            fx.createArea(QStringLiteral("Docs")).value(QStringLiteral("id")).toString();
        const QString api = fx.createAgent(QStringLiteral("API"));
        const QString writer = fx.createAgent(QStringLiteral("Writer"));
        fx.createAgent(QStringLiteral("Loner"));
        QCOMPARE(
            fx.http
                ->patch(fx.url(QStringLiteral("/api/agents/") + api),
                        QJsonObject{{QStringLiteral("taskLabel"), QStringLiteral("REST v2")},
                                    {QStringLiteral("trackingStatus"), QStringLiteral("blocked")},
                                    {QStringLiteral("trackingStatusDetail"),
                                     QStringLiteral("waits on review")}})
                .status,
            200);
        const QString move = QStringLiteral("/api/agents/bulk/move-area");
        QCOMPARE(fx.post(move, QJsonObject{{QStringLiteral("agentIds"), QJsonArray{api}},
                                           {QStringLiteral("areaId"), backend}})
                     .status,
                 200);
        QCOMPARE(fx.post(move, QJsonObject{{QStringLiteral("agentIds"), QJsonArray{writer}},
                                           {QStringLiteral("areaId"), docs}})
                     .status,
                 200);
        QCOMPARE(
            fx.post(QStringLiteral("/api/agents/system-settings/prompt"),
                    QJsonObject{{QStringLiteral("prompt"), QStringLiteral("Be terse.\nUse tabs.")}})
                .status,
            200);
        const QString rules = QStringLiteral("/api/permission-rules");
        QCOMPARE(fx.post(rules, QJsonObject{{QStringLiteral("tool"), QStringLiteral("Bash")},
                                            {QStringLiteral("pattern"), QStringLiteral("npm test")},
                                            {QStringLiteral("decision"), QStringLiteral("allow")}})
                     .status,
                 201);
        QCOMPARE(fx.post(rules, QJsonObject{{QStringLiteral("tool"), QStringLiteral("Write")},
                                            {QStringLiteral("decision"), QStringLiteral("deny")},
                                            {QStringLiteral("scope"),
                                             QJsonObject{{QStringLiteral("agentId"), api}}}})
                     .status,
                 201);
    }

    // The rules of `fx` as a user set them: no ids, times or source; an agent scope by name.
    static QList<QJsonObject> comparableRules(OrgFixture &fx) {
        QHash<QString, QString> names;
        for (const QJsonValue &a : fx.agents())
            names.insert(a.toObject().value(QStringLiteral("id")).toString(),
                         a.toObject().value(kName).toString());
        QList<QJsonObject> out;
        for (const QJsonValue &v : fx.get(QStringLiteral("/api/permission-rules"))
                                       .object()
                                       .value(QStringLiteral("rules"))
                                       .toArray()) {
            QJsonObject r = v.toObject();
            for (const char *key : {"id", "createdAt", "source"})
                r.remove(QLatin1String(key));
            QJsonObject scope = r.value(QStringLiteral("scope")).toObject();
            if (scope.contains(QStringLiteral("agentId")))
                scope = {{QStringLiteral("agent"),
                          names.value(scope.value(QStringLiteral("agentId")).toString())}};
            r.insert(QStringLiteral("scope"), scope);
            out.append(r);
        }
        return out;
    }

    // What shapes agents, in `fx`: a skill; a class with instructions, icon and that skill; an
    // area with instructions; an agent of that class in that area with the skill and its own
    // instructions; saved prompts (for the agent, for the class); a hook and a building for the
    // agent (the building's env names a secret); a 3D model.
    static void populateShaping(OrgFixture &fx) {
        QCOMPARE(putSecret(fx, QStringLiteral("DB_PASS"), kSecretValue), 201);
        QVERIFY(!made(fx, QStringLiteral("/api/skills"),
                      QJsonObject{{QStringLiteral("slug"), QStringLiteral("checklist")},
                                  {QStringLiteral("description"), QStringLiteral("Review list")},
                                  {QStringLiteral("content"), QStringLiteral("# Check\n- tests")}})
                     .isEmpty());
        QVERIFY(!made(fx, QStringLiteral("/api/classes"),
                      QJsonObject{
                          {QStringLiteral("slug"), QStringLiteral("reviewer")},
                          {kName, QStringLiteral("Reviewer")},
                          {QStringLiteral("description"), QStringLiteral("Reads diffs")},
                          {QStringLiteral("instructions"), QStringLiteral("Be strict.")},
                          {QStringLiteral("skills"), QJsonArray{QStringLiteral("checklist")}},
                          {QStringLiteral("disallowedTools"), QJsonArray{QStringLiteral("Write")}},
                          {QStringLiteral("icon"),
                           QJsonObject{{QStringLiteral("mediaType"), QStringLiteral("image/png")},
                                       {QStringLiteral("dataBase64"),
                                        QString::fromLatin1(kPng.toBase64())}}}})
                     .isEmpty());
        const QString area =
            made(fx, QStringLiteral("/api/areas"),
                 QJsonObject{{kName, QStringLiteral("Backend")},
                             {QStringLiteral("instructions"), QStringLiteral("Stay in src/.")}})
                .value(QStringLiteral("id"))
                .toString();
        QVERIFY(!area.isEmpty());
        const QString agent =
            made(fx, QStringLiteral("/api/agents"),
                 QJsonObject{{kName, QStringLiteral("Rev")},
                             {QStringLiteral("cwd"), fx.svc->workDir()},
                             {QStringLiteral("class"), QStringLiteral("reviewer")},
                             {QStringLiteral("skills"), QJsonArray{QStringLiteral("checklist")}},
                             {QStringLiteral("customInstructions"), QStringLiteral("Be brief.")}})
                .value(QStringLiteral("id"))
                .toString();
        QVERIFY(!agent.isEmpty());
        QCOMPARE(fx.post(QStringLiteral("/api/agents/bulk/move-area"),
                         QJsonObject{{QStringLiteral("agentIds"), QJsonArray{agent}},
                                     {QStringLiteral("areaId"), area}})
                     .status,
                 200);
        const QString prompts = QStringLiteral("/api/prompts");
        QVERIFY(!made(fx, prompts,
                      QJsonObject{{kName, QStringLiteral("Status")},
                                  {QStringLiteral("text"), QStringLiteral("Where are you?")},
                                  {QStringLiteral("scope"),
                                   QJsonObject{{QStringLiteral("agentId"), agent}}}})
                     .isEmpty());
        QVERIFY(
            !made(fx, prompts,
                  QJsonObject{{kName, QStringLiteral("Review")},
                              {QStringLiteral("text"), QStringLiteral("Review the diff.")},
                              {QStringLiteral("scope"),
                               QJsonObject{{QStringLiteral("class"), QStringLiteral("reviewer")}}}})
                 .isEmpty());
        QVERIFY(!made(fx, QStringLiteral("/api/hooks"),
                      QJsonObject{
                          {kName, QStringLiteral("Tell me")},
                          {QStringLiteral("event"), QStringLiteral("turn_finished")},
                          {QStringLiteral("filter"), QJsonObject{{QStringLiteral("agentId"), agent},
                                                                 {QStringLiteral("areaId"), area}}},
                          {QStringLiteral("command"),
                           QJsonArray{QStringLiteral("notify-send"), QStringLiteral("done")}},
                          {QStringLiteral("cwd"), QStringLiteral("agent")},
                          {QStringLiteral("timeoutSeconds"), 12},
                          {QStringLiteral("enabled"), false}})
                     .isEmpty());
        QVERIFY(!made(fx, QStringLiteral("/api/buildings"),
                      QJsonObject{{kName, QStringLiteral("Dev server")},
                                  {QStringLiteral("command"),
                                   QJsonArray{QStringLiteral("npm"), QStringLiteral("run"),
                                              QStringLiteral("dev")}},
                                  {QStringLiteral("env"),
                                   QJsonObject{{QStringLiteral("DB_PASSWORD"),
                                                QStringLiteral("{{DB_PASS}}")},
                                               {QStringLiteral("MODE"), QStringLiteral("dev")}}},
                                  {QStringLiteral("restart"), QStringLiteral("always")},
                                  {QStringLiteral("url"), QStringLiteral("http://localhost:5173")},
                                  {QStringLiteral("areaId"), area},
                                  {QStringLiteral("agentId"), agent}})
                     .isEmpty());
        QVERIFY(
            !made(fx, QStringLiteral("/api/buildings"),
                  QJsonObject{{kName, QStringLiteral("Database")},
                              {QStringLiteral("command"), QJsonArray{QStringLiteral("postgres")}},
                              {QStringLiteral("cwd"), fx.svc->workDir()}})
                 .isEmpty());
        QVERIFY(
            !made(fx, QStringLiteral("/api/custom-3d-models"),
                  QJsonObject{{kName, QStringLiteral("Ship")},
                              {QStringLiteral("format"), QStringLiteral("obj")},
                              {QStringLiteral("dataBase64"), QString::fromLatin1(kObj.toBase64())}})
                 .isEmpty());
    }

private Q_SLOTS:
    void init() { QVERIFY2(f.start(), qPrintable(f.svc->lastError())); }
    void cleanup() { f.reset(); }

    void roundTripIntoAFreshService() {
        populate(f);
        if (QTest::currentTestFailed())
            return;
        const HttpResponse exported = f.get(QStringLiteral("/api/config/export"));
        QCOMPARE(exported.status, 200);
        QVERIFY(exported.header("content-disposition").startsWith("attachment; filename="));
        const QJsonObject doc = exported.object();
        QCOMPARE(doc.value(QStringLiteral("version")).toInt(), 1);
        QVERIFY(doc.value(QStringLiteral("exportedAt")).toInteger() > 1'600'000'000'000);
        const QJsonObject categories = doc.value(kCategories).toObject();
        QCOMPARE(categories.keys(), kAllCategories); // by default every one
        // A rule for an agent names it: ids are each service's own.
        const QJsonArray exportedRules = categories.value(QStringLiteral("permissions")).toArray();
        QCOMPARE(exportedRules.size(), 2);
        QCOMPARE(exportedRules.at(1).toObject().value(QStringLiteral("scope")).toObject(),
                 (QJsonObject{{QStringLiteral("agentName"), QStringLiteral("API")}}));
        // Setup, not runtime state.
        const QJsonObject first =
            categories.value(QStringLiteral("agents")).toArray().at(0).toObject();
        for (const char *runtime : {"id", "status", "sessionId", "tokensUsed", "contextUsed"})
            QVERIFY2(!first.contains(QLatin1String(runtime)), runtime);

        OrgFixture fresh; // the source's cwd directories still exist: same machine
        QVERIFY(fresh.start());
        const HttpResponse imported = fresh.post(kImport, doc);
        QCOMPARE(imported.status, 200);
        const QJsonObject summary = imported.object();
        QJsonObject counts{{QStringLiteral("agents"), 3},
                           {QStringLiteral("areas"), 2},
                           {QStringLiteral("system-settings"), 1},
                           {QStringLiteral("permissions"), 2},
                           {QStringLiteral("secrets"), 0}};
        for (const QString &empty : kAllCategories) {
            if (!counts.contains(empty))
                counts.insert(empty, 0);
        }
        QCOMPARE(summary.value(QStringLiteral("imported")).toObject(), counts);
        QCOMPARE(summary.value(QStringLiteral("dryRun")).toBool(), false);
        QCOMPARE(summary.value(QStringLiteral("agents")).toArray().size(), 3);
        QVERIFY(fresh.barrier());
        QCOMPARE(fresh.ws->countOf(m::AgentCreated), 3);
        QCOMPARE(fresh.ws->countOf(om::AreaCreated), 2);

        QCOMPARE(comparableAgents(fresh.agents(), fresh.areas()),
                 comparableAgents(f.agents(), f.areas()));
        QCOMPARE(withoutIds(fresh.areas()), withoutIds(f.areas()));
        QCOMPARE(fresh.prompt(), f.prompt());
        QCOMPARE(comparableRules(fresh), comparableRules(f));
        QCOMPARE(comparableRules(fresh).size(), 2);
        // Durable: the same after a restart of the target.
        QVERIFY(fresh.restart());
        QCOMPARE(comparableAgents(fresh.agents(), fresh.areas()),
                 comparableAgents(f.agents(), f.areas()));
        QCOMPARE(fresh.prompt(), f.prompt());
        QCOMPARE(comparableRules(fresh), comparableRules(f));
    }

    void exportCategories_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QStringList>("keys");
        QTest::newRow("one") << QStringLiteral("?categories=areas")
                             << QStringList{QStringLiteral("areas")};
        QTest::newRow("spaces and duplicates")
            << QStringLiteral("?categories=system-settings,%20agents,agents")
            << QStringList{QStringLiteral("agents"), QStringLiteral("system-settings")};
        QTest::newRow("feature categories, empty")
            << QStringLiteral("?categories=buildings,skills&includeSecrets=false")
            << QStringList{QStringLiteral("buildings"), QStringLiteral("skills")};
    }
    void exportCategories() {
        QFETCH(QString, query);
        QFETCH(QStringList, keys);
        const HttpResponse r = f.get(QStringLiteral("/api/config/export") + query);
        QCOMPARE(r.status, 200);
        const QJsonObject categories = r.object().value(kCategories).toObject();
        QCOMPARE(categories.keys(), keys);
        if (categories.contains(QStringLiteral("buildings")))
            QCOMPARE(categories.value(QStringLiteral("buildings")).toArray(), QJsonArray());
    }

    void exportRefusals_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("unknown category") << QStringLiteral("?categories=agents,planets") << 422
                                          << QStringLiteral("unknown_category");
        QTest::newRow("no category")
            << QStringLiteral("?categories=,") << 422 << QStringLiteral("invalid_value");
        QTest::newRow("secrets not bool")
            << QStringLiteral("?includeSecrets=yes") << 400 << QStringLiteral("wrong_type");
    }
    void exportRefusals() {
        QFETCH(QString, query);
        QFETCH(int, status);
        QFETCH(QString, code);
        expectError(f.get(QStringLiteral("/api/config/export") + query), status, code);
    }

    void importRefusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        // WORK is replaced by an existing directory, TAKEN by an existing agent's name.
        const QByteArray agent = "{\"name\":\"New\",\"cwd\":\"WORK\"}";
        auto doc = [](const QByteArray &categories) -> QByteArray {
            return QByteArray("{\"version\":1,\"categories\":{") + categories + "}}";
        };
        QTest::newRow("malformed")
            << QByteArray("{\"version\":") << 400 << QStringLiteral("bad_json");
        QTest::newRow("array") << QByteArray("[]") << 400 << QStringLiteral("bad_json");
        QTest::newRow("no version")
            << QByteArray("{\"categories\":{}}") << 400 << QStringLiteral("missing_field");
        QTest::newRow("version string") << QByteArray("{\"version\":\"1\",\"categories\":{}}")
                                        << 400 << QStringLiteral("wrong_type");
        QTest::newRow("version 2") << QByteArray("{\"version\":2,\"categories\":{}}") << 422
                                   << QStringLiteral("unsupported_version");
        QTest::newRow("no categories")
            << QByteArray("{\"version\":1}") << 400 << QStringLiteral("missing_field");
        QTest::newRow("categories array") << QByteArray("{\"version\":1,\"categories\":[]}") << 400
                                          << QStringLiteral("wrong_type");
        QTest::newRow("unknown top field")
            << QByteArray("{\"version\":1,\"categories\":{},\"extra\":1}") << 422
            << QStringLiteral("unknown_field");
        QTest::newRow("unknown category")
            << doc("\"planets\":[]") << 422 << QStringLiteral("unknown_category");
        QTest::newRow("agents not array")
            << doc("\"agents\":{}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("permissions not array")
            << doc("\"permissions\":{}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("rule without decision") << doc("\"permissions\":[{\"tool\":\"Bash\"}]")
                                               << 400 << QStringLiteral("missing_field");
        QTest::newRow("rule scoped by agent id")
            << doc("\"permissions\":[{\"tool\":\"Bash\",\"decision\":\"allow\","
                   "\"scope\":{\"agentId\":\"x\"}}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("rule with shell control")
            << doc("\"permissions\":[{\"tool\":\"Bash\",\"pattern\":\"a;b\","
                   "\"decision\":\"allow\"}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("agent not object")
            << doc("\"agents\":[1]") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("agent without cwd")
            << doc("\"agents\":[{\"name\":\"New\"}]") << 400 << QStringLiteral("missing_field");
        QTest::newRow("agent cwd missing dir")
            << doc("\"agents\":[{\"name\":\"New\",\"cwd\":\"/no/such/dir/x\"}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("agent unknown field")
            << doc("\"agents\":[{\"name\":\"New\",\"cwd\":\"WORK\",\"status\":\"idle\"}]") << 422
            << QStringLiteral("unknown_field");
        QTest::newRow("agent bad tracking")
            << doc("\"agents\":[{\"name\":\"New\",\"cwd\":\"WORK\",\"trackingStatus\":\"bored\"}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("agent areaId number")
            << doc("\"agents\":[{\"name\":\"New\",\"cwd\":\"WORK\",\"areaId\":3}]") << 400
            << QStringLiteral("wrong_type");
        QTest::newRow("agent names twice")
            << doc("\"agents\":[" + agent + ",{\"name\":\"NEW\",\"cwd\":\"WORK\"}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("last agent bad")
            << doc("\"agents\":[" + agent + ",{\"name\":\"Two\",\"cwd\":\"relative\"}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("area bad color")
            << doc("\"areas\":[{\"name\":\"A\",\"color\":\"blue\"}],\"agents\":[" + agent + "]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("area names twice") << doc("\"areas\":[{\"name\":\"A\"},{\"name\":\"a\"}]")
                                          << 422 << QStringLiteral("invalid_value");
        QTest::newRow("area ids twice")
            << doc("\"areas\":[{\"id\":\"x\",\"name\":\"A\"},{\"id\":\"x\",\"name\":\"B\"}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("prompt missing")
            << doc("\"system-settings\":{}") << 400 << QStringLiteral("missing_field");
        QTest::newRow("prompt not string")
            << doc("\"system-settings\":{\"prompt\":1}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("agent name taken")
            << doc("\"areas\":[{\"name\":\"Fresh\"}],\"agents\":[" + agent +
                   ",{\"name\":\"taken\",\"cwd\":\"WORK\"}],\"system-settings\":{\"prompt\":\"p\"}")
            << 409 << QStringLiteral("conflict");
        QTest::newRow("area name taken")
            << doc("\"areas\":[{\"name\":\"TAKEN AREA\"}]") << 409 << QStringLiteral("conflict");
        // The feature categories: each entry refused as its route refuses it.
        QTest::newRow("skill without description")
            << doc("\"skills\":[{\"slug\":\"s\"}]") << 400 << QStringLiteral("missing_field");
        QTest::newRow("class with unknown skill")
            << doc("\"custom-classes\":[{\"slug\":\"c\",\"skills\":[\"nope\"]}]") << 422
            << QStringLiteral("unknown_skill");
        QTest::newRow("instructions for no class")
            << doc("\"class-instructions\":[{\"class\":\"nope\",\"instructions\":\"x\"}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("icon not png") << doc("\"custom-class-icons\":[{\"class\":\"builder\","
                                             "\"mediaType\":\"image/png\",\"dataBase64\":"
                                             "\"R0lGODlh\"}]")
                                      << 422 << QStringLiteral("invalid_icon");
        QTest::newRow("prompts not array")
            << doc("\"agent-prompts\":{}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("prompt without text") << doc("\"agent-prompts\":[{\"name\":\"p\"}]") << 400
                                             << QStringLiteral("missing_field");
        QTest::newRow("prompt scoped by agent id")
            << doc("\"agent-prompts\":[{\"name\":\"p\",\"text\":\"t\",\"scope\":{\"agentId\":"
                   "\"x\"}}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("prompt name taken")
            << doc("\"agent-prompts\":[{\"name\":\"p\",\"text\":\"t\"},{\"name\":\"taken prompt\","
                   "\"text\":\"t\"}]")
            << 409 << QStringLiteral("conflict");
        const QByteArray hook = "\"event\":\"turn_finished\",\"command\":[\"true\"]";
        QTest::newRow("hooks not array")
            << doc("\"hooks\":{}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("hook without command")
            << doc("\"hooks\":[{\"name\":\"h\",\"event\":\"turn_finished\"}]") << 400
            << QStringLiteral("missing_field");
        QTest::newRow("hook bad event")
            << doc("\"hooks\":[{\"name\":\"h\",\"event\":\"lunch\",\"command\":[\"true\"]}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("hook timeout too long")
            << doc("\"hooks\":[{\"name\":\"h\"," + hook + ",\"timeoutSeconds\":301}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("hook unknown field")
            << doc("\"hooks\":[{\"name\":\"h\"," + hook + ",\"lastRun\":null}]") << 422
            << QStringLiteral("unknown_field");
        QTest::newRow("hook filter by agent id")
            << doc("\"hooks\":[{\"name\":\"h\"," + hook + ",\"filter\":{\"agentId\":\"x\"}}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("hook filter agent unknown")
            << doc("\"hooks\":[{\"name\":\"h\"," + hook +
                   ",\"filter\":{\"agentName\":\"Nobody\"}}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("hook names twice")
            << doc("\"hooks\":[{\"name\":\"h\"," + hook + "},{\"name\":\"H\"," + hook + "}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("hook name taken") << doc("\"hooks\":[{\"name\":\"h\"," + hook +
                                                "},{\"name\":\"Taken Hook\"," + hook + "}]")
                                         << 409 << QStringLiteral("conflict");
        const QByteArray building = "\"name\":\"b\",\"command\":[\"true\"]";
        QTest::newRow("buildings not array")
            << doc("\"buildings\":{}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("building without command")
            << doc("\"buildings\":[{\"name\":\"b\",\"cwd\":\"WORK\"}]") << 400
            << QStringLiteral("missing_field");
        QTest::newRow("building without cwd or agent")
            << doc("\"buildings\":[{" + building + "}]") << 400 << QStringLiteral("missing_field");
        QTest::newRow("building by agent id")
            << doc("\"buildings\":[{" + building + ",\"agentId\":\"x\"}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("building agent unknown")
            << doc("\"buildings\":[{" + building + ",\"agentName\":\"Nobody\"}]") << 422
            << QStringLiteral("invalid_value");
        QTest::newRow("building cwd and agent")
            << doc("\"buildings\":[{" + building + ",\"agentName\":\"Taken\",\"cwd\":\"WORK\"}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("building unknown secret")
            << doc("\"buildings\":[{" + building +
                   ",\"cwd\":\"WORK\",\"env\":{\"A\":\"{{NO_SUCH}}\"}}]")
            << 422 << QStringLiteral("unknown_secret");
        QTest::newRow("building bad restart")
            << doc("\"buildings\":[{" + building + ",\"cwd\":\"WORK\",\"restart\":\"often\"}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("building state")
            << doc("\"buildings\":[{" + building + ",\"cwd\":\"WORK\",\"state\":\"running\"}]")
            << 422 << QStringLiteral("unknown_field");
        QTest::newRow("building names twice") << doc("\"buildings\":[{" + building +
                                                     ",\"cwd\":\"WORK\"},{\"name\":\"B\","
                                                     "\"command\":[\"true\"],\"cwd\":\"WORK\"}]")
                                              << 422 << QStringLiteral("invalid_value");
        QTest::newRow("building name taken")
            << doc("\"buildings\":[{" + building +
                   ",\"cwd\":\"WORK\"},{\"name\":\"taken "
                   "building\",\"command\":[\"true\"],\"cwd\":\"WORK\"}]")
            << 409 << QStringLiteral("conflict");
        QTest::newRow("models not array")
            << doc("\"custom-3d-models\":{}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("model bad format")
            << doc("\"custom-3d-models\":[{\"name\":\"m\",\"format\":\"stl\",\"dataBase64\":"
                   "\"dg==\"}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("model not its format")
            << doc("\"custom-3d-models\":[{\"name\":\"m\",\"format\":\"glb\",\"dataBase64\":"
                   "\"dg==\"}]")
            << 422 << QStringLiteral("invalid_model");
        QTest::newRow("model name taken")
            << doc("\"custom-3d-models\":[{\"name\":\"TAKEN MODEL\",\"format\":\"obj\","
                   "\"dataBase64\":\"dg==\"}]")
            << 409 << QStringLiteral("conflict");
        // A refusal in a category validated late leaves the earlier ones unwritten too.
        QTest::newRow("late category bad")
            << doc("\"areas\":[{\"id\":\"a1\",\"name\":\"Fresh\"}],\"agents\":[" + agent +
                   "],\"skills\":[{\"slug\":\"s\",\"description\":\"d\"}],\"hooks\":[{\"name\":"
                   "\"h\"," +
                   hook +
                   ",\"filter\":{\"agentName\":\"New\",\"areaId\":\"a1\"}},{"
                   "\"name\":\"h2\"," +
                   hook + ",\"filter\":{\"agentName\":\"Nobody\"}}]")
            << 422 << QStringLiteral("invalid_value");
        auto withSecrets = [](const QByteArray &secrets) -> QByteArray {
            return QByteArray("{\"version\":1,\"categories\":{},\"secrets\":") + secrets + "}";
        };
        QTest::newRow("secrets not array")
            << withSecrets("{}") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("secret not object")
            << withSecrets("[\"A\"]") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("secret without value")
            << withSecrets("[{\"name\":\"A\"}]") << 400 << QStringLiteral("missing_field");
        QTest::newRow("secret value number")
            << withSecrets("[{\"name\":\"A\",\"value\":1}]") << 400 << QStringLiteral("wrong_type");
        QTest::newRow("secret bad name") << withSecrets("[{\"name\":\"a-b\",\"value\":\"v\"}]")
                                         << 422 << QStringLiteral("invalid_value");
        QTest::newRow("secret empty value") << withSecrets("[{\"name\":\"A\",\"value\":\"\"}]")
                                            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("secret unknown field")
            << withSecrets("[{\"name\":\"A\",\"value\":\"v\",\"createdAt\":1}]") << 422
            << QStringLiteral("unknown_field");
        QTest::newRow("secret twice")
            << withSecrets("[{\"name\":\"A\",\"value\":\"v\"},{\"name\":\"A\",\"value\":\"w\"}]")
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("secret name taken")
            << QByteArray("{\"version\":1,\"categories\":{\"agents\":[" + agent +
                          "]},\"secrets\":[{\"name\":\"NEW_ONE\",\"value\":\"v\"},"
                          "{\"name\":\"TAKEN\",\"value\":\"v\"}]}")
            << 409 << QStringLiteral("conflict");
        QTest::newRow("too large")
            << doc("\"system-settings\":{\"prompt\":\"" + QByteArray(33 * 1024 * 1024, 'p') +
                   "\"}")
            << 413 << QStringLiteral("payload_too_large");
    }
    void importRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        f.createAgent(QStringLiteral("Taken"));
        f.createArea(QStringLiteral("Taken Area"));
        QCOMPARE(putSecret(f, QStringLiteral("TAKEN"), "old"), 201);
        QVERIFY(!made(f, QStringLiteral("/api/prompts"),
                      QJsonObject{{kName, QStringLiteral("Taken Prompt")},
                                  {QStringLiteral("text"), QStringLiteral("t")}})
                     .isEmpty());
        QVERIFY(!made(f, QStringLiteral("/api/hooks"),
                      QJsonObject{{kName, QStringLiteral("Taken Hook")},
                                  {QStringLiteral("event"), QStringLiteral("turn_finished")},
                                  {QStringLiteral("command"), QJsonArray{QStringLiteral("true")}}})
                     .isEmpty());
        QVERIFY(!made(f, QStringLiteral("/api/buildings"),
                      QJsonObject{{kName, QStringLiteral("Taken Building")},
                                  {QStringLiteral("command"), QJsonArray{QStringLiteral("true")}},
                                  {QStringLiteral("cwd"), f.svc->workDir()}})
                     .isEmpty());
        QVERIFY(!made(f, QStringLiteral("/api/custom-3d-models"),
                      QJsonObject{{kName, QStringLiteral("Taken Model")},
                                  {QStringLiteral("format"), QStringLiteral("obj")},
                                  {QStringLiteral("dataBase64"), QStringLiteral("dg==")}})
                     .isEmpty());
        QCOMPARE(f.post(QStringLiteral("/api/agents/system-settings/prompt"),
                        QJsonObject{{QStringLiteral("prompt"), QStringLiteral("before")}})
                     .status,
                 200);
        const Snapshot before = snapshot();
        QVERIFY(f.barrier());
        f.ws->clear();
        body.replace("WORK", f.svc->workDir().toUtf8());
        const HttpResponse r = f.postRaw(kImport, body);
        expectError(r, status, code);
        if (status == 409) {
            const QJsonArray conflicts = r.object().value(QStringLiteral("conflicts")).toArray();
            QCOMPARE(conflicts.size(), 1);
            QVERIFY(conflicts.at(0)[kName].toString().startsWith(QStringLiteral("taken"),
                                                                 Qt::CaseInsensitive));
        }
        QVERIFY(f.barrier());
        QVERIFY(snapshot() == before);
        QCOMPARE(f.ws->messages().size(), 1); // the pong: no event at all
    }

    void dryRunChangesNothing() {
        const QJsonObject doc = document(QJsonObject{
            {QStringLiteral("areas"), QJsonArray{QJsonObject{{kName, QStringLiteral("A")}}}},
            {QStringLiteral("agents"), QJsonArray{agentEntry(QStringLiteral("One"))}},
            {QStringLiteral("hooks"),
             QJsonArray{
                 QJsonObject{{kName, QStringLiteral("h")},
                             {QStringLiteral("event"), QStringLiteral("agent_created")},
                             {QStringLiteral("command"), QJsonArray{QStringLiteral("true")}},
                             {QStringLiteral("filter"),
                              QJsonObject{{QStringLiteral("agentName"), QStringLiteral("One")}}}}}},
            {QStringLiteral("buildings"), QJsonArray()}});
        const Snapshot before = snapshot();
        const HttpResponse r = f.http->post(f.url(kImport + QStringLiteral("?dryRun=true")), doc);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("dryRun")).toBool(), true);
        QCOMPARE(r.object()
                     .value(QStringLiteral("imported"))
                     .toObject()
                     .value(QStringLiteral("agents"))
                     .toInt(),
                 1);
        QCOMPARE(r.object()[QStringLiteral("imported")][QStringLiteral("hooks")].toInt(), 1);
        QCOMPARE(r.object()[QStringLiteral("imported")][QStringLiteral("buildings")].toInt(), 0);
        // Every category has data in Flotilla now: nothing is skipped.
        QCOMPARE(r.object().value(QStringLiteral("skipped")).toArray(), QJsonArray());
        QVERIFY(r.object()
                    .value(QStringLiteral("agents"))
                    .toArray()
                    .at(0)[QStringLiteral("id")]
                    .isNull());
        QVERIFY(snapshot() == before);
        expectError(f.http->post(f.url(kImport + QStringLiteral("?dryRun=perhaps")), doc), 400,
                    QStringLiteral("wrong_type"));
    }

    void unknownAreaReferenceImportsWithoutArea() {
        const QString existing =
            f.createArea(QStringLiteral("Here")).value(QStringLiteral("id")).toString();
        QJsonObject lost = agentEntry(QStringLiteral("Lost"));
        lost.insert(QStringLiteral("areaId"), QStringLiteral("elsewhere"));
        QJsonObject home = agentEntry(QStringLiteral("Home"));
        home.insert(QStringLiteral("areaId"), existing); // an area of this service
        const HttpResponse r = f.post(
            kImport, document(QJsonObject{{QStringLiteral("agents"), QJsonArray{lost, home}}}));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("warnings")).toArray().size(), 1);
        const QJsonArray created = r.object().value(QStringLiteral("agents")).toArray();
        QVERIFY(f.agent(created.at(0)[QStringLiteral("id")].toString())
                    .value(QStringLiteral("areaId"))
                    .isNull());
        QCOMPARE(f.agent(created.at(1)[QStringLiteral("id")].toString())
                     .value(QStringLiteral("areaId"))
                     .toString(),
                 existing);
    }

    // Secrets leave only when asked for, arrive with the rest of the document, and never show in
    // an import's answer; the imported value is the one exec substitutes.
    void secretsTravelOnlyWhenAsked() {
        QCOMPARE(putSecret(f, QStringLiteral("API_KEY"), kSecretValue), 201);
        QCOMPARE(putSecret(f, QStringLiteral("DB_PASS"), "pa ss\"word"), 201);
        const HttpResponse plain = f.get(QStringLiteral("/api/config/export"));
        QCOMPARE(plain.status, 200);
        QVERIFY(!plain.object().contains(QStringLiteral("secrets")));
        QVERIFY(!plain.body.contains(kSecretValue));

        const HttpResponse full = f.get(QStringLiteral("/api/config/export?includeSecrets=true"));
        QCOMPARE(full.status, 200);
        QCOMPARE(full.header("cache-control"), QByteArray("no-store"));
        const QJsonArray secrets = full.object().value(QStringLiteral("secrets")).toArray();
        QCOMPARE(secrets.size(), 2);
        QCOMPARE(secrets.at(0).toObject(),
                 (QJsonObject{{kName, QStringLiteral("API_KEY")},
                              {QStringLiteral("value"), QString::fromUtf8(kSecretValue)}}));
        QCOMPARE(secrets.at(1)[QStringLiteral("value")].toString(), QStringLiteral("pa ss\"word"));

        OrgFixture fresh;
        QVERIFY(fresh.start());
        const HttpResponse dry =
            fresh.http->post(fresh.url(kImport + QStringLiteral("?dryRun=true")), full.object());
        QCOMPARE(dry.status, 200);
        QCOMPARE(dry.object()[QStringLiteral("imported")][QStringLiteral("secrets")].toInt(), 2);
        QCOMPARE(fresh.get(QStringLiteral("/api/secrets"))
                     .object()
                     .value(QStringLiteral("secrets"))
                     .toArray()
                     .size(),
                 0);
        const HttpResponse imported = fresh.post(kImport, full.object());
        QCOMPARE(imported.status, 200);
        QCOMPARE(imported.object()[QStringLiteral("imported")][QStringLiteral("secrets")].toInt(),
                 2);
        QVERIFY(!imported.body.contains(kSecretValue));
        QVERIFY(fresh.restart()); // durable
        const QJsonArray names = fresh.get(QStringLiteral("/api/secrets"))
                                     .object()
                                     .value(QStringLiteral("secrets"))
                                     .toArray();
        QCOMPARE(names.size(), 2);
        QCOMPARE(names.at(0)[kName].toString(), QStringLiteral("API_KEY"));
        QCOMPARE(QFile(fresh.svc->dataDir() + QStringLiteral("/data/secrets.json")).permissions() &
                     (QFile::ReadGroup | QFile::ReadOther),
                 QFile::Permissions());
        // The value exec substitutes is the exported one (compared inside bash, never printed).
        const HttpResponse run = fresh.post(
            QStringLiteral("/api/exec"),
            QJsonObject{
                {QStringLiteral("command"), QStringLiteral("[ '{{API_KEY}}' = '%1' ] && echo same")
                                                .arg(QString::fromUtf8(kSecretValue))},
                {QStringLiteral("agentId"), fresh.createAgent(QStringLiteral("Runner"))}});
        QCOMPARE(run.status, 200);
        QCOMPARE(run.object().value(QStringLiteral("exitCode")).toInt(), 0);
        QVERIFY(run.object()
                    .value(QStringLiteral("output"))
                    .toString()
                    .contains(QStringLiteral("same")));
    }

    void failedWriteUndoesTheImport() {
        // The prompt file cannot be written (a directory stands in its way): the agents and
        // areas already written must go again.
        QVERIFY(QDir().mkpath(f.svc->dataDir() + QStringLiteral("/data/system-prompt.json/x")));
        const Snapshot before = snapshot();
        const QJsonObject doc = document(QJsonObject{
            {QStringLiteral("areas"), QJsonArray{QJsonObject{{kName, QStringLiteral("A")}}}},
            {QStringLiteral("agents"),
             QJsonArray{agentEntry(QStringLiteral("One")), agentEntry(QStringLiteral("Two"))}},
            {QStringLiteral("system-settings"),
             QJsonObject{{QStringLiteral("prompt"), QStringLiteral("new")}}}});
        QJsonObject withSecret = doc;
        withSecret.insert(QStringLiteral("secrets"),
                          QJsonArray{QJsonObject{{kName, QStringLiteral("UNDONE")},
                                                 {QStringLiteral("value"), QStringLiteral("v")}}});
        const HttpResponse r = f.post(kImport, withSecret);
        QCOMPARE(r.status, 500);
        QVERIFY(r.object()
                    .value(QStringLiteral("error"))
                    .toString()
                    .contains(QStringLiteral("undone")));
        QVERIFY(snapshot() == before);
        QVERIFY(f.barrier());
        QCOMPARE(f.ws->countOf(m::AgentCreated), 2);
        QCOMPARE(f.ws->countOf(m::AgentDeleted), 2);
        QCOMPARE(f.ws->countOf(om::AreaDeleted), 1);
        QVERIFY(f.restart());
        QVERIFY(snapshot() == before);
    }

    // Every category with content, through a fresh service and back: the second export is the
    // first but for ids and times. References travel by agent name and document area id, a
    // secret as its placeholder.
    void everyCategoryRoundTrips() {
        populateShaping(f);
        if (QTest::currentTestFailed())
            return;
        const HttpResponse exported = f.get(QStringLiteral("/api/config/export"));
        QCOMPARE(exported.status, 200);
        QVERIFY(!exported.body.contains(kSecretValue));
        const QJsonObject doc = exported.object();
        const QJsonObject categories = doc.value(kCategories).toObject();
        QCOMPARE(categories.keys(), kAllCategories);
        const QString areaId = f.areas().at(0)[QStringLiteral("id")].toString();
        const QJsonObject building = categories[QStringLiteral("buildings")][0].toObject();
        QCOMPARE(building.value(QStringLiteral("agentName")).toString(), QStringLiteral("Rev"));
        QCOMPARE(building.value(QStringLiteral("areaId")).toString(), areaId);
        QVERIFY(!building.contains(QStringLiteral("agentId")));
        QVERIFY(!building.contains(QStringLiteral("state")));
        QCOMPARE(building[QStringLiteral("env")][QStringLiteral("DB_PASSWORD")].toString(),
                 QStringLiteral("{{DB_PASS}}"));
        QCOMPARE(categories[QStringLiteral("hooks")][0][QStringLiteral("filter")].toObject(),
                 (QJsonObject{{QStringLiteral("agentName"), QStringLiteral("Rev")},
                              {QStringLiteral("areaId"), areaId}}));
        QCOMPARE(categories[QStringLiteral("agent-prompts")][0][QStringLiteral("scope")].toObject(),
                 (QJsonObject{{QStringLiteral("agentName"), QStringLiteral("Rev")}}));
        QCOMPARE(
            categories[QStringLiteral("custom-3d-models")][0].toObject(),
            (QJsonObject{{kName, QStringLiteral("Ship")},
                         {QStringLiteral("format"), QStringLiteral("obj")},
                         {QStringLiteral("dataBase64"), QString::fromLatin1(kObj.toBase64())}}));

        OrgFixture fresh;
        QVERIFY(fresh.start());
        // The building's env names a secret: the target defines its own value.
        QCOMPARE(putSecret(fresh, QStringLiteral("DB_PASS"), "another"), 201);
        const Snapshot empty = snapshot(fresh);
        const HttpResponse dry =
            fresh.http->post(fresh.url(kImport + QStringLiteral("?dryRun=true")), doc);
        QCOMPARE(dry.status, 200);
        const QJsonObject expected{{QStringLiteral("agents"), 1},
                                   {QStringLiteral("areas"), 1},
                                   {QStringLiteral("system-settings"), 1},
                                   {QStringLiteral("permissions"), 0},
                                   {QStringLiteral("secrets"), 0},
                                   {QStringLiteral("skills"), 1},
                                   {QStringLiteral("custom-classes"), 1},
                                   {QStringLiteral("class-instructions"), 1},
                                   {QStringLiteral("custom-class-icons"), 1},
                                   {QStringLiteral("agent-prompts"), 2},
                                   {QStringLiteral("hooks"), 1},
                                   {QStringLiteral("buildings"), 2},
                                   {QStringLiteral("custom-3d-models"), 1}};
        QCOMPARE(dry.object().value(QStringLiteral("imported")).toObject(), expected);
        QVERIFY(snapshot(fresh) == empty);

        const HttpResponse imported = fresh.post(kImport, doc);
        QCOMPARE(imported.status, 200);
        QCOMPARE(imported.object().value(QStringLiteral("imported")).toObject(), expected);
        QVERIFY(fresh.barrier());
        for (const auto &[type, count] :
             {std::pair{QString(sm::SkillCreated), 1}, std::pair{QString(sm::ClassCreated), 1},
              std::pair{QString(sm::PromptCreated), 2}, std::pair{QString(sm::HookCreated), 1},
              std::pair{QString(sm::BuildingCreated), 2}, std::pair{QString(sm::ModelCreated), 1}})
            QVERIFY2(fresh.ws->countOf(type) == count, qPrintable(type));

        const HttpResponse again = fresh.get(QStringLiteral("/api/config/export"));
        QCOMPARE(again.status, 200);
        QCOMPARE(comparableDocument(again.object()), comparableDocument(doc));
        // References point at the target's own agent and area.
        const QString agentId = fresh.agents().at(0)[QStringLiteral("id")].toString();
        const QString freshArea = fresh.areas().at(0)[QStringLiteral("id")].toString();
        QVERIFY(freshArea != areaId);
        const QJsonObject freshBuilding =
            fresh.get(QStringLiteral("/api/buildings")).array().at(0).toObject();
        QCOMPARE(freshBuilding.value(QStringLiteral("agentId")).toString(), agentId);
        QCOMPARE(freshBuilding.value(QStringLiteral("areaId")).toString(), freshArea);
        QCOMPARE(fresh.get(QStringLiteral("/api/hooks"))
                     .array()
                     .at(0)[QStringLiteral("filter")]
                     .toObject(),
                 (QJsonObject{{QStringLiteral("agentId"), agentId},
                              {QStringLiteral("areaId"), freshArea}}));
        const HttpResponse icon = fresh.get(QStringLiteral("/api/classes/reviewer/icon"));
        QCOMPARE(icon.status, 200);
        QCOMPARE(icon.body, kPng);
        // Durable: the same after a restart of the target.
        QVERIFY(fresh.restart());
        QCOMPARE(comparableDocument(fresh.get(QStringLiteral("/api/config/export")).object()),
                 comparableDocument(doc));
    }

    // A write that fails after every category was applied (the prompt file, written last) undoes
    // them all: classes, skills, agents, areas, prompts, hooks, buildings and 3D models.
    void failedWriteUndoesEveryCategory() {
        populateShaping(f);
        if (QTest::currentTestFailed())
            return;
        const QJsonObject doc = f.get(QStringLiteral("/api/config/export")).object();
        OrgFixture fresh;
        QVERIFY(fresh.start());
        QCOMPARE(putSecret(fresh, QStringLiteral("DB_PASS"), "another"), 201);
        QVERIFY(QDir().mkpath(fresh.svc->dataDir() + QStringLiteral("/data/system-prompt.json/x")));
        const Snapshot before = snapshot(fresh);
        const HttpResponse r = fresh.post(kImport, doc);
        QCOMPARE(r.status, 500);
        QVERIFY(r.object()
                    .value(QStringLiteral("error"))
                    .toString()
                    .contains(QStringLiteral("undone")));
        QVERIFY(snapshot(fresh) == before);
        QVERIFY(fresh.barrier());
        for (const auto &[created, deleted] :
             {std::pair{QString(sm::SkillCreated), QString(sm::SkillDeleted)},
              std::pair{QString(sm::ClassCreated), QString(sm::ClassDeleted)},
              std::pair{QString(sm::PromptCreated), QString(sm::PromptDeleted)},
              std::pair{QString(sm::HookCreated), QString(sm::HookDeleted)},
              std::pair{QString(sm::BuildingCreated), QString(sm::BuildingDeleted)},
              std::pair{QString(sm::ModelCreated), QString(sm::ModelDeleted)},
              std::pair{QString(m::AgentCreated), QString(m::AgentDeleted)}}) {
            QVERIFY2(fresh.ws->countOf(created) > 0, qPrintable(created));
            QVERIFY2(fresh.ws->countOf(deleted) == fresh.ws->countOf(created), qPrintable(deleted));
        }
        QVERIFY(fresh.restart());
        QVERIFY(snapshot(fresh) == before);
    }
};

QTEST_GUILESS_MAIN(TestConfigTransfer)
#include "tst_config_transfer.moc"
