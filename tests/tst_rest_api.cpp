// REST contract, every route and every refusal, against the real service on a free port.

#include "http/Authenticator.h"
#include "support/HttpClient.h"
#include "support/TestService.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QByteArray json(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}
} // namespace

class TestRestApi final : public QObject {
    Q_OBJECT

    std::unique_ptr<TestService> m_service;
    std::unique_ptr<HttpClient> m_http;

    QUrl url(const QString &path) const { return m_service->url(path); }
    QJsonObject createAgent(const QString &name, const QJsonObject &extra = {}) {
        QJsonObject body = extra;
        body.insert(QStringLiteral("name"), name);
        if (!body.contains(QStringLiteral("cwd")))
            body.insert(QStringLiteral("cwd"), m_service->workDir());
        const HttpResponse r = m_http->post(url(QStringLiteral("/api/agents")), body);
        if (r.status != 201)
            qWarning() << "create failed" << r.status << r.body;
        return r.object();
    }
    static void expectError(const HttpResponse &r, int status, const QString &code) {
        QCOMPARE(r.status, status);
        QCOMPARE(r.header("content-type"), QByteArray("application/json"));
        QCOMPARE(r.object().value(QStringLiteral("code")).toString(), code);
        QVERIFY(!r.object().value(QStringLiteral("error")).toString().isEmpty());
    }

private Q_SLOTS:
    void init() {
        m_service = std::make_unique<TestService>();
        QVERIFY2(m_service->start(), qPrintable(m_service->lastError()));
        m_http = std::make_unique<HttpClient>();
    }
    void cleanup() {
        m_http.reset();
        m_service.reset();
    }

    void createAgentAppliesDefaults() {
        const HttpResponse r =
            m_http->post(url(QStringLiteral("/api/agents")),
                         QJsonObject{{QStringLiteral("name"), QStringLiteral("Builder One")},
                                     {QStringLiteral("cwd"),
                                      QString(m_service->workDir() + QStringLiteral("/."))}});
        QCOMPARE(r.status, 201);
        const QJsonObject a = r.object();
        QVERIFY(!a.value(QStringLiteral("id")).toString().isEmpty());
        QCOMPARE(a.value(QStringLiteral("class")).toString(), QStringLiteral("builder"));
        QCOMPARE(a.value(QStringLiteral("provider")).toString(), QStringLiteral("claude"));
        QCOMPARE(a.value(QStringLiteral("model")).toString(), QStringLiteral("sonnet"));
        QCOMPARE(a.value(QStringLiteral("status")).toString(), QStringLiteral("idle"));
        QCOMPARE(a.value(QStringLiteral("cwd")).toString(),
                 QDir(m_service->workDir()).canonicalPath());
        QCOMPARE(a.value(QStringLiteral("isProcessRunning")).toBool(), false);
        QVERIFY(a.value(QStringLiteral("createdAt")).toInteger() > 1'600'000'000'000);
        QCOMPARE(r.header("location"),
                 QByteArray("/api/agents/") + a.value(QStringLiteral("id")).toString().toUtf8());
        const HttpResponse got = m_http->get(
            url(QStringLiteral("/api/agents/") + a.value(QStringLiteral("id")).toString()));
        QCOMPARE(got.status, 200);
        QCOMPARE(got.object(), a);
    }

