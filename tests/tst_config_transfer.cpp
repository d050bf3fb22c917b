// Config export and import against the real service: the round trip of the organization into a
// fresh service, the category selection, every refusal (each leaving the state untouched), dry
// runs, secrets only when asked for, and the undo of an import whose last write fails. What shapes
// agents (skills, classes, prompts, hooks, buildings, 3D models) is in
// tst_config_transfer_features.

#include "support/TransferFixture.h"

#include <QDir>
#include <QFile>

using namespace flotilla;
using namespace flotilla::test;

namespace om = wire::org::msg;
namespace m = wire::msg;

class TestConfigTransfer final : public QObject, private TransferFixture {
    Q_OBJECT

    // Agents and areas as a user set them up, with area ids replaced by area names so that two
    // services (with different ids) compare equal.
    static QJsonArray comparableAgents(const QJsonArray &agents, const QJsonArray &areas) {
        QHash<QString, QString> areaNames;
        for (const QJsonValue &a : areas)
            areaNames.insert(a[QStringLiteral("id")].toString(), a[kName].toString());
        QJsonArray out;
        for (const QJsonValue &v : agents) {
            QJsonObject o;
            for (const char *key : {"name", "class", "cwd", "provider", "model", "taskLabel",
                                    "trackingStatus", "trackingStatusDetail", "host"})
                o.insert(QLatin1String(key), v[QLatin1String(key)]);
            o.insert(QStringLiteral("area"),
                     areaNames.value(v[QStringLiteral("areaId")].toString()));
            out.append(o);
        }
        return out;
    }

    // A host whose port has nothing listening: agents can be made on it without a connection.
    static inline const QJsonObject kFarHost{
        {QStringLiteral("name"), QStringLiteral("far")},
        {QStringLiteral("ssh"), QStringLiteral("x@127.0.0.2:1")}};

    static QJsonArray withoutIds(const QJsonArray &areas) {
        QJsonArray out;
        for (const QJsonValue &v : areas)
            out.append(QJsonObject{{kName, v[kName]},
                                   {QStringLiteral("color"), v[QStringLiteral("color")]}});
        return out;
    }

    // Builds a small organisation in `fx`: two areas, three agents (one on host "far"), labels, a
    // prompt, two permission rules (one everywhere, one for the API agent).
    static void populate(OrgFixture &fx) {
        const QString backend = fx.createArea(QStringLiteral("Backend"), QStringLiteral("#336699"))
                                    .value(QStringLiteral("id"))
                                    .toString();
        const QString docs =
            fx.createArea(QStringLiteral("Docs")).value(QStringLiteral("id")).toString();
        const QString api = fx.createAgent(QStringLiteral("API"));
        const QString writer = fx.createAgent(QStringLiteral("Writer"));
        QCOMPARE(fx.post(QStringLiteral("/api/hosts"), kFarHost).status, 201);
        QCOMPARE(fx.post(QStringLiteral("/api/agents"),
                         QJsonObject{{kName, QStringLiteral("Loner")},
                                     {QStringLiteral("cwd"), QStringLiteral("/srv/far/app")},
                                     {QStringLiteral("host"), QStringLiteral("far")}})
                     .status,
                 201);
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
        // A host travels by name only (hosts are not exported): without one of that name the
        // whole document is refused; with it, the agent is on it. (Nothing listens on its port:
        // creating agents does not connect.)
        const HttpResponse noHost = fresh.post(kImport, doc);
        expectError(noHost, 422, QStringLiteral("unknown_host"));
        QVERIFY2(noHost.body.contains("categories.agents[2]"), noHost.body.constData());
        QCOMPARE(fresh.agents().size(), 0);
        QCOMPARE(fresh.post(QStringLiteral("/api/hosts"), kFarHost).status, 201);
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
        // A host is referred to by name: the document's agent needs one of that name here.
        QTest::newRow("agent on unknown host")
            << doc("\"agents\":[" + agent +
                   ",{\"name\":\"Far\",\"cwd\":\"/srv/far\",\"host\":\"nowhere\"}]")
            << 422 << QStringLiteral("unknown_host");
        QTest::newRow("agent host number")
            << doc("\"agents\":[{\"name\":\"Far\",\"cwd\":\"WORK\",\"host\":1}]") << 400
            << QStringLiteral("wrong_type");
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
        // The feature categories' rows are in tst_config_transfer_features.
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
            << doc("\"system-settings\":{\"prompt\":\"" + QByteArray(33 * 1024 * 1024, 'p') + "\"}")
            << 413 << QStringLiteral("payload_too_large");
    }
    void importRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        expectImportRefused(body, status, code);
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
};

QTEST_GUILESS_MAIN(TestConfigTransfer)
#include "tst_config_transfer.moc"
