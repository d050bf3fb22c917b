// Stored 3D models against the real service on a free port: every route, every refusal with its
// code, each format and its media type, the events, what survives a restart, the 10 MiB file
// limit through the route's own body limit, the 100 MiB quota, and the config-transfer functions
// of the store. Saved prompts are in tst_saved_prompts.

#include "protocol/ShapingNames.h"
#include "shaping/AssetStore.h"
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
const QString kId = QStringLiteral("id");
const QString kFormat = QStringLiteral("format");
const QString kData = QStringLiteral("dataBase64");
const QString kModels = QStringLiteral("/api/custom-3d-models");
constexpr qint64 kMiB = 1024 * 1024;

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

class TestCustomModels final : public QObject {
    Q_OBJECT

    OrgFixture f;

    HttpResponse postBig(const QJsonObject &body) {
        return f.http->send("POST", f.url(kModels), compactJson(body), {}, 60'000);
    }

private Q_SLOTS:
    void init() { QVERIFY2(f.start(), qPrintable(f.svc->lastError())); }
    void cleanup() { f.reset(); }

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

    // With a token required, the larger allowance is the service token's only: a client without
    // it cannot make the service buffer more than the general limit.
    void largerBodyNeedsTheToken() {
        TestService svc(
            [](ServerConfig &c) { c.authToken = QByteArrayLiteral("body-limit-token"); });
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        const auto head = [&svc](const QByteArray &credential) {
            QTcpSocket s;
            if (!connectRaw(s, svc.port()))
                return QByteArray("no connection");
            s.write("POST " + kModels.toLatin1() +
                    " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n" + credential +
                    "Content-Type: application/json\r\n\r\n");
            return readUntil(
                s, [](const QByteArray &b) { return b.contains("\r\n\r\n") && b.endsWith('}'); },
                1000);
        };
        const QByteArray anonymous = head(QByteArray());
        QVERIFY2(rawStatus(anonymous) == 413, anonymous.constData());
        const QByteArray wrong = head("X-Auth-Token: not-the-token\r\n");
        QVERIFY2(rawStatus(wrong) == 413, wrong.constData());
        // The token's request is waited for (its body), not refused from the head.
        QVERIFY(head("X-Auth-Token: body-limit-token\r\n").isEmpty());
        QVERIFY(head("Authorization: Bearer body-limit-token\r\n").isEmpty());
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

QTEST_GUILESS_MAIN(TestCustomModels)
#include "tst_custom_models.moc"
