// Saved prompts and stored 3D models against the real service on a free port: every route, every
// refusal with its code, the scope filter, an agent's prompts going with it, the events, what
// survives a restart, the 10 MiB file limit through the route's own body limit, the 100 MiB
// quota, and the config-transfer functions of both stores.

#include "domain/AgentRegistry.h"
#include "protocol/ShapingNames.h"
#include "shaping/AssetStore.h"
#include "shaping/PromptStore.h"
#include "storage/Database.h"
#include "storage/StartupReport.h"
#include "support/OrgFixture.h"

#include <QCryptographicHash>
#include <QSignalSpy>
#include <QTemporaryDir>

using namespace flotilla;
using namespace flotilla::test;

namespace sm = wire::shaping::msg;

namespace {
const QString kName = QStringLiteral("name");
const QString kText = QStringLiteral("text");
const QString kScope = QStringLiteral("scope");
const QString kId = QStringLiteral("id");
const QString kFormat = QStringLiteral("format");
const QString kData = QStringLiteral("dataBase64");
const QString kPrompts = QStringLiteral("/api/prompts");
const QString kModels = QStringLiteral("/api/custom-3d-models");
constexpr qint64 kMiB = 1024 * 1024;

QJsonObject prompt(const QString &name, const QJsonObject &scope = {}) {
    return QJsonObject{
        {kName, name}, {kText, QString(QStringLiteral("text of ") + name)}, {kScope, scope}};
}

QStringList namesOf(const QJsonArray &list) {
    QStringList out;
    for (const QJsonValue &v : list)
        out.append(v.toObject().value(kName).toString());
    return out;
}

// A GLB file of `size` bytes: the magic, then a pattern that changes along the file, so that a
// byte out of place shows.
QByteArray glb(qint64 size) {
    QByteArray out(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i)
        out[i] = char((i * 131 + i / 4099) & 0xff);
    if (size >= 4)
        out.replace(0, 4, "glTF");
    return out;
}

QJsonObject upload(const QString &name, const QString &format, const QByteArray &bytes) {
    return QJsonObject{
        {kName, name}, {kFormat, format}, {kData, QString::fromLatin1(bytes.toBase64())}};
}

const QByteArray kGltf = QByteArrayLiteral("{\"asset\":{\"version\":\"2.0\"},\"scenes\":[]}");
const QByteArray kObj = QByteArrayLiteral("# cube\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
const QByteArray kFbxBinary = QByteArray("Kaydara FBX Binary  \0\x1a\x00", 23) + "rest";
const QByteArray kFbxText =
    QByteArrayLiteral("; FBX 7.3.0 project file\nFBXHeaderExtension:  {\n}\n");
} // namespace

class TestPromptsAssets final : public QObject {
    Q_OBJECT

    OrgFixture f;

