// Permissions, end to end: the real CLI asks (Claude through its hooks, Codex through
// its approval requests), the service makes it a permission_request event, and the WebSocket
// answer decides whether the tool runs. Each flow runs for both providers, with a shell command
// (`touch`) as the tool: Codex in ask mode (approvalPolicy untrusted) asks only for commands it
// does not consider safe, and `touch` is one; Claude asks for it as for any writing Bash command.

#include "support/AgentRig.h"

#include <QFile>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

QJsonObject message(const QString &type, const QJsonObject &payload) {
    return QJsonObject{{QStringLiteral("type"), type}, {QStringLiteral("payload"), payload}};
}

QJsonObject answer(const QString &agentId, const QString &id, bool granted) {
    return message(QStringLiteral("permission_response"), {{QStringLiteral("agentId"), agentId},
                                                           {QStringLiteral("permissionId"), id},
                                                           {QStringLiteral("granted"), granted}});
}

// Queues a `touch <file>` in the agent's cwd and sends a message; returns the
// permission_request payload (empty if none came).
QJsonObject requestTouch(AgentRig &rig, const QString &file) {
    rig.model().queueCommand(QStringLiteral("touch ") + file);
    rig.model().queueText(QStringLiteral("done"));
    if (rig.send(QStringLiteral("make the file")).status != 200)
        return {};
    if (!rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000))
        return {};
    return rig.ws->last(QStringLiteral("permission_request"))
        .value(QStringLiteral("payload"))
        .toObject();
}
} // namespace

