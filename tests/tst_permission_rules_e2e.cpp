// Standing permission rules end to end with the real CLIs (Claude and Codex rows) against their
// scripted models: a `remember` answer stores the rule and the next identical tool use runs
// without a permission_request; a deny rule refuses without asking in ask and auto mode; a new
// rule answers the pending requests it covers; the inbox lists pending requests; the decision log
// records who decided (a client, a rule, the deadline, a stop), survives a restart, pages with
// `limit` and masks secrets; rules survive a restart; the routes' refusals.

#include "support/AgentRig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

QJsonObject payloadOf(const QJsonObject &m) {
    return m.value(QStringLiteral("payload")).toObject();
}

void respond(AgentRig &rig, const QString &id, bool granted, const QJsonObject &extra = {}) {
    QJsonObject p{{QStringLiteral("agentId"), rig.agentId},
                  {QStringLiteral("permissionId"), id},
                  {QStringLiteral("granted"), granted}};
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
        p.insert(it.key(), it.value());
    rig.ws->sendJson({{QStringLiteral("type"), QStringLiteral("permission_response")},
                      {QStringLiteral("payload"), p}});
}

// Scripts `command` and a closing text, sends a message (to agent-1 unless `agentId`).
bool runCommand(AgentRig &rig, const QString &command, const QString &agentId = {}) {
    rig.model().queueCommand(command);
    rig.model().queueText(QStringLiteral("done"));
    return rig.send(QStringLiteral("run it"), agentId).status == 200;
}

QJsonArray getArray(AgentRig &rig, const QString &path, const char *key) {
    return rig.http.get(rig.svc->url(path)).object().value(QLatin1String(key)).toArray();
}

QJsonObject lastRequest(AgentRig &rig) {
    return payloadOf(rig.ws->last(QStringLiteral("permission_request")));
}

QString commandOf(const QJsonObject &decision) {
    return str(decision.value(QStringLiteral("toolInput")).toObject(), "command");
}

QJsonObject postRule(AgentRig &rig, const QJsonObject &body, int expected = 201) {
    const HttpResponse r = rig.post(QStringLiteral("/api/permission-rules"), body);
    if (r.status != expected)
        qWarning().noquote() << "POST /api/permission-rules" << r.status << r.body;
    return r.status == expected ? r.object() : QJsonObject();
}
} // namespace

