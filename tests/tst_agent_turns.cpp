// Agent turns end to end: REST + WebSocket in, the real CLI, the scripted model out. What every
// provider does runs for both (the `claude` CLI against MockAnthropic, `codex app-server` against
// MockOpenAI). Run once: the history of a Claude session file (tst_codex_agents reads Codex's
// rollout files) and the service's refusals before any CLI runs (bad bodies, a deleted cwd).

#include "agents/AgentRuntime.h"
#include "support/AgentRig.h"

#include <QFile>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}
} // namespace

class TestAgentTurns final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void textTurnStreamsDeltas_data() { addProviderRows(); }
    void textTurnStreamsDeltas() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        // The context in use is what the model read: Anthropic's input_tokens leave out the cache
        // (the service adds cache reads and creations), OpenAI's include the cached tokens.
        if (rig.isCodex())
            rig.openai.setUsage(1500, 30, 300);
        else
            rig.mock.setUsage(1200, 30, 300, 0);
        rig.model().queueText(QStringLiteral("Hello from the scripted model"), 5);
        const HttpResponse r = rig.send(QStringLiteral("please say hello"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("success")).toBool(), true);
        QCOMPARE(str(r.object(), "agentId"), rig.agentId);
        QCOMPARE(str(r.object(), "agentName"), QStringLiteral("agent-1"));
        QVERIFY(rig.waitTurns(1));

        const QList<QJsonObject> chunks = rig.chunks();
        QVERIFY2(chunks.size() >= 6,
                 qPrintable(QString::number(chunks.size()))); // 5 deltas + final
        for (int i = 0; i + 1 < chunks.size(); ++i)
            QCOMPARE(chunks[i].value(QStringLiteral("isStreaming")).toBool(), true);
        QCOMPARE(chunks.constLast().value(QStringLiteral("isStreaming")).toBool(), false);
        QVERIFY(QString::number(chunks.constLast().value(QStringLiteral("timestamp")).toInteger())
                    .size() == 13);
        QCOMPARE(rig.streamedText(), QStringLiteral("Hello from the scripted model"));
        QVERIFY(rig.model().lastUserTextOf(0).endsWith(QStringLiteral("please say hello")));

        // idle -> working -> idle, broadcast as diffs.
        QStringList statuses;
        for (const QJsonObject &u : rig.updates())
            if (u.contains(QStringLiteral("status")))
                statuses << str(u, "status");
        QCOMPARE(statuses, QStringList({QStringLiteral("working"), QStringLiteral("idle")}));

        QVERIFY(rig.ws->waitFor(QStringLiteral("context_update")));
        const QJsonObject ctx = rig.ws->last(QStringLiteral("context_update"))
                                    .value(QStringLiteral("payload"))
                                    .toObject();
        QCOMPARE(str(ctx, "agentId"), rig.agentId);
        QCOMPARE(ctx.value(QStringLiteral("contextUsed")).toInteger(), 1500);
        QVERIFY(ctx.value(QStringLiteral("contextLimit")).toInteger() > 0);

        const QJsonObject a = rig.agent();
        QCOMPARE(str(a, "status"), QStringLiteral("idle"));
        QCOMPARE(a.value(QStringLiteral("taskCount")).toInt(), 1);
        QVERIFY(!str(a, "sessionId").isEmpty());
        QCOMPARE(a.value(QStringLiteral("contextUsed")).toInteger(), 1500);
        QVERIFY(a.value(QStringLiteral("tokensUsed")).toInteger() > 0);
        QCOMPARE(a.value(QStringLiteral("isProcessRunning")).toBool(), true);
        QCOMPARE(str(a, "currentTask"), QString());
    }

    void toolTurnReportsToolUseAndResult_data() { addProviderRows(); }
    void toolTurnReportsToolUseAndResult() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        const QString tool = rig.model().commandTool();
        const QString call = rig.model().queueCommand(QStringLiteral("echo flotilla-tool-ok"));
        rig.model().queueText(QStringLiteral("The command printed ok."));
        QCOMPARE(rig.send(QStringLiteral("run echo")).status, 200);
        if (rig.isCodex()) {
            // Codex in ask mode (approvalPolicy untrusted) asks even for a read-only `echo`;
            // Claude's own rules let it run unasked.
            QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
            const QJsonObject req = rig.ws->last(QStringLiteral("permission_request"))
                                        .value(QStringLiteral("payload"))
                                        .toObject();
            rig.ws->sendJson(
                QJsonObject{{QStringLiteral("type"), QStringLiteral("permission_response")},
                            {QStringLiteral("payload"),
                             QJsonObject{{QStringLiteral("agentId"), rig.agentId},
                                         {QStringLiteral("permissionId"), str(req, "id")},
                                         {QStringLiteral("granted"), true}}}});
        }
        QVERIFY(rig.waitTurns(1));
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), rig.isCodex() ? 1 : 0);

        QJsonObject use, result;
        for (const QJsonObject &c : rig.chunks()) {
            if (c.contains(QStringLiteral("toolInput")))
                use = c;
            if (c.contains(QStringLiteral("toolOutput")))
                result = c;
        }
        QCOMPARE(str(use, "toolName"), tool);
        const QString command = str(use.value(QStringLiteral("toolInput")).toObject(), "command");
        if (rig.isCodex()) // the command as Codex runs it, in a shell: /bin/bash -lc '...'
            QVERIFY2(command.contains(QStringLiteral("echo flotilla-tool-ok")),
                     qPrintable(command));
        else
            QCOMPARE(command, QStringLiteral("echo flotilla-tool-ok"));
        QCOMPARE(str(result, "toolName"), tool);
        QVERIFY2(str(result, "toolOutput").contains(QStringLiteral("flotilla-tool-ok")),
                 qPrintable(str(result, "toolOutput")));
        QVERIFY(rig.model().hasCommandResult(1, call));

        QStringList tools, tasks;
        for (const QJsonObject &u : rig.updates()) {
            if (u.contains(QStringLiteral("currentTool")))
                tools << str(u, "currentTool");
            if (u.contains(QStringLiteral("currentTask")))
                tasks << str(u, "currentTask");
        }
        QVERIFY2(tools.contains(tool), qPrintable(tools.join(QLatin1Char(','))));
        QVERIFY2(tasks.contains(QStringLiteral("run echo")),
                 qPrintable(tasks.join(QLatin1Char(','))));
        QCOMPARE(str(rig.agent(), "currentTool"), QString());
        QCOMPARE(str(rig.agent(), "currentTask"), QString());

        const QJsonArray history =
            rig.http.get(rig.svc->url(QStringLiteral("/api/agents/tool-history")))
                .object()
                .value(QStringLiteral("toolExecutions"))
                .toArray();
        QCOMPARE(history.size(), 1);
        QCOMPARE(str(history[0].toObject(), "toolName"), tool);
        QCOMPARE(str(history[0].toObject(), "agentId"), rig.agentId);
        QCOMPARE(str(history[0].toObject(), "agentName"), QStringLiteral("agent-1"));

        // Tool history is persisted: it survives a restart of the service.
        QVERIFY(rig.restartService());
        QCOMPARE(rig.http.get(rig.svc->url(QStringLiteral("/api/agents/tool-history?limit=5")))
                     .object()
                     .value(QStringLiteral("toolExecutions"))
                     .toArray()
                     .size(),
                 1);
    }

    // Agents can call the service back (report-task): its address and their id are in the
    // environment of the CLI process (which its tools inherit).
    void agentsKnowHowToReachTheService_data() { addProviderRows(); }
    void agentsKnowHowToReachTheService() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("ok"));
        QCOMPARE(rig.send(QStringLiteral("hello")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const qint64 pid = rig.svc->app().runtime().processId(rig.agentId);
        QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
        QVERIFY(environ.open(QIODevice::ReadOnly));
        const QList<QByteArray> vars = environ.readAll().split('\0');
        QVERIFY(
            vars.contains("FLOTILLA_URL=http://127.0.0.1:" + QByteArray::number(rig.svc->port())));
        QVERIFY(vars.contains("FLOTILLA_AGENT_ID=" + rig.agentId.toUtf8()));
    }

    // The session file the CLI writes during real turns is what history, search and sessions read.
    // Claude only: Codex's rollout files have their own test (tst_codex_agents'
    // historyReadsTheRollout), whose tool entries carry the model's own function call
    // (exec_command {cmd}) rather than a Bash tool_use.
    void historyOfTheConversationJustHad() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueToolUse(QStringLiteral("Bash"),
                              {{QStringLiteral("command"), QStringLiteral("echo history-probe-ok")},
                               {QStringLiteral("description"), QStringLiteral("probe")}});
        rig.mock.queueText(QStringLiteral("It printed history-probe-ok."));
        rig.mock.queueText(QStringLiteral("Second answer."));
        QCOMPARE(rig.send(QStringLiteral("please run the probe")).status, 200);
        QCOMPARE(rig.send(QStringLiteral("and then say more")).status, 200);
        QVERIFY(rig.waitTurns(2));
        const QString base = QStringLiteral("/api/agents/%1/").arg(rig.agentId);

        const QJsonObject page =
            rig.http.get(rig.svc->url(base + QStringLiteral("history?limit=50"))).object();
        QCOMPARE(str(page, "sessionId"), str(rig.agent(), "sessionId"));
        QStringList types;
        for (const QJsonValue &v : page.value(QStringLiteral("messages")).toArray())
            types << str(v.toObject(), "type");
        QCOMPARE(types, QStringList({QStringLiteral("user"), QStringLiteral("tool_use"),
                                     QStringLiteral("tool_result"), QStringLiteral("assistant"),
                                     QStringLiteral("user"), QStringLiteral("assistant")}));
        QCOMPARE(page.value(QStringLiteral("totalCount")).toInt(), 6);
        const QJsonArray messages = page.value(QStringLiteral("messages")).toArray();
        QVERIFY(str(messages[0].toObject(), "content")
                    .endsWith(QStringLiteral("please run the probe")));
        QCOMPARE(str(messages[1].toObject(), "toolName"), QStringLiteral("Bash"));
        QVERIFY(
            str(messages[2].toObject(), "content").contains(QStringLiteral("history-probe-ok")));

        // offset counts back from the newest entry; a page is oldest first.
        const QJsonObject older =
            rig.http.get(rig.svc->url(base + QStringLiteral("history?limit=2&offset=2"))).object();
        QCOMPARE(str(older.value(QStringLiteral("messages")).toArray()[0].toObject(), "type"),
                 QStringLiteral("tool_result"));
        QCOMPARE(older.value(QStringLiteral("hasMore")).toBool(), true);

        const QJsonObject found =
            rig.http.get(rig.svc->url(base + QStringLiteral("search?q=HISTORY-PROBE"))).object();
        QVERIFY(found.value(QStringLiteral("totalMatches")).toInt() >= 2);
        QVERIFY(found.value(QStringLiteral("scannedBytes")).toInteger() > 0);

        const QJsonObject sessions =
            rig.http.get(rig.svc->url(base + QStringLiteral("sessions"))).object();
        QCOMPARE(sessions.value(QStringLiteral("sessions")).toArray().size(), 1);
        QCOMPARE(str(sessions, "currentSessionId"), str(rig.agent(), "sessionId"));
    }

    void messagesArrivingMidTurnAreQueuedInOrder_data() { addProviderRows(); }
    void messagesArrivingMidTurnAreQueuedInOrder() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("first answer, slowly"), 10, 150); // 1.5 s
        rig.model().queueText(QStringLiteral("second answer"));
        rig.model().queueText(QStringLiteral("third answer"));
        QVERIFY(rig.send(QStringLiteral("message one"))
                    .object()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("sent")));
        QVERIFY(rig.send(QStringLiteral("message two"))
                    .object()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("position 1")));
        QVERIFY(rig.send(QStringLiteral("message three"))
                    .object()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("position 2")));
        QVERIFY(rig.waitTurns(3, 60000));
        QCOMPARE(rig.model().requestCount(), 3);
        QVERIFY(rig.model().lastUserTextOf(0).endsWith(QStringLiteral("message one")));
        QVERIFY(rig.model().lastUserTextOf(1).endsWith(QStringLiteral("message two")));
        QVERIFY(rig.model().lastUserTextOf(2).endsWith(QStringLiteral("message three")));
        QCOMPARE(rig.streamedText(),
                 QStringLiteral("first answer, slowlysecond answerthird answer"));
        QCOMPARE(rig.agent().value(QStringLiteral("taskCount")).toInt(), 3);
    }

    void modelApiFailureThenRecovery_data() { addProviderRows(); }
    void modelApiFailureThenRecovery() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueFailingTurn(QStringLiteral("scripted failure 42"));
        QCOMPARE(rig.send(QStringLiteral("this will fail")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QJsonObject last = rig.chunks().constLast();
        QVERIFY2(str(last, "text").startsWith(QStringLiteral("Error: ")),
                 qPrintable(str(last, "text")));
        QVERIFY(rig.waitStatus(QStringLiteral("error")));
        QVERIFY2(str(rig.agent(), "lastError").contains(QStringLiteral("scripted failure 42")),
                 qPrintable(str(rig.agent(), "lastError")));

        rig.model().clearQueue();
        rig.model().queueText(QStringLiteral("all good again"));
        QCOMPARE(rig.send(QStringLiteral("try again")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QVERIFY(rig.agent().value(QStringLiteral("lastError")).isNull());
    }

    // Under congestion deltas are merged (bounded in time and size), the text is intact and the
    // turn still ends with its final chunk.
    void congestedClientsGetCoalescedDeltas_data() { addProviderRows(); }
    void congestedClientsGetCoalescedDeltas() {
        QFETCH(QString, provider);
        AgentRig rig(provider,
                     [](ServerConfig &c) { c.coalesceAboveBacklogBytes = 0; }); // always congested
        QVERIFY(rig.start());
        QString text;
        for (int i = 0; i < 60; ++i)
            text += QStringLiteral("word%1 ").arg(i);
        rig.model().queueText(text, 60, 5); // 60 deltas, 5 ms apart
        QCOMPARE(rig.send(QStringLiteral("stream a lot")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QList<QJsonObject> chunks = rig.chunks();
        QCOMPARE(rig.streamedText(), text);
        QCOMPARE(chunks.constLast().value(QStringLiteral("isStreaming")).toBool(), false);
        QVERIFY2(chunks.size() - 1 < 60 && chunks.size() - 1 >= 2,
                 qPrintable(QString::number(chunks.size())));
    }

    void messageRefusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("missing") << QByteArray("{}") << 400 << "missing_field";
        QTest::newRow("not string") << QByteArray("{\"message\":42}") << 400 << "wrong_type";
        QTest::newRow("empty") << QByteArray("{\"message\":\"  \"}") << 400 << "invalid_value";
        QTest::newRow("not json") << QByteArray("hello") << 400 << "bad_json";
    }

    void messageRefusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        AgentRig rig;
        QVERIFY(rig.start());
        const HttpResponse r = rig.http.send(
            "POST", rig.svc->url(QStringLiteral("/api/agents/%1/message").arg(rig.agentId)), body);
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
        QCOMPARE(rig.mock.requestCount(), 0);
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("idle"));
        QCOMPARE(rig.send(QStringLiteral("x"), QStringLiteral("no-such-agent")).status, 404);
    }

    void deletedWorkingDirectoryIsReported() {
        AgentRig rig;
        QVERIFY(rig.start());
        QVERIFY(QDir(rig.cwd).removeRecursively());
        const HttpResponse r = rig.send(QStringLiteral("anyone there?"));
        QCOMPARE(r.status, 422);
        QVERIFY(str(r.object(), "error").contains(rig.cwd));
        const QJsonObject a = rig.agent();
        QCOMPARE(str(a, "status"), QStringLiteral("error"));
        QVERIFY(str(a, "lastError").contains(QStringLiteral("no longer exists")));
        QCOMPARE(rig.mock.requestCount(), 0);
    }

    // Without a Codex CLI a Codex agent is refused, naming the fix; the Claude CLI never runs it.
    void codexAgentsAreNotRunByClaude() {
        AgentRig rig([](ServerConfig &c) { c.codexBin.clear(); });
        QVERIFY(rig.start());
        const HttpResponse created =
            rig.http.post(rig.svc->url(QStringLiteral("/api/agents")),
                          QJsonObject{{QStringLiteral("name"), QStringLiteral("codex-1")},
                                      {QStringLiteral("cwd"), rig.cwd},
                                      {QStringLiteral("provider"), QStringLiteral("codex")}});
        QCOMPARE(created.status, 201);
        const QString id = str(created.object(), "id");
        const HttpResponse r = rig.send(QStringLiteral("hello"), id);
        QCOMPARE(r.status, 503);
        QCOMPARE(str(r.object(), "code"), QStringLiteral("cli_unavailable"));
        QVERIFY2(str(r.object(), "error").contains(QStringLiteral("--codex-bin")),
                 r.body.constData());
        QCOMPARE(str(rig.agent(id), "status"), QStringLiteral("error"));
        QCOMPARE(rig.mock.requestCount(), 0);
    }

    void missingCliIsReported_data() { addProviderRows(); }
    void missingCliIsReported() {
        QFETCH(QString, provider);
        AgentRig rig(provider, [](ServerConfig &c) {
            c.claudeBin = QStringLiteral("/nonexistent/claude");
            c.codexBin = QStringLiteral("/nonexistent/codex");
        });
        QVERIFY(rig.start());
        const HttpResponse r = rig.send(QStringLiteral("hello?"));
        QCOMPARE(r.status, 503);
        QCOMPARE(str(r.object(), "code"), QStringLiteral("cli_unavailable"));
        QVERIFY2(str(r.object(), "error").contains(QStringLiteral("/nonexistent/") + provider),
                 r.body.constData());
        // It names the fix, as when no CLI was found at all.
        QVERIFY2(str(r.object(), "error").contains(QStringLiteral("--%1-bin").arg(provider)),
                 r.body.constData());
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("error"));
        QVERIFY(str(rig.agent(), "lastError").contains(QStringLiteral("/nonexistent/") + provider));
        QCOMPARE(rig.model().requestCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestAgentTurns)
#include "tst_agent_turns.moc"
