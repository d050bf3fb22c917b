// Saved prompts against the real service on a free port: every route, every refusal with its
// code, the scope filter, an agent's prompts going with it, the events, what survives a restart,
// and the config-transfer functions of the store. Stored 3D models are in tst_custom_models.

#include "domain/AgentRegistry.h"
#include "protocol/ShapingNames.h"
#include "shaping/PromptStore.h"
#include "storage/Database.h"
#include "storage/StartupReport.h"
#include "support/OrgFixture.h"

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
const QString kPrompts = QStringLiteral("/api/prompts");

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
} // namespace

class TestSavedPrompts final : public QObject {
    Q_OBJECT

    OrgFixture f;

    HttpResponse patch(const QString &path, const QJsonObject &body) {
        return f.http->patch(f.url(path), body);
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
};

QTEST_GUILESS_MAIN(TestSavedPrompts)
#include "tst_saved_prompts.moc"