    HttpResponse patch(const QString &path, const QJsonObject &body) {
        return f.http->patch(f.url(path), body);
    }
    HttpResponse postBig(const QJsonObject &body) {
        return f.http->send("POST", f.url(kModels), compactJson(body), {}, 60'000);
    }
    QString createAgent(const QString &name, const QString &cls) {
        const HttpResponse r = f.post(QStringLiteral("/api/agents"),
                                      QJsonObject{{kName, name},
                                                  {QStringLiteral("class"), cls},
                                                  {QStringLiteral("cwd"), f.svc->workDir()}});
        if (r.status != 201)
            qWarning() << "create agent failed" << r.status << r.body;
        return r.object().value(kId).toString();
    }

private Q_SLOTS:
    void init() { QVERIFY2(f.start(), qPrintable(f.svc->lastError())); }
    void cleanup() { f.reset(); }

    void promptsCrud() {
        const HttpResponse created =
            f.post(kPrompts, QJsonObject{{kName, QStringLiteral("  Review ")},
                                         {kText, QStringLiteral("Review the diff.\n")}});
        QCOMPARE(created.status, 201);
        const QJsonObject p = created.object();
        const QString id = p.value(kId).toString();
        QVERIFY(!id.isEmpty());
        QCOMPARE(p.value(kName).toString(), QStringLiteral("Review"));
        QCOMPARE(p.value(kText).toString(), QStringLiteral("Review the diff.\n"));
        QCOMPARE(p.value(kScope).toObject(), QJsonObject());
        QVERIFY(p.value(QStringLiteral("createdAt")).toInteger() > 1'600'000'000'000);
        QCOMPARE(p.value(QStringLiteral("updatedAt")), p.value(QStringLiteral("createdAt")));
        QCOMPARE(created.header("location"), QByteArray("/api/prompts/") + id.toUtf8());
        QCOMPARE(f.get(kPrompts).array(), QJsonArray{p});
        QCOMPARE(f.get(kPrompts + QLatin1Char('/') + id).object(), p);
        QVERIFY(f.ws->waitFor(sm::PromptCreated));
        QCOMPARE(f.payloads(sm::PromptCreated).constFirst(), p);

        // The largest text is accepted.
        const HttpResponse large =
            f.post(kPrompts, QJsonObject{{kName, QStringLiteral("large")},
                                         {kText, QString(PromptStore::kTextMaxBytes, u'x')}});
        QCOMPARE(large.status, 201);

        const HttpResponse changed = patch(
            kPrompts + QLatin1Char('/') + id,
            QJsonObject{
                {kText, QStringLiteral("Again.")},
                {kScope, QJsonObject{{QStringLiteral("class"), QStringLiteral("reviewer")}}}});
        QCOMPARE(changed.status, 200);
        const QJsonObject after = changed.object();
        QCOMPARE(after.value(kName).toString(), QStringLiteral("Review"));
        QCOMPARE(after.value(kText).toString(), QStringLiteral("Again."));
        QCOMPARE(after.value(kScope).toObject().value(QStringLiteral("class")).toString(),
                 QStringLiteral("reviewer"));
        QCOMPARE(after.value(QStringLiteral("createdAt")), p.value(QStringLiteral("createdAt")));
        QVERIFY(after.value(QStringLiteral("updatedAt")).toInteger() >=
                p.value(QStringLiteral("updatedAt")).toInteger());
        QVERIFY(f.ws->waitFor(sm::PromptUpdated));
        QCOMPARE(f.payloads(sm::PromptUpdated).constLast(), after);

        // A patch that changes nothing writes nothing and says nothing.
        QCOMPARE(
            patch(kPrompts + QLatin1Char('/') + id, QJsonObject{{kName, QStringLiteral("Review")}})
                .object(),
            after);
        // scope: null makes it global again.
        const HttpResponse global =
            patch(kPrompts + QLatin1Char('/') + id, QJsonObject{{kScope, QJsonValue()}});
        QCOMPARE(global.object().value(kScope).toObject(), QJsonObject());
        QVERIFY(f.barrier());
        QCOMPARE(f.payloads(sm::PromptUpdated).size(), 2);

        // Durable.
        QVERIFY(f.restart());
        QCOMPARE(f.get(kPrompts + QLatin1Char('/') + id).object(), global.object());
        QCOMPARE(namesOf(f.get(kPrompts).array()),
                 (QStringList{QStringLiteral("Review"), QStringLiteral("large")}));

        QCOMPARE(f.del(kPrompts + QLatin1Char('/') + id).status, 204);
        QVERIFY(f.ws->waitFor(sm::PromptDeleted));
        QCOMPARE(f.payloads(sm::PromptDeleted).constFirst(),
                 (QJsonObject{{kId, id}, {kName, QStringLiteral("Review")}}));
        expectError(f.get(kPrompts + QLatin1Char('/') + id), 404, QStringLiteral("not_found"));
        expectError(f.del(kPrompts + QLatin1Char('/') + id), 404, QStringLiteral("not_found"));
        QVERIFY(f.restart());
        QCOMPARE(namesOf(f.get(kPrompts).array()), QStringList{QStringLiteral("large")});
    }

    void promptRefusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        auto row = [](const char *name, const QJsonObject &body, int status, const char *code) {
            QTest::newRow(name) << compactJson(body) << status << QString::fromLatin1(code);
        };
        const QString text = QStringLiteral("t");
        QTest::newRow("bad json") << QByteArray("{\"name\":") << 400 << QStringLiteral("bad_json");
        row("missing name", {{kText, text}}, 400, "missing_field");
        row("missing text", {{kName, text}}, 400, "missing_field");
        row("name not a string", {{kName, 5}, {kText, text}}, 400, "wrong_type");
        row("text not a string", {{kName, text}, {kText, true}}, 400, "wrong_type");
        row("blank name", {{kName, QStringLiteral("  ")}, {kText, text}}, 422, "invalid_value");
        row("name too long", {{kName, QString(101, u'n')}, {kText, text}}, 422, "invalid_value");
        row("control character in name", {{kName, QStringLiteral("a\x1b[2Jb")}, {kText, text}}, 422,
            "invalid_value");
        row("empty text", {{kName, text}, {kText, QString()}}, 422, "invalid_value");
        row("text too long",
            {{kName, text}, {kText, QString(PromptStore::kTextMaxBytes + 1, u'x')}}, 422,
            "invalid_value");
        // 21,846 characters, 65,538 bytes of UTF-8: the limit counts bytes.
        row("text too long in bytes",
            {{kName, text}, {kText, QString(PromptStore::kTextMaxBytes / 3 + 1, u'\u20ac')}}, 422,
            "invalid_value");
        row("unknown field", {{kName, text}, {kText, text}, {QStringLiteral("id"), text}}, 422,
            "unknown_field");
        row("scope not an object", {{kName, text}, {kText, text}, {kScope, QStringLiteral("x")}},
            400, "wrong_type");
        row("unknown scope field",
            {{kName, text}, {kText, text}, {kScope, QJsonObject{{QStringLiteral("areaId"), text}}}},
            422, "unknown_field");
        row("class not a slug",
            {{kName, text},
             {kText, text},
             {kScope, QJsonObject{{QStringLiteral("class"), QStringLiteral("Reviewer")}}}},
            422, "invalid_value");
        row("class not a string",
            {{kName, text}, {kText, text}, {kScope, QJsonObject{{QStringLiteral("class"), 3}}}},
            400, "wrong_type");
        row("agentId not a string",
            {{kName, text}, {kText, text}, {kScope, QJsonObject{{QStringLiteral("agentId"), 3}}}},
            400, "wrong_type");
        row("unknown agent",
            {{kName, text},
             {kText, text},
             {kScope, QJsonObject{{QStringLiteral("agentId"), QStringLiteral("nobody")}}}},
            404, "not_found");
        row("class and agent",
            {{kName, text},
             {kText, text},
             {kScope, QJsonObject{{QStringLiteral("agentId"), QStringLiteral("nobody")},
                                  {QStringLiteral("class"), QStringLiteral("builder")}}}},
            422, "invalid_value");
        row("name taken in the scope", {{kName, QStringLiteral("TAKEN")}, {kText, text}}, 409,
            "conflict");
    }
    void promptRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("taken"))).status, 201);
        expectError(f.postRaw(kPrompts, body), status, code);
        QCOMPARE(f.get(kPrompts).array().size(), 1);
        // The same refusals on PATCH, where the body can carry them (all fields are optional).
        if (code != QLatin1String("missing_field") && code != QLatin1String("conflict")) {
            const QString id = f.get(kPrompts).array().first().toObject().value(kId).toString();
            const HttpResponse r =
                f.http->send("PATCH", f.url(kPrompts + QLatin1Char('/') + id), body);
            expectError(r, status, code);
        }
    }

    void patchRefusals() {
        const QString a =
            f.post(kPrompts, prompt(QStringLiteral("a"))).object().value(kId).toString();
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("b"))).status, 201);
        // The same name in another scope is another prompt.
        QCOMPARE(f.post(kPrompts,
                        prompt(QStringLiteral("b"),
                               QJsonObject{{QStringLiteral("class"), QStringLiteral("builder")}}))
                     .status,
                 201);
        expectError(patch(kPrompts + QStringLiteral("/nope"), {{kText, QStringLiteral("x")}}), 404,
                    QStringLiteral("not_found"));
        expectError(patch(kPrompts + QLatin1Char('/') + a, {{kName, QStringLiteral("B")}}), 409,
                    QStringLiteral("conflict"));
        QVERIFY(f.barrier());
        QCOMPARE(f.ws->countOf(sm::PromptUpdated), 0);
    }

    void scopeFiltering() {
        const QString ada = createAgent(QStringLiteral("ada"), QStringLiteral("builder"));
        const QString bob = createAgent(QStringLiteral("bob"), QStringLiteral("reviewer"));
        QVERIFY(!ada.isEmpty() && !bob.isEmpty());
        const QJsonObject cls{{QStringLiteral("class"), QStringLiteral("reviewer")}};
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("global"))).status, 201);
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("reviewers"), cls)).status, 201);
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("builders"),
                                         {{QStringLiteral("class"), QStringLiteral("builder")}}))
                     .status,
                 201);
        QCOMPARE(
            f.post(kPrompts, prompt(QStringLiteral("ada's"), {{QStringLiteral("agentId"), ada}}))
                .status,
            201);
        const HttpResponse bobs =
            f.post(kPrompts, prompt(QStringLiteral("bob's"), {{QStringLiteral("agentId"), bob}}));
        QCOMPARE(bobs.status, 201);
        QCOMPARE(bobs.object().value(kScope).toObject(),
                 (QJsonObject{{QStringLiteral("agentId"), bob}}));

        QCOMPARE(f.get(kPrompts).array().size(), 5);
        QCOMPARE(namesOf(f.get(kPrompts + QStringLiteral("?agentId=") + bob).array()),
                 (QStringList{QStringLiteral("global"), QStringLiteral("reviewers"),
                              QStringLiteral("bob's")}));
        QCOMPARE(namesOf(f.get(kPrompts + QStringLiteral("?agentId=") + ada).array()),
                 (QStringList{QStringLiteral("global"), QStringLiteral("builders"),
                              QStringLiteral("ada's")}));
        expectError(f.get(kPrompts + QStringLiteral("?agentId=nobody")), 404,
                    QStringLiteral("not_found"));
    }

    void agentDeletionRemovesItsPrompts() {
        const QString ada = createAgent(QStringLiteral("ada"), QStringLiteral("builder"));
        const QString bob = createAgent(QStringLiteral("bob"), QStringLiteral("builder"));
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("global"))).status, 201);
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("one"), {{QStringLiteral("agentId"), ada}}))
                     .status,
                 201);
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("two"), {{QStringLiteral("agentId"), ada}}))
                     .status,
                 201);
        QCOMPARE(
            f.post(kPrompts, prompt(QStringLiteral("bob's"), {{QStringLiteral("agentId"), bob}}))
                .status,
            201);
        QCOMPARE(f.del(QStringLiteral("/api/agents/") + ada).status, 204);
        QVERIFY(f.ws->waitFor(sm::PromptDeleted, 2));
        QStringList deleted;
        for (const QJsonObject &p : f.payloads(sm::PromptDeleted))
            deleted.append(p.value(kName).toString());
        QCOMPARE(deleted, (QStringList{QStringLiteral("one"), QStringLiteral("two")}));
        QCOMPARE(namesOf(f.get(kPrompts).array()),
                 (QStringList{QStringLiteral("global"), QStringLiteral("bob's")}));
        QVERIFY(f.restart());
        QCOMPARE(namesOf(f.get(kPrompts).array()),
                 (QStringList{QStringLiteral("global"), QStringLiteral("bob's")}));
    }

    void promptTransfer() {
        const QString ada = createAgent(QStringLiteral("ada"), QStringLiteral("builder"));
        QCOMPARE(f.post(kPrompts, prompt(QStringLiteral("global"))).status, 201);
        QCOMPARE(
            f.post(kPrompts, prompt(QStringLiteral("mine"), {{QStringLiteral("agentId"), ada}}))
                .status,
            201);
        // A store of its own over the service's agents, on a database of its own.
        QTemporaryDir dir;
        StartupReport report;
        auto db = Database::open(dir.filePath(QStringLiteral("t.db")), report);
        QVERIFY(db);
        PromptStore store(**db, f.svc->app().agents(), Clock::system());
        QVERIFY(!store.load());
        QSignalSpy created(&store, &PromptStore::promptCreated);
        // What config transfer passes: names known to the document or the service, and the ids
        // of the agents once they exist.
        AgentRegistry &agents = f.svc->app().agents();
        auto agentNamed = [&agents](const QString &name) -> const Agent * {
            const QList<Agent> all = agents.agents();
            for (const Agent &a : all) {
                if (a.name.compare(name, Qt::CaseInsensitive) == 0)
                    return agents.find(a.id);
            }
            return nullptr;
        };
        auto known = [&agentNamed](const QStringList &document) {
            return [&agentNamed, document](const QString &name) {
                return document.contains(name, Qt::CaseInsensitive) || agentNamed(name);
            };
        };
        auto idOf = [&agentNamed](const QString &name) {
            const Agent *a = agentNamed(name);
            return a ? a->id : QString();
        };
        auto nameOf = [&agents](const QString &id) {
            const Agent *a = agents.find(id);
            return a ? a->name : QString();
        };

        // A document names agents, never their ids: ada exists, zed comes with the document,
        // nobody is nowhere.
        const QJsonArray exported{
            prompt(QStringLiteral("global")),
            prompt(QStringLiteral("mine"), {{QStringLiteral("agentName"), QStringLiteral("ADA")}}),
            prompt(QStringLiteral("theirs"),
                   {{QStringLiteral("agentName"), QStringLiteral("zed")}}),
            prompt(QStringLiteral("lost"),
                   {{QStringLiteral("agentName"), QStringLiteral("nobody")}})};
        auto plan = store.validateImport(exported, known({QStringLiteral("zed")}));
        QVERIFY2(plan, qPrintable(plan.error().message));
        QCOMPARE(plan->drafts.size(), 3);
        QCOMPARE(plan->warnings.size(), 1); // nobody: left out
        QVERIFY(plan->conflicts.isEmpty());
        // Applied before zed was created (an import creates the agents first): nothing is stored.
        auto refused = store.applyImport(*plan, idOf);
        QVERIFY(!refused);
        QCOMPARE(store.prompts().size(), 0);

        const QJsonArray existing{exported.at(0), exported.at(1)};
        auto plan2 = store.validateImport(existing, known({}));
        QVERIFY(plan2);
        auto ids = store.applyImport(*plan2, idOf);
        QVERIFY(ids);
        QCOMPARE(ids->size(), 2);
        QCOMPARE(created.size(), 2);
        QCOMPARE(store.prompts().at(1).value(kScope).toObject(),
                 (QJsonObject{{QStringLiteral("agentId"), ada}}));
        const QJsonArray out = store.exportItems(nameOf);
        QCOMPARE(out.at(1).toObject().value(kScope).toObject(),
                 (QJsonObject{{QStringLiteral("agentName"), QStringLiteral("ada")}}));
        QVERIFY(!out.at(0).toObject().contains(kId));
        // Importing the same again: both are conflicts by name and scope.
        auto again = store.validateImport(existing, known({}));
        QVERIFY(again);
        QCOMPARE(again->conflicts.size(), 2);
        QCOMPARE(again->conflicts.at(0).toObject().value(QStringLiteral("category")).toString(),
                 QStringLiteral("agent-prompts"));
        // Twice in one document; an agent id in place of a name; a bad entry names its place.
        auto twice = store.validateImport(QJsonArray{exported.at(2), exported.at(2)},
                                          known({QStringLiteral("zed")}));
        QVERIFY(!twice);
        QCOMPARE(twice.error().code, wire::code::InvalidValue);
        auto byId = store.validateImport(
            QJsonArray{prompt(QStringLiteral("x"), {{QStringLiteral("agentId"), ada}})}, known({}));
        QVERIFY(!byId);
        auto bad =
            store.validateImport(QJsonArray{QJsonObject{{kName, QStringLiteral("x")}}}, known({}));
        QVERIFY(!bad);
        QVERIFY(bad.error().message.startsWith(QStringLiteral("categories.agent-prompts[0]")));
        QVERIFY(!store.undoImport(*ids));
        QCOMPARE(store.prompts().size(), 0);
    }

    void modelsCrud() {
        const HttpResponse created =
            f.post(kModels, upload(QStringLiteral("Robot arm"), QStringLiteral("gltf"), kGltf));
        QCOMPARE(created.status, 201);
        const QJsonObject m = created.object();
        const QString id = m.value(kId).toString();
        QVERIFY(!id.isEmpty());
        QCOMPARE(m.value(kName).toString(), QStringLiteral("Robot arm"));
        QCOMPARE(m.value(kFormat).toString(), QStringLiteral("gltf"));
        QCOMPARE(m.value(QStringLiteral("size")).toInteger(), qint64(kGltf.size()));
        QCOMPARE(m.value(QStringLiteral("sha256")).toString().toLatin1(),
                 QCryptographicHash::hash(kGltf, QCryptographicHash::Sha256).toHex());
        QVERIFY(m.value(QStringLiteral("createdAt")).toInteger() > 1'600'000'000'000);
        QCOMPARE(m.keys().size(), 6);
        QCOMPARE(created.header("location"), (kModels + QLatin1Char('/') + id).toUtf8());
        QCOMPARE(f.get(kModels).array(), QJsonArray{m});
        QCOMPARE(f.get(kModels + QLatin1Char('/') + id).object(), m);
        QVERIFY(f.ws->waitFor(sm::ModelCreated));
        QCOMPARE(f.payloads(sm::ModelCreated).constFirst(), m);

        const HttpResponse file = f.get(kModels + QLatin1Char('/') + id + QStringLiteral("/file"));
        QCOMPARE(file.status, 200);
        QCOMPARE(file.body, kGltf);
        QCOMPARE(file.header("content-type"), QByteArray("model/gltf+json"));
        QCOMPARE(file.header("content-disposition"),
                 QByteArray("attachment; filename=\"Robot_arm.gltf\""));
        QCOMPARE(file.header("x-content-type-options"), QByteArray("nosniff"));

        QVERIFY(f.restart());
        QCOMPARE(f.get(kModels).array(), QJsonArray{m});
        QCOMPARE(f.get(kModels + QLatin1Char('/') + id + QStringLiteral("/file")).body, kGltf);

        QCOMPARE(f.del(kModels + QLatin1Char('/') + id).status, 204);
        QVERIFY(f.ws->waitFor(sm::ModelDeleted));
        QCOMPARE(f.payloads(sm::ModelDeleted).constFirst(),
                 (QJsonObject{{kId, id}, {kName, QStringLiteral("Robot arm")}}));
        expectError(f.get(kModels + QLatin1Char('/') + id), 404, QStringLiteral("not_found"));
        expectError(f.get(kModels + QLatin1Char('/') + id + QStringLiteral("/file")), 404,
                    QStringLiteral("not_found"));
        expectError(f.del(kModels + QLatin1Char('/') + id), 404, QStringLiteral("not_found"));
        QVERIFY(f.restart());
        QCOMPARE(f.get(kModels).array(), QJsonArray());
    }

    void modelFormats_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QByteArray>("mediaType");
        QTest::newRow("gltf") << QStringLiteral("gltf") << kGltf << QByteArray("model/gltf+json");
        QTest::newRow("glb") << QStringLiteral("glb") << glb(64) << QByteArray("model/gltf-binary");
        QTest::newRow("obj") << QStringLiteral("obj") << kObj << QByteArray("model/obj");
        QTest::newRow("fbx binary")
            << QStringLiteral("fbx") << kFbxBinary << QByteArray("application/octet-stream");
        QTest::newRow("fbx text") << QStringLiteral("fbx") << kFbxText
                                  << QByteArray("application/octet-stream");
    }
    void modelFormats() {
        QFETCH(QString, format);
        QFETCH(QByteArray, bytes);
        QFETCH(QByteArray, mediaType);
        const HttpResponse created = f.post(kModels, upload(QStringLiteral("m"), format, bytes));
        QCOMPARE(created.status, 201);
        const HttpResponse file =
            f.get(kModels + QLatin1Char('/') + created.object().value(kId).toString() +
                  QStringLiteral("/file"));
        QCOMPARE(file.body, bytes);
        QCOMPARE(file.header("content-type"), mediaType);
        QCOMPARE(file.header("content-disposition"),
                 QByteArray("attachment; filename=\"m.") + format.toLatin1() + '"');
    }

    void modelRefusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        auto row = [](const char *name, const QJsonObject &body, int status, const char *code) {
            QTest::newRow(name) << compactJson(body) << status << QString::fromLatin1(code);
        };
        const QString n = QStringLiteral("model");
        const QString gltf = QStringLiteral("gltf");
        const QString data = QString::fromLatin1(kGltf.toBase64());
        QTest::newRow("bad json") << QByteArray("[") << 400 << QStringLiteral("bad_json");
        row("missing name", {{kFormat, gltf}, {kData, data}}, 400, "missing_field");
        row("missing format", {{kName, n}, {kData, data}}, 400, "missing_field");
        row("missing data", {{kName, n}, {kFormat, gltf}}, 400, "missing_field");
        row("data not a string", {{kName, n}, {kFormat, gltf}, {kData, 1}}, 400, "wrong_type");
        row("unknown field", {{kName, n}, {kFormat, gltf}, {kData, data}, {QStringLiteral("x"), 1}},
            422, "unknown_field");
        row("blank name", {{kName, QStringLiteral(" ")}, {kFormat, gltf}, {kData, data}}, 422,
            "invalid_value");
        row("name too long", {{kName, QString(101, u'n')}, {kFormat, gltf}, {kData, data}}, 422,
            "invalid_value");
        row("unknown format", {{kName, n}, {kFormat, QStringLiteral("stl")}, {kData, data}}, 422,
            "invalid_value");
        row("not base64", {{kName, n}, {kFormat, gltf}, {kData, QStringLiteral("@@@@")}}, 422,
            "invalid_value");
        row("empty file", {{kName, n}, {kFormat, gltf}, {kData, QString()}}, 422, "invalid_model");
        row("gltf not json",
            {{kName, n}, {kFormat, gltf}, {kData, QString::fromLatin1(kObj.toBase64())}}, 422,
            "invalid_model");
        row("gltf without asset",
            {{kName, n},
             {kFormat, gltf},
             {kData, QString::fromLatin1(QByteArray("{}").toBase64())}},
            422, "invalid_model");
        row("glb without magic", {{kName, n}, {kFormat, QStringLiteral("glb")}, {kData, data}}, 422,
            "invalid_model");
        row("obj with NUL bytes",
            {{kName, n},
             {kFormat, QStringLiteral("obj")},
             {kData, QString::fromLatin1(QByteArray("v 0 0 0\n\0\n", 10).toBase64())}},
            422, "invalid_model");
        row("fbx neither binary nor text",
            {{kName, n}, {kFormat, QStringLiteral("fbx")}, {kData, data}}, 422, "invalid_model");
        row("name taken", {{kName, QStringLiteral("TAKEN")}, {kFormat, gltf}, {kData, data}}, 409,
            "conflict");
    }
    void modelRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        QCOMPARE(
            f.post(kModels, upload(QStringLiteral("taken"), QStringLiteral("obj"), kObj)).status,
            201);
        expectError(f.postRaw(kModels, body), status, code);
        QCOMPARE(f.get(kModels).array().size(), 1);
        QVERIFY(f.barrier());
        QCOMPARE(f.ws->countOf(sm::ModelCreated), 1);
    }

    // The route's own body limit lets a 10 MiB file through (13.4 MiB of base64), one byte more
    // is too_large, and 100 MiB together is the quota. Other routes keep the general 1 MiB.
    void sizeLimitsAndQuota() {
        const QByteArray big = glb(AssetStore::kMaxFileBytes);
        const HttpResponse first =
            postBig(upload(QStringLiteral("big-0"), QStringLiteral("glb"), big));
        QCOMPARE(first.status, 201);
        const QString id = first.object().value(kId).toString();
        const HttpResponse file =
            f.http->send("GET", f.url(kModels + QLatin1Char('/') + id + QStringLiteral("/file")),
                         {}, {}, 60'000);
        QCOMPARE(file.status, 200);
        QCOMPARE(file.body.size(), big.size());
        QVERIFY(file.body == big);
        QCOMPARE(file.header("content-type"), QByteArray("model/gltf-binary"));

        QByteArray over = big;
        over.append('x');
        expectError(postBig(upload(QStringLiteral("over"), QStringLiteral("glb"), over)), 413,
                    QStringLiteral("too_large"));

        for (int i = 1; i < 10; ++i) {
            QByteArray next = big;
            next[100] = char(i); // another file, another digest
            QCOMPARE(postBig(upload(QStringLiteral("big-%1").arg(i), QStringLiteral("glb"), next))
                         .status,
                     201);
        }
        qint64 total = 0;
        for (const QJsonValue &v : f.get(kModels).array())
            total += v.toObject().value(QStringLiteral("size")).toInteger();
        QCOMPARE(total, AssetStore::kMaxTotalBytes);
        const QJsonObject tiny = upload(QStringLiteral("tiny"), QStringLiteral("obj"), kObj);
        expectError(f.post(kModels, tiny), 413, QStringLiteral("quota_exceeded"));
        QVERIFY(f.restart()); // the quota counts what is stored, after a restart too
        expectError(f.post(kModels, tiny), 413, QStringLiteral("quota_exceeded"));
        QCOMPARE(f.del(kModels + QLatin1Char('/') + id).status, 204);
        QCOMPARE(f.post(kModels, tiny).status, 201);
    }

    void bodyLimitIsTheRoutesOwn() {
        // Refused from the head alone: past the route's own limit, and past the general one on
        // every other route (1 MiB by default).
        auto answer = [this](const QByteArray &target, qint64 length) {
            QTcpSocket s;
            if (!connectRaw(s, f.svc->port()))
                return QByteArray();
            s.write("POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                    QByteArray::number(length) + "\r\nContent-Type: application/json\r\n\r\n");
            return readUntil(
                s, [](const QByteArray &b) { return b.contains("\r\n\r\n") && b.endsWith('}'); },
                5000);
        };
        const QByteArray models = kModels.toLatin1();
        // {target, its Content-Length}: each one byte or more past its route's limit.
        const QList<QPair<QByteArray, qint64>> cases{
            {models, AssetStore::kUploadBodyBytes + 1},
            {models + QByteArray("?x=1"), AssetStore::kUploadBodyBytes + 1},
            {QByteArray("/api/prompts"), 2 * kMiB},
            {models + QByteArray("/x"), 2 * kMiB},
        };
        for (const auto &[target, length] : cases) {
            const QByteArray r = answer(target, length);
            QVERIFY2(rawStatus(r) == 413, r.constData());
            QVERIFY2(rawBody(r).contains("\"payload_too_large\""), r.constData());
        }
        // Within the route's limit the head is accepted: nothing comes back before the body.
        QTcpSocket s;
        QVERIFY(connectRaw(s, f.svc->port()));
        s.write("POST " + kModels.toLatin1() +
                " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n"
                "Content-Type: application/json\r\n\r\n");
        QVERIFY(readUntil(
                    s, [](const QByteArray &b) { return !b.isEmpty(); }, 300)
                    .isEmpty());
    }

    void modelTransfer() {
        QCOMPARE(
            f.post(kModels, upload(QStringLiteral("cube"), QStringLiteral("obj"), kObj)).status,
            201);
        QTemporaryDir dir;
        StartupReport report;
        auto db = Database::open(dir.filePath(QStringLiteral("t.db")), report);
        QVERIFY(db);
        AssetStore store(**db, Clock::system());
        QVERIFY(!store.load());
        QSignalSpy created(&store, &AssetStore::modelCreated);
        const QJsonArray doc{upload(QStringLiteral("cube"), QStringLiteral("obj"), kObj),
                             upload(QStringLiteral("scene"), QStringLiteral("gltf"), kGltf)};
        auto plan = store.validateImport(doc);
        QVERIFY2(plan, qPrintable(plan.error().message));
        QVERIFY(plan->conflicts.isEmpty());
        auto ids = store.applyImport(*plan);
        QVERIFY(ids);
        QCOMPARE(created.size(), 2);
        QCOMPARE(store.totalBytes(), qint64(kObj.size() + kGltf.size()));
        auto exported = store.exportItems();
        QVERIFY(exported);
        QCOMPARE(*exported, doc); // {name, format, dataBase64}, byte for byte
        auto again = store.validateImport(doc);
        QVERIFY(again);
        QCOMPARE(again->conflicts.size(), 2);
        auto twice = store.validateImport(QJsonArray{doc.at(0), doc.at(0)});
        QVERIFY(!twice);
        QCOMPARE(twice.error().code, wire::code::InvalidValue);
        auto bad = store.validateImport(QJsonArray{
            upload(QStringLiteral("x"), QStringLiteral("glb"), QByteArrayLiteral("nope"))});
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, wire::shaping::code::InvalidModel);
        QVERIFY(bad.error().message.startsWith(QStringLiteral("categories.custom-3d-models[0]")));
        QVERIFY(!store.undoImport(*ids));
        QCOMPARE(store.models().size(), 0);
        QCOMPARE(store.totalBytes(), qint64(0));
        // The store reads what it wrote.
        QVERIFY(store.applyImport(*plan));
        AssetStore reread(**db, Clock::system());
        QVERIFY(!reread.load());
        QCOMPARE(reread.models(), store.models());
        QCOMPARE(*reread.exportItems(), doc);
    }
};

QTEST_GUILESS_MAIN(TestPromptsAssets)
#include "tst_prompts_assets.moc"