    void createAgentRefusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QString cwd = QDir::tempPath();
        auto with = [&](const QJsonObject &o) {
            QJsonObject b{{QStringLiteral("name"), QStringLiteral("x")},
                          {QStringLiteral("cwd"), cwd}};
            for (auto it = o.begin(); it != o.end(); ++it)
                b.insert(it.key(), it.value());
            return json(b);
        };
        QTest::newRow("not json") << QByteArray("{name:") << 400 << "bad_json";
        QTest::newRow("empty body") << QByteArray() << 400 << "bad_json";
        QTest::newRow("array body") << QByteArray("[]") << 400 << "bad_json";
        QTest::newRow("missing name")
            << json({{QStringLiteral("cwd"), cwd}}) << 400 << "missing_field";
        QTest::newRow("missing cwd")
            << json({{QStringLiteral("name"), QStringLiteral("x")}}) << 400 << "missing_field";
        QTest::newRow("name not string")
            << with({{QStringLiteral("name"), 5}}) << 400 << "wrong_type";
        QTest::newRow("cwd not string")
            << with({{QStringLiteral("cwd"), true}}) << 400 << "wrong_type";
        QTest::newRow("empty name")
            << with({{QStringLiteral("name"), QStringLiteral("  ")}}) << 422 << "invalid_value";
        QTest::newRow("long name")
            << with({{QStringLiteral("name"), QString(101, QLatin1Char('n'))}}) << 422
            << "invalid_value";
        QTest::newRow("relative cwd")
            << with({{QStringLiteral("cwd"), QStringLiteral("tmp")}}) << 422 << "invalid_value";
        QTest::newRow("missing cwd dir")
            << with({{QStringLiteral("cwd"), QStringLiteral("/nonexistent/dir")}}) << 422
            << "invalid_value";
        QTest::newRow("cwd is a file")
            << with({{QStringLiteral("cwd"), QStringLiteral("/etc/hostname")}}) << 422
            << "invalid_value";
        QTest::newRow("bad provider") << with({{QStringLiteral("provider"), QStringLiteral("gpt")}})
                                      << 422 << "invalid_value";
        QTest::newRow("bad class") << with({{QStringLiteral("class"), QStringLiteral("Bad Class")}})
                                   << 422 << "invalid_value";
        QTest::newRow("bad model")
            << with({{QStringLiteral("model"), QStringLiteral("a b")}}) << 422 << "invalid_value";
        QTest::newRow("unknown field")
            << with({{QStringLiteral("position"), 1}}) << 422 << "unknown_field";
        QTest::newRow("read-only field")
            << with({{QStringLiteral("status"), QStringLiteral("working")}}) << 422
            << "unknown_field";
    }

    void createAgentRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        expectError(m_http->send("POST", url(QStringLiteral("/api/agents")), body), status, code);
        QCOMPARE(m_http->get(url(QStringLiteral("/api/agents"))).array().size(),
                 0); // nothing half-created
    }

    void duplicateNameConflicts() {
        createAgent(QStringLiteral("Scout"));
        const HttpResponse r = m_http->post(url(QStringLiteral("/api/agents")),
                                            {{QStringLiteral("name"), QStringLiteral("scout")},
                                             {QStringLiteral("cwd"), m_service->workDir()}});
        expectError(r, 409, QStringLiteral("conflict"));
    }

    void listsKeepCreationOrderAndShapes() {
        QStringList ids;
        for (int i = 0; i < 5; ++i)
            ids << createAgent(QStringLiteral("agent-%1").arg(i))
                       .value(QStringLiteral("id"))
                       .toString();
        const QJsonArray all = m_http->get(url(QStringLiteral("/api/agents"))).array();
        const QJsonArray simple = m_http->get(url(QStringLiteral("/api/agents/simple"))).array();
        const QJsonArray status = m_http->get(url(QStringLiteral("/api/agents/status"))).array();
        QCOMPARE(all.size(), 5);
        QCOMPARE(simple.size(), 5);
        QCOMPARE(status.size(), 5);
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(all[i].toObject().value(QStringLiteral("id")).toString(), ids[i]);
            QCOMPARE(simple[i].toObject().keys(),
                     QStringList({QStringLiteral("id"), QStringLiteral("name")}));
            QCOMPARE(status[i].toObject().value(QStringLiteral("name")).toString(),
                     QStringLiteral("agent-%1").arg(i));
            QCOMPARE(status[i].toObject().size(), 6);
        }
    }

    void statusCacheFollowsChanges() {
        const QString id = createAgent(QStringLiteral("a")).value(QStringLiteral("id")).toString();
        QCOMPARE(m_http->get(url(QStringLiteral("/api/agents/status"))).array().size(), 1);
        createAgent(QStringLiteral("b"));
        QCOMPARE(m_http->get(url(QStringLiteral("/api/agents/status"))).array().size(), 2);
        QCOMPARE(m_http->del(url(QStringLiteral("/api/agents/") + id)).status, 204);
        const QJsonArray after = m_http->get(url(QStringLiteral("/api/agents/status"))).array();
        QCOMPARE(after.size(), 1);
        QCOMPARE(after[0].toObject().value(QStringLiteral("name")).toString(), QStringLiteral("b"));
        m_http->patch(url(QStringLiteral("/api/agents/") +
                          after[0].toObject().value(QStringLiteral("id")).toString()),
                      {{QStringLiteral("taskLabel"), QStringLiteral("fresh")}});
        QCOMPARE(m_http->get(url(QStringLiteral("/api/agents")))
                     .array()[0]
                     .toObject()
                     .value(QStringLiteral("taskLabel"))
                     .toString(),
                 QStringLiteral("fresh"));
    }

    void unknownAgent_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("get") << QByteArray("GET") << QByteArray();
        QTest::newRow("patch") << QByteArray("PATCH") << QByteArray(R"({"taskLabel":"x"})");
        QTest::newRow("delete") << QByteArray("DELETE") << QByteArray();
    }

    void unknownAgent() {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, body);
        expectError(m_http->send(method, url(QStringLiteral("/api/agents/no-such-id")), body), 404,
                    QStringLiteral("not_found"));
    }

    void patchAgent_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QJsonValue>("expected");
        QTest::newRow("taskLabel") << QByteArray(R"({"taskLabel":"refactor"})") << 200
                                   << "taskLabel" << QJsonValue(QStringLiteral("refactor"));
        QTest::newRow("tracking") << QByteArray(R"({"trackingStatus":"need-review"})") << 200
                                  << "trackingStatus" << QJsonValue(QStringLiteral("need-review"));
        QTest::newRow("tracking null")
            << QByteArray(R"({"trackingStatus":null})") << 200 << "trackingStatus" << QJsonValue();
        QTest::newRow("detail") << QByteArray(R"({"trackingStatusDetail":"waiting on CI"})") << 200
                                << "trackingStatusDetail"
                                << QJsonValue(QStringLiteral("waiting on CI"));
        QTest::newRow("empty patch")
            << QByteArray("{}") << 200 << "taskLabel" << QJsonValue(QString());
        QTest::newRow("bad tracking") << QByteArray(R"({"trackingStatus":"sleeping"})") << 422
                                      << "invalid_value" << QJsonValue();
        QTest::newRow("unknown field")
            << QByteArray(R"({"name":"renamed"})") << 422 << "unknown_field" << QJsonValue();
        QTest::newRow("wrong type")
            << QByteArray(R"({"taskLabel":3})") << 400 << "wrong_type" << QJsonValue();
        QTest::newRow("too long") << (QByteArray(R"({"taskLabel":")") + QByteArray(201, 'x') +
                                      "\"}")
                                  << 422 << "invalid_value" << QJsonValue();
        QTest::newRow("not json") << QByteArray("nope") << 400 << "bad_json" << QJsonValue();
    }

    void patchAgent() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, field);
        QFETCH(QJsonValue, expected);
        const QString id =
            createAgent(QStringLiteral("p"), {{QStringLiteral("class"), QStringLiteral("scout")}})
                .value(QStringLiteral("id"))
                .toString();
        const HttpResponse r =
            m_http->send("PATCH", url(QStringLiteral("/api/agents/") + id), body);
        if (status != 200) {
            expectError(r, status, field);
            if (field == QLatin1String("unknown_field"))
                QVERIFY(r.object()
                            .value(QStringLiteral("error"))
                            .toString()
                            .contains(QStringLiteral("name")));
            return;
        }
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(field), expected);
        QCOMPARE(r.object().value(QStringLiteral("class")).toString(), QStringLiteral("scout"));
        QCOMPARE(m_http->get(url(QStringLiteral("/api/agents/") + id)).object(), r.object());
    }

    void deleteAgent() {
        const QString id =
            createAgent(QStringLiteral("gone")).value(QStringLiteral("id")).toString();
        const HttpResponse r = m_http->del(url(QStringLiteral("/api/agents/") + id));
        QCOMPARE(r.status, 204);
        QVERIFY(r.body.isEmpty());
        QCOMPARE(m_http->get(url(QStringLiteral("/api/agents/") + id)).status, 404);
        QCOMPARE(m_http->del(url(QStringLiteral("/api/agents/") + id)).status, 404);
        // The name is free again.
        QVERIFY(!createAgent(QStringLiteral("gone")).isEmpty());
    }

    void routing_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QByteArray>("allow");
        QTest::newRow("unknown route")
            << QByteArray("GET") << "/api/nothing" << 404 << "route_not_found" << QByteArray();
        // "/" is the web page (tst_web_static); other paths outside /api are not routes.
        QTest::newRow("outside the api")
            << QByteArray("GET") << "/elsewhere" << 404 << "route_not_found" << QByteArray();
        QTest::newRow("put on list") << QByteArray("PUT") << "/api/agents" << 405
                                     << "method_not_allowed" << QByteArray("GET, POST, HEAD");
        QTest::newRow("post on status") << QByteArray("POST") << "/api/agents/status" << 405
                                        << "method_not_allowed" << QByteArray("GET, HEAD");
        QTest::newRow("put on agent")
            << QByteArray("PUT") << "/api/agents/x" << 405 << "method_not_allowed"
            << QByteArray("GET, PATCH, DELETE, HEAD");
        QTest::newRow("options") << QByteArray("OPTIONS") << "/api/health" << 405
                                 << "method_not_allowed" << QByteArray("GET, HEAD");
    }

    void routing() {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        QFETCH(int, status);
        QFETCH(QString, code);
        QFETCH(QByteArray, allow);
        const HttpResponse r = m_http->send(method, url(path));
        expectError(r, status, code);
        QCOMPARE(r.header("allow"), allow);
    }

    void headMirrorsGetWithoutBody() {
        createAgent(QStringLiteral("h"));
        const HttpResponse get = m_http->get(url(QStringLiteral("/api/agents/status")));
        const HttpResponse head = m_http->send("HEAD", url(QStringLiteral("/api/agents/status")));
        QCOMPARE(head.status, 200);
        QVERIFY(head.body.isEmpty());
        QCOMPARE(head.header("content-length").toInt(), get.body.size());
    }

    void notify_data() {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QJsonObject ok{{QStringLiteral("agentId"), QStringLiteral("$id")},
                             {QStringLiteral("title"), QStringLiteral("Done")},
                             {QStringLiteral("message"), QStringLiteral("Build is green")}};
        auto with = [&](const QString &k, const QJsonValue &v) {
            QJsonObject o = ok;
            if (v.isUndefined())
                o.remove(k);
            else
                o.insert(k, v);
            return o;
        };
        QTest::newRow("ok") << ok << 201 << QString();
        QTest::newRow("with icon")
            << with(QStringLiteral("iconUrl"), QStringLiteral("https://example.org/i.png")) << 201
            << QString();
        QTest::newRow("missing title")
            << with(QStringLiteral("title"), QJsonValue::Undefined) << 400 << "missing_field";
        QTest::newRow("missing agentId")
            << with(QStringLiteral("agentId"), QJsonValue::Undefined) << 400 << "missing_field";
        QTest::newRow("title not string")
            << with(QStringLiteral("title"), 7) << 400 << "wrong_type";
        QTest::newRow("unknown agent")
            << with(QStringLiteral("agentId"), QStringLiteral("ghost")) << 404 << "not_found";
        QTest::newRow("empty title")
            << with(QStringLiteral("title"), QStringLiteral(" ")) << 422 << "invalid_value";
        QTest::newRow("bad icon url")
            << with(QStringLiteral("iconUrl"), QStringLiteral("file:///etc/passwd")) << 422
            << "invalid_value";
        QTest::newRow("unknown field")
            << with(QStringLiteral("priority"), 1) << 422 << "unknown_field";
    }

    void notify() {
        QFETCH(QJsonObject, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        const QJsonObject agent = createAgent(QStringLiteral("Notifier"),
                                              {{QStringLiteral("class"), QStringLiteral("scout")}});
        if (body.value(QStringLiteral("agentId")).toString() == QLatin1String("$id"))
            body.insert(QStringLiteral("agentId"), agent.value(QStringLiteral("id")));
        const HttpResponse r = m_http->post(url(QStringLiteral("/api/notify")), body);
        if (status != 201) {
            expectError(r, status, code);
            QCOMPARE(m_http->get(url(QStringLiteral("/api/notifications"))).array().size(), 0);
            return;
        }
        QCOMPARE(r.status, 201);
        QCOMPARE(r.object().value(QStringLiteral("success")).toBool(), true);
        const QJsonObject n = r.object().value(QStringLiteral("notification")).toObject();
        QCOMPARE(n.value(QStringLiteral("agentName")).toString(), QStringLiteral("Notifier"));
        QCOMPARE(n.value(QStringLiteral("agentClass")).toString(), QStringLiteral("scout"));
        QCOMPARE(QString::number(n.value(QStringLiteral("timestamp")).toInteger()).size(), 13);
        const QJsonArray listed = m_http->get(url(QStringLiteral("/api/notifications"))).array();
        QCOMPARE(listed.size(), 1);
        QCOMPARE(listed[0].toObject(), n);
    }

    void notificationsNewestFirstWithLimit() {
        const QString id = createAgent(QStringLiteral("n")).value(QStringLiteral("id")).toString();
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(m_http
                         ->post(url(QStringLiteral("/api/notify")),
                                {{QStringLiteral("agentId"), id},
                                 {QStringLiteral("title"), QStringLiteral("t%1").arg(i)},
                                 {QStringLiteral("message"), QString()}})
                         .status,
                     201);
        }
        const QJsonArray two =
            m_http->get(url(QStringLiteral("/api/notifications?limit=2"))).array();
        QCOMPARE(two.size(), 2);
        QCOMPARE(two[0].toObject().value(QStringLiteral("title")).toString(), QStringLiteral("t4"));
        QCOMPARE(two[1].toObject().value(QStringLiteral("title")).toString(), QStringLiteral("t3"));
        expectError(m_http->get(url(QStringLiteral("/api/notifications?limit=abc"))), 400,
                    QStringLiteral("wrong_type"));
        expectError(m_http->get(url(QStringLiteral("/api/notifications?limit=0"))), 422,
                    QStringLiteral("invalid_value"));
    }

    void systemPrompt() {
        const QUrl u = url(QStringLiteral("/api/agents/system-settings/prompt"));
        QCOMPARE(m_http->get(u).object().value(QStringLiteral("prompt")).toString(), QString());
        const HttpResponse set =
            m_http->post(u, {{QStringLiteral("prompt"), QStringLiteral("Answer in haiku.")}});
        QCOMPARE(set.status, 200);
        QCOMPARE(set.object().value(QStringLiteral("success")).toBool(), true);
        QVERIFY(!set.object().value(QStringLiteral("message")).toString().isEmpty());
        QCOMPARE(m_http->get(u).object().value(QStringLiteral("prompt")).toString(),
                 QStringLiteral("Answer in haiku."));

        QFile file(m_service->dataDir() + QStringLiteral("/data/system-prompt.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(file.readAll())
                     .object()
                     .value(QStringLiteral("prompt"))
                     .toString(),
                 QStringLiteral("Answer in haiku."));
        QCOMPARE(file.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());

        const HttpResponse cleared = m_http->del(u);
        QCOMPARE(cleared.status, 200);
        QCOMPARE(m_http->get(u).object().value(QStringLiteral("prompt")).toString(), QString());
    }

    void systemPromptRefusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("missing") << QByteArray("{}") << 400 << "missing_field";
        QTest::newRow("not string") << QByteArray(R"({"prompt":["a"]})") << 400 << "wrong_type";
        QTest::newRow("not json") << QByteArray("prompt=x") << 400 << "bad_json";
        QTest::newRow("unknown field")
            << QByteArray(R"({"prompt":"a","scope":"all"})") << 422 << "unknown_field";
        QTest::newRow("too long") << (QByteArray(R"({"prompt":")") +
                                      QByteArray(100 * 1024 + 1, 'p') + "\"}")
                                  << 422 << "invalid_value";
    }

    void systemPromptRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        const QUrl u = url(QStringLiteral("/api/agents/system-settings/prompt"));
        m_http->post(u, {{QStringLiteral("prompt"), QStringLiteral("keep me")}});
        expectError(m_http->send("POST", u, body), status, code);
        QCOMPARE(m_http->get(u).object().value(QStringLiteral("prompt")).toString(),
                 QStringLiteral("keep me"));
    }

    void configCategories() {
        const HttpResponse r = m_http->get(url(QStringLiteral("/api/config/categories")));
        QCOMPARE(r.status, 200);
        QStringList names;
        for (const QJsonValue &v : r.array())
            names << v.toString();
        QCOMPARE(names, QStringList(
                            {QStringLiteral("agents"), QStringLiteral("areas"),
                             QStringLiteral("buildings"), QStringLiteral("skills"),
                             QStringLiteral("custom-classes"), QStringLiteral("class-instructions"),
                             QStringLiteral("agent-prompts"), QStringLiteral("custom-3d-models"),
                             QStringLiteral("custom-class-icons"), QStringLiteral("hooks"),
                             QStringLiteral("permissions"), QStringLiteral("system-settings")}));
    }

    void health() {
        const HttpResponse r = m_http->get(url(QStringLiteral("/api/health")));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(r.object().value(QStringLiteral("version")).toString(),
                 QStringLiteral(FLOTILLA_VERSION));
        QCOMPARE(r.object().value(QStringLiteral("authRequired")).toBool(), false);
    }

    // Auth on: every route but /api/health needs the token, including unknown routes (fail
    // closed: an unauthenticated caller learns nothing about which routes exist).
    void authGate_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("authorizedStatus");
        QTest::newRow("list") << QByteArray("GET") << "/api/agents" << QByteArray() << 200;
        QTest::newRow("simple") << QByteArray("GET") << "/api/agents/simple" << QByteArray() << 200;
        QTest::newRow("status") << QByteArray("GET") << "/api/agents/status" << QByteArray() << 200;
        QTest::newRow("get one") << QByteArray("GET") << "/api/agents/x" << QByteArray() << 404;
        QTest::newRow("create") << QByteArray("POST") << "/api/agents" << QByteArray("{}") << 400;
        QTest::newRow("patch") << QByteArray("PATCH") << "/api/agents/x" << QByteArray("{}") << 404;
        QTest::newRow("delete") << QByteArray("DELETE") << "/api/agents/x" << QByteArray() << 404;
        QTest::newRow("notify") << QByteArray("POST") << "/api/notify" << QByteArray("{}") << 400;
        QTest::newRow("notifications")
            << QByteArray("GET") << "/api/notifications" << QByteArray() << 200;
        QTest::newRow("prompt get")
            << QByteArray("GET") << "/api/agents/system-settings/prompt" << QByteArray() << 200;
        QTest::newRow("prompt post") << QByteArray("POST") << "/api/agents/system-settings/prompt"
                                     << QByteArray("{}") << 400;
        QTest::newRow("prompt delete")
            << QByteArray("DELETE") << "/api/agents/system-settings/prompt" << QByteArray() << 200;
        QTest::newRow("categories")
            << QByteArray("GET") << "/api/config/categories" << QByteArray() << 200;
        QTest::newRow("unknown route")
            << QByteArray("GET") << "/api/secret-route" << QByteArray() << 404;
        QTest::newRow("wrong method") << QByteArray("PUT") << "/api/agents" << QByteArray() << 405;
    }

    void authGate() {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        QFETCH(QByteArray, body);
        QFETCH(int, authorizedStatus);
        TestService secured([](ServerConfig &c) { c.authToken = "t0ken-value"; });
        QVERIFY(secured.start());
        HttpClient anon;
        expectError(anon.send(method, secured.url(path), body), 401,
                    QStringLiteral("unauthorized"));
        HttpClient wrong("t0ken-valuX");
        expectError(wrong.send(method, secured.url(path), body), 401,
                    QStringLiteral("unauthorized"));
        HttpClient prefix("t0ken");
        expectError(prefix.send(method, secured.url(path), body), 401,
                    QStringLiteral("unauthorized"));
        HttpClient longer("t0ken-value-and-more");
        expectError(longer.send(method, secured.url(path), body), 401,
                    QStringLiteral("unauthorized"));
        HttpClient right("t0ken-value");
        QCOMPARE(right.send(method, secured.url(path), body).status, authorizedStatus);
        HttpClient bearer;
        QCOMPARE(
            bearer.send(method, secured.url(path), body, {{"Authorization", "Bearer t0ken-value"}})
                .status,
            authorizedStatus);
        // Auth off (the default service of this suite): the same request is never 401.
        QCOMPARE(m_http->send(method, url(path), body).status, authorizedStatus);
    }

    // The comparison itself, on every kind of near miss (the timing property is by construction:
    // see Authenticator::accepts).
    void authenticatorCompares_data() {
        QTest::addColumn<QByteArray>("token");
        QTest::addColumn<QByteArray>("candidate");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("equal") << QByteArray("s3cret") << QByteArray("s3cret") << true;
        QTest::newRow("empty candidate") << QByteArray("s3cret") << QByteArray() << false;
        QTest::newRow("prefix") << QByteArray("s3cret") << QByteArray("s3cre") << false;
        QTest::newRow("extension") << QByteArray("s3cret") << QByteArray("s3cret!") << false;
        QTest::newRow("last byte") << QByteArray("s3cret") << QByteArray("s3creT") << false;
        QTest::newRow("first byte") << QByteArray("s3cret") << QByteArray("S3cret") << false;
        QTest::newRow("NUL padded") << QByteArray("s3cret") << QByteArray("s3cret\0", 7) << false;
        QTest::newRow("one byte token") << QByteArray("x") << QByteArray("x") << true;
        QTest::newRow("long token") << QByteArray(4096, 'k') << QByteArray(4096, 'k') << true;
        QTest::newRow("long token, one off")
            << QByteArray(4096, 'k') << QByteArray(4095, 'k') + 'j' << false;
        QTest::newRow("no token: anything") << QByteArray() << QByteArray("x") << true;
    }
    void authenticatorCompares() {
        QFETCH(QByteArray, token);
        QFETCH(QByteArray, candidate);
        QFETCH(bool, accepted);
        QCOMPARE(Authenticator(token).accepts(candidate), accepted);
    }

    void healthIsOpenButQuiet() {
        TestService secured([](ServerConfig &c) { c.authToken = "t0ken-value"; });
        QVERIFY(secured.start());
        HttpClient anon;
        const HttpResponse r = anon.get(secured.url(QStringLiteral("/api/health")));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("authRequired")).toBool(), true);
        QVERIFY(!r.object().contains(QStringLiteral("warnings")));
        HttpClient right("t0ken-value");
        QVERIFY(right.get(secured.url(QStringLiteral("/api/health")))
                    .object()
                    .contains(QStringLiteral("warnings")));
    }
};

QTEST_GUILESS_MAIN(TestRestApi)
#include "tst_rest_api.moc"