class TestPermissions final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void answerDecides_data() {
        QTest::addColumn<QString>("provider");
        QTest::addColumn<bool>("granted");
        QTest::addColumn<bool>("peerSpelling");
        for (const QString &p : agentProviders()) {
            QTest::addRow("%s granted", qPrintable(p)) << p << true << false;
            QTest::addRow("%s denied", qPrintable(p)) << p << false << false;
            QTest::addRow("%s peer approved", qPrintable(p)) << p << true << true;
            QTest::addRow("%s peer refused", qPrintable(p)) << p << false << true;
        }
    }
    void answerDecides() {
        QFETCH(QString, provider);
        QFETCH(bool, granted);
        QFETCH(bool, peerSpelling);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        QCOMPARE(str(rig.agent(), "permissionMode"), QStringLiteral("ask"));
        const QString path = rig.cwd + QStringLiteral("/made.txt");
        const QJsonObject req = requestTouch(rig, QStringLiteral("made.txt"));
        QVERIFY(!req.isEmpty());
        const QString id = str(req, "id");
        QVERIFY(!id.isEmpty());
        QCOMPARE(str(req, "agentId"), rig.agentId);
        QCOMPARE(str(req, "agentName"), QStringLiteral("agent-1"));
        QCOMPARE(str(req, "tool"), rig.model().commandTool());
        const QJsonObject input = req.value(QStringLiteral("toolInput")).toObject();
        if (rig.isCodex()) {
            // Codex names the command as it will run it, and its approval request carries no
            // tool-use id: the command execution's item id is in the input instead.
            QVERIFY2(str(input, "command").contains(QStringLiteral("touch made.txt")),
                     qPrintable(str(input, "command")));
            QVERIFY(!str(input, "itemId").isEmpty());
            QVERIFY(req.value(QStringLiteral("toolUseId")).isNull());
        } else {
            QCOMPARE(str(input, "command"), QStringLiteral("touch made.txt"));
            QVERIFY(!str(req, "toolUseId").isEmpty());
        }
        QVERIFY(req.value(QStringLiteral("timestamp")).toInteger() > 0);
        QVERIFY(rig.waitStatus(QStringLiteral("waiting_permission")));
        QVERIFY(!QFile::exists(path));

        if (peerSpelling)
            rig.ws->sendJson(message(
                QStringLiteral("permission_response"),
                {{QStringLiteral("requestId"), id}, {QStringLiteral("approved"), granted}}));
        else
            rig.ws->sendJson(answer(rig.agentId, id, granted));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved")));
        const QJsonObject resolved = rig.ws->last(QStringLiteral("permission_resolved"))
                                         .value(QStringLiteral("payload"))
                                         .toObject();
        QCOMPARE(str(resolved, "id"), id);
        QCOMPARE(str(resolved, "agentId"), rig.agentId);
        QCOMPARE(resolved.value(QStringLiteral("granted")).toBool(), granted);
        QVERIFY(rig.waitTurns(1));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QCOMPARE(QFile::exists(path), granted);
    }

    void pendingIsReplayedToLateClients_data() { addProviderRows(); }
    void pendingIsReplayedToLateClients() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        const QString path = rig.cwd + QStringLiteral("/late.txt");
        const QJsonObject req = requestTouch(rig, QStringLiteral("late.txt"));
        QVERIFY(!req.isEmpty());
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("waiting_permission"));

        WsClient late;
        QVERIFY(late.open(rig.svc->wsUrl()));
        QVERIFY(late.waitFor(QStringLiteral("permission_request")));
        QCOMPARE(late.last(QStringLiteral("permission_request"))
                     .value(QStringLiteral("payload"))
                     .toObject(),
                 req);

        late.sendJson(answer(rig.agentId, str(req, "id"), true));
        QVERIFY(late.waitFor(QStringLiteral("permission_resolved")));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved")));
        QVERIFY(rig.waitTurns(1));
        QVERIFY(QFile::exists(path));

        WsClient after; // nothing pending: nothing replayed
        QVERIFY(after.open(rig.svc->wsUrl()));
        QVERIFY(after.waitFor(QStringLiteral("work_plans_update")));
        QTest::qWait(200);
        QCOMPARE(after.countOf(QStringLiteral("permission_request")), 0);
    }

    void stopDeniesPending_data() { addProviderRows(); }
    void stopDeniesPending() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        const QString path = rig.cwd + QStringLiteral("/stopped.txt");
        const QJsonObject req = requestTouch(rig, QStringLiteral("stopped.txt"));
        QVERIFY(!req.isEmpty());
        rig.ws->sendJson(
            message(QStringLiteral("stop_agent"), {{QStringLiteral("agentId"), rig.agentId}}));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved")));
        const QJsonObject resolved = rig.ws->last(QStringLiteral("permission_resolved"))
                                         .value(QStringLiteral("payload"))
                                         .toObject();
        QCOMPARE(str(resolved, "id"), str(req, "id"));
        QCOMPARE(resolved.value(QStringLiteral("granted")).toBool(), false);
        QVERIFY(rig.waitStatus(QStringLiteral("stopped")));
        QTest::qWait(500);
        QVERIFY(!QFile::exists(path));
    }

    void deleteDeniesPending_data() { addProviderRows(); }
    void deleteDeniesPending() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        const QString path = rig.cwd + QStringLiteral("/deleted.txt");
        const QJsonObject req = requestTouch(rig, QStringLiteral("deleted.txt"));
        QVERIFY(!req.isEmpty());
        QCOMPARE(rig.http.del(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId)).status,
                 204);
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved")));
        const QJsonObject resolved = rig.ws->last(QStringLiteral("permission_resolved"))
                                         .value(QStringLiteral("payload"))
                                         .toObject();
        QCOMPARE(str(resolved, "id"), str(req, "id"));
        QCOMPARE(resolved.value(QStringLiteral("granted")).toBool(), false);
        WsClient late; // nothing left to replay
        QVERIFY(late.open(rig.svc->wsUrl()));
        QVERIFY(late.waitFor(QStringLiteral("work_plans_update")));
        QCOMPARE(late.countOf(QStringLiteral("permission_request")), 0);
        QVERIFY(!QFile::exists(path));
    }

    // With auth on, the hook authenticates with the agent's own token (its header file); the
    // grant goes through and the tool runs. Claude only: Codex asks over its own stdio, with no
    // hook.
    void hookAuthenticatesWithTheToken() {
        AgentRig rig([](ServerConfig &c) { c.authToken = "perm-token-5174"; });
        QVERIFY(rig.start());
        QCOMPARE(rig.http.get(rig.svc->url(QStringLiteral("/api/agents"))).status, 200);
        HttpClient anonymous;
        QCOMPARE(anonymous
                     .post(rig.svc->url(
                               QStringLiteral("/api/agents/%1/permission-check").arg(rig.agentId)),
                           QJsonObject{{QStringLiteral("tool_name"), QStringLiteral("Write")}})
                     .status,
                 401);
        const QString path = rig.cwd + QStringLiteral("/authed.txt");
        const QJsonObject req = requestTouch(rig, QStringLiteral("authed.txt"));
        QVERIFY(!req.isEmpty());
        rig.ws->sendJson(answer(rig.agentId, str(req, "id"), true));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved")));
        QVERIFY(rig.waitTurns(1));
        QVERIFY(QFile::exists(path));
    }

    void unansweredIsDenied_data() { addProviderRows(); }
    void unansweredIsDenied() {
        QFETCH(QString, provider);
        AgentRig rig(provider, [](ServerConfig &c) { c.permissionTimeoutMs = 1500; });
        QVERIFY(rig.start());
        const QString path = rig.cwd + QStringLiteral("/late.txt");
        const QJsonObject req = requestTouch(rig, QStringLiteral("late.txt"));
        QVERIFY(!req.isEmpty());
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved"), 1, 10000));
        const QJsonObject resolved = rig.ws->last(QStringLiteral("permission_resolved"))
                                         .value(QStringLiteral("payload"))
                                         .toObject();
        QCOMPARE(str(resolved, "id"), str(req, "id"));
        QCOMPARE(resolved.value(QStringLiteral("granted")).toBool(), false);
        QVERIFY(rig.waitTurns(1));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QVERIFY(!QFile::exists(path));
    }

    // The answer's validation: no CLI is involved, so one provider is enough.
    void badResponsesGetErrors_data() {
        QTest::addColumn<QJsonObject>("payload");
        QTest::addColumn<QString>("code");
        QTest::newRow("no id") << QJsonObject{{QStringLiteral("granted"), true}}
                               << QStringLiteral("missing_field");
        QTest::newRow("no decision")
            << QJsonObject{{QStringLiteral("permissionId"), QStringLiteral("x")}}
            << QStringLiteral("missing_field");
        QTest::newRow("granted not bool")
            << QJsonObject{{QStringLiteral("permissionId"), QStringLiteral("x")},
                           {QStringLiteral("granted"), QStringLiteral("yes")}}
            << QStringLiteral("wrong_type");
        QTest::newRow("id not string")
            << QJsonObject{{QStringLiteral("requestId"), 5}, {QStringLiteral("approved"), true}}
            << QStringLiteral("wrong_type");
        QTest::newRow("unknown id")
            << QJsonObject{{QStringLiteral("permissionId"), QStringLiteral("ghost")},
                           {QStringLiteral("granted"), true}}
            << QStringLiteral("not_found");
    }
    void badResponsesGetErrors() {
        QFETCH(QJsonObject, payload);
        QFETCH(QString, code);
        AgentRig rig;
        QVERIFY(rig.start());
        rig.ws->sendJson(message(QStringLiteral("permission_response"), payload));
        QVERIFY(rig.ws->waitFor(QStringLiteral("error")));
        QCOMPARE(
            str(rig.ws->last(QStringLiteral("error")).value(QStringLiteral("payload")).toObject(),
                "code"),
            code);
    }

    void autoModeAllowsWithoutAsking_data() { addProviderRows(); }
    void autoModeAllowsWithoutAsking() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        const HttpResponse bad = rig.createAgent(
            QStringLiteral("bad"), {{QStringLiteral("permissionMode"), QStringLiteral("yolo")}});
        QCOMPARE(bad.status, 422);
        const HttpResponse r = rig.createAgent(
            QStringLiteral("auto-1"), {{QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(r.status, 201);
        const QString autoId = str(r.object(), "id");
        QCOMPARE(str(r.object(), "permissionMode"), QStringLiteral("auto"));
        const QString path = rig.cwd + QStringLiteral("/auto.txt");
        rig.model().queueCommand(QStringLiteral("touch auto.txt"));
        rig.model().queueText(QStringLiteral("done"));
        QCOMPARE(rig.send(QStringLiteral("make it"), autoId).status, 200);
        QVERIFY(rig.waitTurns(1, 60000, autoId));
        QVERIFY(QFile::exists(path));
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), 0);
    }
};

QTEST_GUILESS_MAIN(TestPermissions)
#include "tst_permissions.moc"
