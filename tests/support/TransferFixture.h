#pragma once
// What the config-transfer suites (tst_config_transfer: the organization's categories, secrets,
// dry runs, refusals, undo; tst_config_transfer_features: what shapes agents, every category
// with content) share: the real service (OrgFixture), a snapshot of everything an import may
// touch, documents, and the import refusal check with the names it finds taken. A suite's class
// inherits it, so its tests call the helpers unqualified. Header-only and without Q_OBJECT, so it
// needs no entry in the support library.

#include "support/OrgFixture.h"

#include <QHash>
#include <QJsonArray>
#include <QTest>

namespace flotilla::test {

class TransferFixture {
protected:
    OrgFixture f;

    static inline const QString kName = QStringLiteral("name");
    static inline const QString kCategories = QStringLiteral("categories");
    static inline const QString kImport = QStringLiteral("/api/config/import");
    static inline const QByteArray kSecretValue = "s3cr3t-Valu3-4711";

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
    static inline const QStringList kFeatureRoutes{
        QStringLiteral("/api/skills"),    QStringLiteral("/api/classes"),
        QStringLiteral("/api/prompts"),   QStringLiteral("/api/hooks"),
        QStringLiteral("/api/buildings"), QStringLiteral("/api/custom-3d-models")};

    // The twelve, as QJsonObject::keys() sorts them.
    static inline const QStringList kAllCategories =
        QStringLiteral("agent-prompts,agents,areas,buildings,class-instructions,custom-3d-models,"
                       "custom-class-icons,custom-classes,hooks,permissions,skills,system-settings")
            .split(QLatin1Char(','));

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

    // One row of importRefusals: with a name taken in every category that has names (agent
    // "Taken", area, secret, prompt, hook, building, 3D model), `body` (WORK replaced by an
    // existing directory) is refused with `status` and `code`, a conflict names the taken one, and
    // nothing changed, not even an event.
    void expectImportRefused(QByteArray body, int status, const QString &code) {
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
};

} // namespace flotilla::test