class TestPermissionRulesE2e final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rememberAnswersTheNextOneByItself_data() { addProviderRows(); }
    void rememberAnswersTheNextOneByItself() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        QVERIFY(runCommand(rig, QStringLiteral("touch once.txt")));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        const QJsonObject req = payloadOf(rig.ws->last(QStringLiteral("permission_request")));
        respond(rig, str(req, "id"), true, {{QStringLiteral("remember"), QStringLiteral("agent")}});
        QVERIFY(rig.waitTurns(1, 60000));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/once.txt")));

        // The rule, stored and announced.
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_rules_update"), 1, 5000));
        const QJsonArray rules = getArray(rig, QStringLiteral("/api/permission-rules"), "rules");
        QCOMPARE(rules.size(), 1);
        const QJsonObject rule = rules.first().toObject();
        QCOMPARE(str(rule, "tool"), rig.model().commandTool());
        QCOMPARE(str(rule, "pattern"), QStringLiteral("touch once.txt"));
        QCOMPARE(str(rule, "decision"), QStringLiteral("allow"));
        QCOMPARE(str(rule, "source"), QStringLiteral("remember"));
        QCOMPARE(str(rule.value(QStringLiteral("scope")).toObject(), "agentId"), rig.agentId);

        // The same command again: no question, it runs.
        QVERIFY(QFile::remove(rig.cwd + QStringLiteral("/once.txt")));
        QVERIFY(runCommand(rig, QStringLiteral("touch once.txt")));
        QVERIFY(rig.waitTurns(2, 60000));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/once.txt")));
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), 1);

        // The log: newest first, the rule's answer then the user's.
        const QJsonArray log =
            getArray(rig, QStringLiteral("/api/permission-decisions"), "decisions");
        QCOMPARE(log.size(), 2);
        QCOMPARE(str(log.at(0).toObject(), "by"), QStringLiteral("rule"));
        QCOMPARE(str(log.at(0).toObject(), "ruleId"), str(rule, "id"));
        QCOMPARE(str(log.at(0).toObject(), "decision"), QStringLiteral("allow"));
        QCOMPARE(str(log.at(1).toObject(), "by"), QStringLiteral("client"));
        QCOMPARE(str(log.at(1).toObject(), "ruleId"), str(rule, "id"));
        QCOMPARE(str(log.at(1).toObject(), "agentName"), QStringLiteral("agent-1"));
        QVERIFY(str(log.at(1).toObject().value(QStringLiteral("toolInput")).toObject(), "command")
                    .contains(QStringLiteral("touch once.txt")));
    }

    // A remember for the project or everywhere stores a rule of that scope: another agent in the
    // same working directory runs the command unasked, and one elsewhere is asked again unless
    // the rule is global.
    void rememberProjectOrGlobalScopesTheRule_data() {
        QTest::addColumn<QString>("provider");
        QTest::addColumn<QString>("remember");
        for (const QString &p : agentProviders()) {
            QTest::addRow("%s project", qPrintable(p)) << p << QStringLiteral("project");
            QTest::addRow("%s global", qPrintable(p)) << p << QStringLiteral("global");
        }
    }
    void rememberProjectOrGlobalScopesTheRule() {
        QFETCH(QString, provider);
        QFETCH(QString, remember);
        const bool global = remember == QLatin1String("global");
        AgentRig rig(provider);
        QVERIFY(rig.start());
        QVERIFY(runCommand(rig, QStringLiteral("touch once.txt")));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        respond(rig, str(lastRequest(rig), "id"), true, {{QStringLiteral("remember"), remember}});
        QVERIFY(rig.waitTurns(1, 60000));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/once.txt")));

        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_rules_update"), 1, 5000));
        const QJsonArray rules = getArray(rig, QStringLiteral("/api/permission-rules"), "rules");
        QCOMPARE(rules.size(), 1);
        const QJsonObject rule = rules.first().toObject();
        QCOMPARE(str(rule, "tool"), rig.model().commandTool());
        QCOMPARE(str(rule, "pattern"), QStringLiteral("touch once.txt"));
        QCOMPARE(str(rule, "decision"), QStringLiteral("allow"));
        QCOMPARE(str(rule, "source"), QStringLiteral("remember"));
        QVERIFY(rule.value(QStringLiteral("scope")).isObject());
        const QJsonObject scope = rule.value(QStringLiteral("scope")).toObject();
        if (global) {
            QCOMPARE(scope, QJsonObject());
        } else {
            QCOMPARE(scope.keys(), QStringList{QStringLiteral("cwd")});
            QCOMPARE(str(scope, "cwd"), str(rig.agent(), "cwd"));
            QCOMPARE(QFileInfo(str(scope, "cwd")).canonicalFilePath(),
                     QFileInfo(rig.cwd).canonicalFilePath());
        }

        // Another agent in the same working directory: the rule answers, nobody is asked.
        QVERIFY(QFile::remove(rig.cwd + QStringLiteral("/once.txt")));
        const HttpResponse sibling = rig.createAgent(QStringLiteral("agent-2"));
        QCOMPARE(sibling.status, 201);
        const QString siblingId = str(sibling.object(), "id");
        QVERIFY(runCommand(rig, QStringLiteral("touch once.txt"), siblingId));
        QVERIFY(rig.waitTurns(1, 60000, siblingId));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/once.txt")));
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), 1);
        const QJsonArray siblingLog = getArray(
            rig, QStringLiteral("/api/permission-decisions?agentId=") + siblingId, "decisions");
        QCOMPARE(siblingLog.size(), 1);
        QCOMPARE(str(siblingLog.first().toObject(), "by"), QStringLiteral("rule"));
        QCOMPARE(str(siblingLog.first().toObject(), "ruleId"), str(rule, "id"));

        // An agent in another directory: covered by a global rule only.
        const QString elsewhere = rig.svc->workDir() + QStringLiteral("/elsewhere");
        QVERIFY(QDir().mkpath(elsewhere));
        const HttpResponse stranger =
            rig.createAgent(QStringLiteral("agent-3"), {{QStringLiteral("cwd"), elsewhere}});
        QCOMPARE(stranger.status, 201);
        const QString strangerId = str(stranger.object(), "id");
        QVERIFY(runCommand(rig, QStringLiteral("touch once.txt"), strangerId));
        if (!global) {
            QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 2, 60000));
            const QJsonObject req = lastRequest(rig);
            QCOMPARE(str(req, "agentId"), strangerId);
            respond(rig, str(req, "id"), true, {{QStringLiteral("agentId"), strangerId}});
        }
        QVERIFY(rig.waitTurns(1, 60000, strangerId));
        QVERIFY(QFile::exists(elsewhere + QStringLiteral("/once.txt")));
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), global ? 1 : 2);
        const QJsonArray strangerLog = getArray(
            rig, QStringLiteral("/api/permission-decisions?agentId=") + strangerId, "decisions");
        QCOMPARE(strangerLog.size(), 1);
        QCOMPARE(str(strangerLog.first().toObject(), "by"),
                 global ? QStringLiteral("rule") : QStringLiteral("client"));
        QCOMPARE(getArray(rig, QStringLiteral("/api/permission-rules"), "rules").size(), 1);
    }

    void denyRuleRefusesWithoutAsking_data() {
        QTest::addColumn<QString>("provider");
        QTest::addColumn<QString>("mode");
        for (const QString &p : agentProviders()) {
            QTest::addRow("%s ask", qPrintable(p)) << p << QStringLiteral("ask");
            QTest::addRow("%s auto", qPrintable(p)) << p << QStringLiteral("auto");
        }
    }
    void denyRuleRefusesWithoutAsking() {
        QFETCH(QString, provider);
        QFETCH(QString, mode);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        const HttpResponse created =
            rig.createAgent(QStringLiteral("agent-2"), {{QStringLiteral("permissionMode"), mode}});
        QCOMPARE(created.status, 201);
        const QString id = str(created.object(), "id");
        // A Bash rule covers Codex's command executions too; scoped to the project.
        const QJsonObject rule = postRule(
            rig, {{QStringLiteral("tool"), QStringLiteral("Bash")},
                  {QStringLiteral("pattern"), QStringLiteral("touch")},
                  {QStringLiteral("decision"), QStringLiteral("deny")},
                  {QStringLiteral("scope"), QJsonObject{{QStringLiteral("cwd"), rig.cwd}}}});
        QVERIFY(!rule.isEmpty());
        QVERIFY(runCommand(rig, QStringLiteral("touch denied.txt"), id));
        QVERIFY(rig.waitTurns(1, 60000, id));
        QVERIFY(!QFile::exists(rig.cwd + QStringLiteral("/denied.txt")));
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), 0);
        const QJsonArray log =
            getArray(rig, QStringLiteral("/api/permission-decisions?agentId=") + id, "decisions");
        QVERIFY(!log.isEmpty());
        QCOMPARE(str(log.at(0).toObject(), "by"), QStringLiteral("rule"));
        QCOMPARE(str(log.at(0).toObject(), "decision"), QStringLiteral("deny"));
        QCOMPARE(str(log.at(0).toObject(), "ruleId"), str(rule, "id"));
    }

    // The inbox lists what waits; a rule added meanwhile answers it.
    void newRuleAnswersPendingRequests_data() { addProviderRows(); }
    void newRuleAnswersPendingRequests() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        QVERIFY(runCommand(rig, QStringLiteral("touch later.txt")));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        const QJsonArray pending =
            getArray(rig, QStringLiteral("/api/permission-requests"), "requests");
        QCOMPARE(pending.size(), 1);
        QCOMPARE(str(pending.first().toObject(), "agentId"), rig.agentId);
        QVERIFY(!postRule(rig, {{QStringLiteral("tool"), QStringLiteral("Bash")},
                                {QStringLiteral("pattern"), QStringLiteral("touch later.txt")},
                                {QStringLiteral("decision"), QStringLiteral("allow")}})
                     .isEmpty());
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved"), 1, 5000));
        QCOMPARE(payloadOf(rig.ws->last(QStringLiteral("permission_resolved")))
                     .value(QStringLiteral("granted"))
                     .toBool(),
                 true);
        QVERIFY(rig.waitTurns(1, 60000));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/later.txt")));
        QCOMPARE(getArray(rig, QStringLiteral("/api/permission-requests"), "requests").size(), 0);
    }

    // A remember that no rule could honour is refused; the request stays pending and is then
    // answered plainly. A stop's denial is logged as such.
    void rememberRefusalKeepsTheRequest() {
        AgentRig rig;
        QVERIFY(rig.start());
        QVERIFY(runCommand(rig, QStringLiteral("touch a.txt && touch b.txt")));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        const QString id = str(payloadOf(rig.ws->last(QStringLiteral("permission_request"))), "id");
        respond(rig, id, true, {{QStringLiteral("remember"), QStringLiteral("global")}});
        QVERIFY(rig.ws->waitFor(QStringLiteral("error"), 1, 5000));
        QVERIFY(str(payloadOf(rig.ws->last(QStringLiteral("error"))), "message")
                    .contains(QStringLiteral("shell control")));
        QCOMPARE(getArray(rig, QStringLiteral("/api/permission-requests"), "requests").size(), 1);
        QCOMPARE(getArray(rig, QStringLiteral("/api/permission-rules"), "rules").size(), 0);
        respond(rig, id, true, {{QStringLiteral("remember"), 7}});
        QVERIFY(rig.ws->waitFor(QStringLiteral("error"), 2, 5000));
        QCOMPARE(str(payloadOf(rig.ws->last(QStringLiteral("error"))), "code"),
                 QStringLiteral("wrong_type"));
        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/stop"),
                          {{QStringLiteral("agentIds"), QJsonArray{rig.agentId}}})
                     .status,
                 200);
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved"), 1, 5000));
        const QJsonArray log =
            getArray(rig, QStringLiteral("/api/permission-decisions"), "decisions");
        QCOMPARE(log.size(), 1);
        QCOMPARE(str(log.first().toObject(), "by"), QStringLiteral("stop"));
        QCOMPARE(str(log.first().toObject(), "decision"), QStringLiteral("deny"));
    }

    // A request nobody answers is denied at the deadline and logged as the deadline's.
    void unansweredIsLoggedAsTimeout_data() { addProviderRows(); }
    void unansweredIsLoggedAsTimeout() {
        QFETCH(QString, provider);
        AgentRig rig(provider, [](ServerConfig &c) { c.permissionTimeoutMs = 1500; });
        QVERIFY(rig.start());
        QVERIFY(runCommand(rig, QStringLiteral("touch late.txt")));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        const QJsonObject req = lastRequest(rig);
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_resolved"), 1, 10000));
        QCOMPARE(str(payloadOf(rig.ws->last(QStringLiteral("permission_resolved"))), "id"),
                 str(req, "id"));
        QVERIFY(rig.waitTurns(1, 60000));
        QVERIFY(!QFile::exists(rig.cwd + QStringLiteral("/late.txt")));
        const QJsonArray log = getArray(
            rig, QStringLiteral("/api/permission-decisions?agentId=") + rig.agentId, "decisions");
        QCOMPARE(log.size(), 1);
        const QJsonObject entry = log.first().toObject();
        QCOMPARE(str(entry, "by"), QStringLiteral("timeout"));
        QCOMPARE(str(entry, "decision"), QStringLiteral("deny"));
        QCOMPARE(str(entry, "agentId"), rig.agentId);
        QCOMPARE(str(entry, "agentName"), QStringLiteral("agent-1"));
        QCOMPARE(str(entry, "tool"), str(req, "tool"));
        QVERIFY(!entry.contains(QStringLiteral("ruleId")));
        QVERIFY2(commandOf(entry).contains(QStringLiteral("touch late.txt")),
                 qPrintable(commandOf(entry)));
    }

    // The log is in the database: a restart keeps it as it was; `limit` gives exactly the
    // newest entries, `agentId` only that agent's.
    void decisionLogSurvivesARestartAndPages() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QStringList files{QStringLiteral("one.txt"), QStringLiteral("two.txt"),
                                QStringLiteral("three.txt")};
        for (const QString &f : files)
            rig.model().queueCommand(QStringLiteral("touch ") + f);
        rig.model().queueText(QStringLiteral("done"));
        QCOMPARE(rig.send(QStringLiteral("make three files")).status, 200);
        for (int i = 0; i < files.size(); ++i) {
            QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), i + 1, 60000));
            const QJsonObject req = lastRequest(rig);
            QVERIFY2(commandOf(req).contains(files.at(i)), qPrintable(commandOf(req)));
            respond(rig, str(req, "id"), i != 1); // the second one is refused
        }
        QVERIFY(rig.waitTurns(1, 60000));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/one.txt")));
        QVERIFY(!QFile::exists(rig.cwd + QStringLiteral("/two.txt")));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/three.txt")));

        const QString path = QStringLiteral("/api/permission-decisions");
        const QJsonArray log = getArray(rig, path, "decisions");
        QCOMPARE(log.size(), 3);
        const QStringList expected{QStringLiteral("allow"), QStringLiteral("deny"),
                                   QStringLiteral("allow")};
        for (int i = 0; i < 3; ++i) { // newest first
            const QJsonObject e = log.at(i).toObject();
            QVERIFY2(commandOf(e).contains(files.at(2 - i)), qPrintable(commandOf(e)));
            QCOMPARE(str(e, "decision"), expected.at(2 - i));
            QCOMPARE(str(e, "by"), QStringLiteral("client"));
        }

        QVERIFY(rig.restartService());
        QCOMPARE(getArray(rig, path, "decisions"), log);
        QCOMPARE(getArray(rig, path + QStringLiteral("?limit=2"), "decisions"),
                 (QJsonArray{log.at(0), log.at(1)}));
        QCOMPARE(
            getArray(rig, path + QStringLiteral("?limit=1&agentId=") + rig.agentId, "decisions"),
            QJsonArray{log.at(0)});
        QCOMPARE(getArray(rig, path + QStringLiteral("?limit=1000"), "decisions"), log);
        const HttpResponse other = rig.createAgent(QStringLiteral("agent-2"));
        QCOMPARE(other.status, 201);
        QCOMPARE(getArray(rig, path + QStringLiteral("?agentId=") + str(other.object(), "id"),
                          "decisions")
                     .size(),
                 0);
    }

    // Secret values and the service's token are masked in the logged toolInput; the command
    // itself ran with them.
    void decisionLogMasksSecrets_data() { addProviderRows(); }
    void decisionLogMasksSecrets() {
        QFETCH(QString, provider);
        const QByteArray token = "svc-token-log-8841";
        AgentRig rig(provider, [token](ServerConfig &c) { c.authToken = token; });
        QVERIFY(rig.start());
        const QString secret = QStringLiteral("hunter2-log-secret");
        QCOMPARE(rig.http
                     .send("PUT", rig.svc->url(QStringLiteral("/api/secrets/LOG_SECRET")),
                           QJsonDocument(QJsonObject{{QStringLiteral("value"), secret}})
                               .toJson(QJsonDocument::Compact))
                     .status,
                 201);
        const QString command =
            QStringLiteral("touch %1.txt %2.txt").arg(secret, QString::fromLatin1(token));
        QVERIFY(runCommand(rig, command));
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        respond(rig, str(lastRequest(rig), "id"), true);
        QVERIFY(rig.waitTurns(1, 60000));
        QVERIFY(QFile::exists(rig.cwd + QLatin1Char('/') + secret + QStringLiteral(".txt")));
        QVERIFY(QFile::exists(rig.cwd + QLatin1Char('/') + QString::fromLatin1(token) +
                              QStringLiteral(".txt")));

        const QJsonArray log =
            getArray(rig, QStringLiteral("/api/permission-decisions"), "decisions");
        QCOMPARE(log.size(), 1);
        const QByteArray logged = QJsonDocument(log).toJson(QJsonDocument::Compact);
        QVERIFY2(!logged.contains(secret.toUtf8()), logged.constData());
        QVERIFY2(!logged.contains(token), logged.constData());
        QVERIFY2(
            commandOf(log.first().toObject()).contains(QStringLiteral("touch ***.txt ***.txt")),
            logged.constData());
    }

    void rulesSurviveARestartAndAgentsDeletion() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QJsonObject global =
            postRule(rig, {{QStringLiteral("tool"), QStringLiteral("Read")},
                           {QStringLiteral("decision"), QStringLiteral("allow")}});
        QVERIFY(!global.isEmpty());
        QCOMPARE(str(global, "pattern"), QString());
        QVERIFY(!postRule(rig, {{QStringLiteral("tool"), QStringLiteral("Write")},
                                {QStringLiteral("decision"), QStringLiteral("deny")},
                                {QStringLiteral("scope"),
                                 QJsonObject{{QStringLiteral("agentId"), rig.agentId}}}})
                     .isEmpty());
        QVERIFY(rig.restartService());
        QCOMPARE(getArray(rig, QStringLiteral("/api/permission-rules"), "rules").size(), 2);
        // A rule scoped to an agent goes with the agent.
        QCOMPARE(rig.http.del(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId)).status,
                 204);
        const QJsonArray left = getArray(rig, QStringLiteral("/api/permission-rules"), "rules");
        QCOMPARE(left.size(), 1);
        QCOMPARE(str(left.first().toObject(), "id"), str(global, "id"));
        QCOMPARE(
            rig.http.del(rig.svc->url(QStringLiteral("/api/permission-rules/") + str(global, "id")))
                .status,
            204);
        QCOMPARE(getArray(rig, QStringLiteral("/api/permission-rules"), "rules").size(), 0);
    }

    void routeRefusals_data() {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QString rules = QStringLiteral("/api/permission-rules");
        QTest::newRow("no decision")
            << QStringLiteral("POST") << rules
            << QJsonObject{{QStringLiteral("tool"), QStringLiteral("Bash")}} << 400
            << QStringLiteral("missing_field");
        QTest::newRow("bad decision")
            << QStringLiteral("POST") << rules
            << QJsonObject{{QStringLiteral("tool"), QStringLiteral("Bash")},
                           {QStringLiteral("decision"), QStringLiteral("yes")}}
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("unknown agent scope")
            << QStringLiteral("POST") << rules
            << QJsonObject{{QStringLiteral("tool"), QStringLiteral("Bash")},
                           {QStringLiteral("decision"), QStringLiteral("allow")},
                           {QStringLiteral("scope"),
                            QJsonObject{{QStringLiteral("agentId"), QStringLiteral("nope")}}}}
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("shell control pattern")
            << QStringLiteral("POST") << rules
            << QJsonObject{{QStringLiteral("tool"), QStringLiteral("Bash")},
                           {QStringLiteral("pattern"), QStringLiteral("make | sh")},
                           {QStringLiteral("decision"), QStringLiteral("allow")}}
            << 422 << QStringLiteral("invalid_value");
        QTest::newRow("delete unknown")
            << QStringLiteral("DELETE") << rules + QStringLiteral("/nope") << QJsonObject() << 404
            << QStringLiteral("not_found");
        QTest::newRow("limit 0") << QStringLiteral("GET")
                                 << QStringLiteral("/api/permission-decisions?limit=0")
                                 << QJsonObject() << 422 << QStringLiteral("invalid_value");
        QTest::newRow("limit not a number")
            << QStringLiteral("GET") << QStringLiteral("/api/permission-decisions?limit=x")
            << QJsonObject() << 400 << QStringLiteral("wrong_type");
    }
    void routeRefusals() {
        QFETCH(QString, method);
        QFETCH(QString, path);
        QFETCH(QJsonObject, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        AgentRig rig;
        QVERIFY(rig.start());
        const QUrl url = rig.svc->url(path);
        const HttpResponse r = method == QLatin1String("POST")     ? rig.http.post(url, body)
                               : method == QLatin1String("DELETE") ? rig.http.del(url)
                                                                   : rig.http.get(url);
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
        QCOMPARE(getArray(rig, QStringLiteral("/api/permission-rules"), "rules").size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestPermissionRulesE2e)
#include "tst_permission_rules_e2e.moc"
