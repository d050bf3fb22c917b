// Codex agents through the service, the real `codex` CLI (app-server) against the scripted
// Responses API mock: the same REST and WebSocket contract as Claude agents. Messages stream as
// output chunks and end in one final chunk, token usage becomes context_update, command
// executions are tool chunks, `ask` agents' approvals are the same permission_request flow,
// stop interrupts the turn, and a restarted service resumes the thread.

#include "agents/AgentRuntime.h"
#include "support/AgentRig.h"
#include "support/MockOpenAI.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

QJsonObject payload(const QJsonObject &message) {
    return message.value(QLatin1String("payload")).toObject();
}

} // namespace

class TestCodexAgents : public QObject {
    Q_OBJECT

    MockOpenAI *m_openai = nullptr;
    std::unique_ptr<AgentRig> m_rig;
    QString m_id;
    QString m_codexHome;

    // The service with the Codex CLI pointed at the mock; one Codex agent in `mode`.
    bool start(const QString &mode = QStringLiteral("auto"),
               const std::function<void(ServerConfig &)> &tweak = {},
               const QString &model = QStringLiteral("gpt-mock")) {
        m_rig = std::make_unique<AgentRig>([this, tweak](ServerConfig &c) {
            const QString home = c.agentEnvironment.value(QStringLiteral("HOME"));
            c.agentEnvironment = m_openai->codexEnvironment(home);
            c.codexBin = MockOpenAI::codexBinary();
            c.codexHome = home + QStringLiteral("/.codex");
            m_codexHome = c.codexHome;
            if (tweak)
                tweak(c);
        });
        if (!m_rig->start())
            return false;
        const HttpResponse r = m_rig->post(QStringLiteral("/api/agents"),
                                           {{QStringLiteral("name"), QStringLiteral("codex-1")},
                                            {QStringLiteral("cwd"), m_rig->cwd},
                                            {QStringLiteral("provider"), QStringLiteral("codex")},
                                            {QStringLiteral("model"), model},
                                            {QStringLiteral("permissionMode"), mode}});
        m_id = str(r.object(), "id");
        return r.status == 201;
    }

private Q_SLOTS:
    void init() {
        m_openai = new MockOpenAI(this);
        QVERIFY(m_openai->start());
    }
    void cleanup() {
        m_rig.reset();
        delete m_openai;
        m_openai = nullptr;
    }

    void textTurnStreams() {
        QVERIFY(start());
        QCOMPARE(str(m_rig->agent(m_id), "provider"), QStringLiteral("codex"));
        m_openai->setUsage(1200, 40, 200);
        m_openai->queueText(QStringLiteral("Hello from Codex, streamed."), 4);
        QCOMPARE(m_rig->send(QStringLiteral("say hello"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));

        const QList<QJsonObject> chunks = m_rig->chunks(m_id);
        int deltas = 0;
        QString streamed;
        for (const QJsonObject &c : chunks) {
            if (c.value(QLatin1String("isStreaming")).toBool()) {
                ++deltas;
                streamed += str(c, "text");
            }
        }
        QVERIFY2(deltas >= 2, qPrintable(QString::number(deltas))); // token streaming
        QVERIFY2(streamed.contains(QStringLiteral("Hello from Codex, streamed.")),
                 qPrintable(streamed));
        QVERIFY(!chunks.constLast().value(QLatin1String("isStreaming")).toBool());
        QCOMPARE(m_openai->lastUserTextOf(0), QStringLiteral("say hello"));

        QVERIFY(m_rig->waitStatus(QStringLiteral("idle"), 10000, m_id));
        const QJsonObject a = m_rig->agent(m_id);
        QVERIFY(!str(a, "sessionId").isEmpty()); // the thread id, for resume
        QCOMPARE(a.value(QLatin1String("contextUsed")).toInteger(), 1200);
        QVERIFY(a.value(QLatin1String("tokensUsed")).toInteger() >= 1240);
        QVERIFY(a.value(QLatin1String("isProcessRunning")).toBool());
        bool contextUpdate = false;
        for (const QJsonObject &m : m_rig->ws->ofType(QStringLiteral("context_update")))
            contextUpdate = contextUpdate ||
                            (str(payload(m), "agentId") == m_id &&
                             payload(m).value(QLatin1String("contextUsed")).toInteger() == 1200);
        QVERIFY(contextUpdate);
    }

    void commandsAreToolChunks() {
        QVERIFY(start());
        const QString file = m_rig->cwd + QStringLiteral("/made-by-codex.txt");
        const QString call = m_openai->queueFunctionCall(
            QStringLiteral("exec_command"),
            {{QStringLiteral("cmd"),
              QStringLiteral("echo codex-ok > made-by-codex.txt && echo done")}});
        m_openai->queueText(QStringLiteral("The file is there."));
        QCOMPARE(m_rig->send(QStringLiteral("make a file"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        QVERIFY(QFile::exists(file));

        QJsonObject use, result;
        for (const QJsonObject &c : m_rig->chunks(m_id)) {
            if (c.contains(QLatin1String("toolInput")))
                use = c;
            if (c.contains(QLatin1String("toolOutput")))
                result = c;
        }
        QCOMPARE(str(use, "toolName"), QStringLiteral("commandExecution"));
        QVERIFY2(str(use.value(QLatin1String("toolInput")).toObject(), "command")
                     .contains(QStringLiteral("made-by-codex.txt")),
                 qPrintable(QString::fromUtf8(QJsonDocument(use).toJson())));
        QCOMPARE(str(result, "toolName"), QStringLiteral("commandExecution"));
        QVERIFY2(str(result, "toolOutput").contains(QStringLiteral("done")),
                 qPrintable(str(result, "toolOutput")));
        QVERIFY(m_openai->hasFunctionCallOutput(1, call));
        // Tool history, as for Claude.
        const QJsonArray history =
            m_rig->http
                .get(m_rig->svc->url(QStringLiteral("/api/agents/tool-history?agentId=") + m_id))
                .object()
                .value(QLatin1String("toolExecutions"))
                .toArray();
        QVERIFY(!history.isEmpty());
        QCOMPARE(str(history.first().toObject(), "toolName"), QStringLiteral("commandExecution"));
    }

    // File edits: with a model whose tool list offers apply_patch (gpt-5.5 in the 0.169.0
    // catalog), Codex applies the patch itself as a fileChange item: a tool chunk with the paths
    // and the unified diff, and in ask mode an approval that shows the same.
    void fileChangesAreToolChunksWithTheirDiff_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("granted");
        QTest::newRow("auto") << QStringLiteral("auto") << true;
        QTest::newRow("ask, granted") << QStringLiteral("ask") << true;
        QTest::newRow("ask, denied") << QStringLiteral("ask") << false;
    }
    void fileChangesAreToolChunksWithTheirDiff() {
        QFETCH(QString, mode);
        QFETCH(bool, granted);
        QVERIFY(start(mode, {}, QStringLiteral("gpt-5.5")));
        m_openai->queueCustomToolCall(QStringLiteral("apply_patch"),
                                      QStringLiteral("*** Begin Patch\n*** Add File: notes.txt\n"
                                                     "+first line\n+second line\n*** End Patch\n"));
        m_openai->queueText(QStringLiteral("Patched."));
        QCOMPARE(m_rig->send(QStringLiteral("add notes"), m_id).status, 200);
        if (mode == QLatin1String("ask")) {
            QVERIFY(m_rig->ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
            const QJsonObject ask = payload(m_rig->ws->last(QStringLiteral("permission_request")));
            QCOMPARE(str(ask, "tool"), QStringLiteral("fileChange"));
            // The user sees what would change, not only an item id.
            const QJsonObject change = ask.value(QLatin1String("toolInput"))
                                           .toObject()
                                           .value(QLatin1String("changes"))
                                           .toArray()
                                           .first()
                                           .toObject();
            QVERIFY2(str(change, "path").endsWith(QLatin1String("/notes.txt")),
                     qPrintable(QString::fromUtf8(QJsonDocument(ask).toJson())));
            QVERIFY(str(change, "diff").contains(QLatin1String("second line")));
            m_rig->ws->sendJson({{QStringLiteral("type"), QStringLiteral("permission_response")},
                                 {QStringLiteral("payload"),
                                  QJsonObject{{QStringLiteral("agentId"), m_id},
                                              {QStringLiteral("permissionId"), str(ask, "id")},
                                              {QStringLiteral("granted"), granted}}}});
        }
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        QCOMPARE(QFile::exists(m_rig->cwd + QStringLiteral("/notes.txt")), granted);
        QJsonObject use, result;
        for (const QJsonObject &c : m_rig->chunks(m_id)) {
            if (c.contains(QLatin1String("toolInput")))
                use = c;
            if (c.contains(QLatin1String("toolOutput")))
                result = c;
        }
        QCOMPARE(str(use, "toolName"), QStringLiteral("fileChange"));
        const QJsonObject change = use.value(QLatin1String("toolInput"))
                                       .toObject()
                                       .value(QLatin1String("changes"))
                                       .toArray()
                                       .first()
                                       .toObject();
        QVERIFY2(str(change, "path").endsWith(QLatin1String("/notes.txt")),
                 qPrintable(QString::fromUtf8(QJsonDocument(use).toJson())));
        QCOMPARE(str(change, "kind"), QStringLiteral("add"));
        QVERIFY(str(change, "diff").contains(QLatin1String("first line")));
        QCOMPARE(str(result, "toolName"), QStringLiteral("fileChange"));
        QVERIFY2(str(result, "toolOutput")
                     .contains(granted ? QLatin1String("second line") : QLatin1String("declined")),
                 qPrintable(str(result, "toolOutput")));
    }

    void askModeUsesThePermissionFlow_data() {
        QTest::addColumn<bool>("granted");
        QTest::newRow("granted") << true;
        QTest::newRow("denied") << false;
    }

    void askModeUsesThePermissionFlow() {
        QFETCH(bool, granted);
        QVERIFY(start(QStringLiteral("ask")));
        const QString file = m_rig->cwd + QStringLiteral("/asked.txt");
        m_openai->queueFunctionCall(QStringLiteral("exec_command"),
                                    {{QStringLiteral("cmd"), QStringLiteral("touch asked.txt")}});
        m_openai->queueText(QStringLiteral("finished"));
        QCOMPARE(m_rig->send(QStringLiteral("touch it"), m_id).status, 200);

        QVERIFY(m_rig->ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        const QJsonObject request = payload(m_rig->ws->last(QStringLiteral("permission_request")));
        QCOMPARE(str(request, "agentId"), m_id);
        QCOMPARE(str(request, "tool"), QStringLiteral("commandExecution"));
        QVERIFY(str(request.value(QLatin1String("toolInput")).toObject(), "command")
                    .contains(QStringLiteral("asked.txt")));
        QVERIFY(m_rig->waitStatus(QStringLiteral("waiting_permission"), 10000, m_id));
        QVERIFY(!QFile::exists(file));

        m_rig->ws->sendJson(
            QJsonObject{{QStringLiteral("type"), QStringLiteral("permission_response")},
                        {QStringLiteral("payload"),
                         QJsonObject{{QStringLiteral("agentId"), m_id},
                                     {QStringLiteral("permissionId"), str(request, "id")},
                                     {QStringLiteral("granted"), granted}}}});
        QVERIFY(m_rig->ws->waitFor(QStringLiteral("permission_resolved")));
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        QCOMPARE(QFile::exists(file), granted);
    }

    void stopInterruptsTheTurn() {
        QVERIFY(start());
        m_openai->queueHang();
        QCOMPARE(m_rig->send(QStringLiteral("think forever"), m_id).status, 200);
        QVERIFY(m_rig->waitStatus(QStringLiteral("working"), 30000, m_id));
        QTRY_VERIFY_WITH_TIMEOUT(m_openai->requestCount() >= 1, 30000);
        QCOMPARE(m_rig->http
                     .post(m_rig->svc->url(QStringLiteral("/api/agents/bulk/stop")),
                           {{QStringLiteral("agentIds"), QJsonArray{m_id}}})
                     .status,
                 200);
        QVERIFY(m_rig->waitTurns(1, 30000, m_id));
        QTRY_VERIFY_WITH_TIMEOUT(str(m_rig->agent(m_id), "status") != QLatin1String("working"),
                                 30000);
        // The next message works.
        m_openai->queueText(QStringLiteral("back again"));
        QCOMPARE(m_rig->send(QStringLiteral("again"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(2, 60000, m_id));
        QVERIFY(m_rig->streamedText(m_id).contains(QStringLiteral("back again")));
    }

    void restartResumesTheThread() {
        QVERIFY(start());
        m_openai->queueText(QStringLiteral("I will remember the word pelican."));
        QCOMPARE(m_rig->send(QStringLiteral("remember pelican"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        const QString thread = str(m_rig->agent(m_id), "sessionId");
        QVERIFY(!thread.isEmpty());

        QVERIFY(m_rig->restartService());
        m_openai->queueText(QStringLiteral("It was pelican."));
        const int before = m_openai->requestCount();
        QCOMPARE(m_rig->send(QStringLiteral("which word?"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        QCOMPARE(str(m_rig->agent(m_id), "sessionId"), thread);
        // The whole conversation is resent: the first turn is in the new request's input.
        const QString input = QString::fromUtf8(
            QJsonDocument(m_openai->request(before).value(QLatin1String("input")).toArray())
                .toJson(QJsonDocument::Compact));
        QVERIFY2(input.contains(QStringLiteral("remember pelican")), qPrintable(input.left(2000)));
    }

    void clearContextStartsANewThread() {
        QVERIFY(start());
        m_openai->queueText(QStringLiteral("noted: albatross"));
        QCOMPARE(m_rig->send(QStringLiteral("remember albatross"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        const QString first = str(m_rig->agent(m_id), "sessionId");
        QCOMPARE(m_rig->http
                     .post(m_rig->svc->url(QStringLiteral("/api/agents/bulk/clear-context")),
                           {{QStringLiteral("agentIds"), QJsonArray{m_id}}})
                     .status,
                 200);
        m_openai->queueText(QStringLiteral("fresh start"));
        const int before = m_openai->requestCount();
        QCOMPARE(m_rig->send(QStringLiteral("anything to recall?"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(2, 60000, m_id));
        QTRY_VERIFY_WITH_TIMEOUT(!str(m_rig->agent(m_id), "sessionId").isEmpty(), 10000);
        QVERIFY(str(m_rig->agent(m_id), "sessionId") != first);
        const QString input = QString::fromUtf8(
            QJsonDocument(m_openai->request(before).value(QLatin1String("input")).toArray())
                .toJson(QJsonDocument::Compact));
        QVERIFY2(!input.contains(QStringLiteral("albatross")), qPrintable(input.left(2000)));
    }

    void globalPromptAndModelReachTheCli() {
        QVERIFY(start());
        QCOMPARE(m_rig
                     ->post(QStringLiteral("/api/agents/system-settings/prompt"),
                            {{QStringLiteral("prompt"), QStringLiteral("Always answer in haiku.")}})
                     .status,
                 200);
        m_openai->queueText(QStringLiteral("five seven five"));
        QCOMPARE(m_rig->send(QStringLiteral("hi"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        QVERIFY2(m_openai->instructionsOf(0).contains(QStringLiteral("Always answer in haiku.")),
                 qPrintable(m_openai->instructionsOf(0).left(500)));
        QCOMPARE(str(m_openai->request(0), "model"), QStringLiteral("gpt-mock"));

        // change-model: the next turn runs with the new model (a new process, the same thread).
        QCOMPARE(m_rig->http
                     .post(m_rig->svc->url(QStringLiteral("/api/agents/bulk/change-model")),
                           {{QStringLiteral("agentIds"), QJsonArray{m_id}},
                            {QStringLiteral("provider"), QStringLiteral("codex")},
                            {QStringLiteral("model"), QStringLiteral("gpt-mock-2")}})
                     .status,
                 200);
        m_openai->queueText(QStringLiteral("new model here"));
        const int before = m_openai->requestCount();
        QCOMPARE(m_rig->send(QStringLiteral("again"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(2, 60000, m_id));
        QCOMPARE(str(m_openai->request(before), "model"), QStringLiteral("gpt-mock-2"));
    }

    // A Codex agent reports back like a Claude one: its commands see FLOTILLA_URL,
    // FLOTILLA_AGENT_ID and its own FLOTILLA_TOKEN, and may reach the service on loopback.
    void commandsCanReportTheirTask() {
        QVERIFY(start(QStringLiteral("auto"), [](ServerConfig &c) { c.authToken = "svc-token"; }));
        const QString script = QStringLiteral(
            "echo \"url=$FLOTILLA_URL id=$FLOTILLA_AGENT_ID tok=${FLOTILLA_TOKEN:+set}\" > "
            "env.txt; "
            "curl -s -o /dev/null -w '%{http_code}' -X POST "
            "\"$FLOTILLA_URL/api/agents/$FLOTILLA_AGENT_ID/report-task\" "
            "-H 'Content-Type: application/json' -H \"X-Auth-Token: $FLOTILLA_TOKEN\" "
            "-d '{\"summary\":\"done\",\"status\":\"completed\"}' > report.txt");
        m_openai->queueFunctionCall(QStringLiteral("exec_command"),
                                    {{QStringLiteral("cmd"), script}});
        m_openai->queueText(QStringLiteral("reported"));
        QCOMPARE(m_rig->send(QStringLiteral("report"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        QFile env(m_rig->cwd + QStringLiteral("/env.txt"));
        QVERIFY(env.open(QIODevice::ReadOnly));
        const QByteArray seen = env.readAll();
        QVERIFY2(seen.contains(QByteArray("id=" + m_id.toUtf8())) && seen.contains("tok=set"),
                 seen.constData());
        QFile report(m_rig->cwd + QStringLiteral("/report.txt"));
        QVERIFY(report.open(QIODevice::ReadOnly));
        QCOMPARE(report.readAll(), QByteArray("200"));
    }

    // Stop on a Codex agent is a turn/interrupt: the turn ends for clients at once ("[stopped]"),
    // the app-server process stays (the next message has no start-up), and the interrupted
    // turn's own end is not a second final chunk.
    void stopKeepsTheWarmProcess() {
        QVERIFY(start());
        m_openai->queueText(QStringLiteral("warm"));
        QCOMPARE(m_rig->send(QStringLiteral("warm up"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        const qint64 pid = m_rig->svc->app().runtime().processId(m_id);
        QVERIFY(pid > 0);

        m_openai->queueHang();
        QCOMPARE(m_rig->send(QStringLiteral("think forever"), m_id).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(m_openai->requestCount() >= 2, 30000);
        QCOMPARE(m_rig
                     ->post(QStringLiteral("/api/agents/bulk/stop"),
                            {{QStringLiteral("agentIds"), QJsonArray{m_id}}})
                     .status,
                 200);
        QVERIFY(m_rig->waitTurns(2, 10000, m_id));
        QCOMPARE(str(m_rig->chunks(m_id).constLast(), "text"), QStringLiteral("[stopped]"));
        QCOMPARE(str(m_rig->agent(m_id), "status"), QStringLiteral("stopped"));
        // A message sent right away waits for the interrupted turn's end, then runs in the
        // same process.
        m_openai->queueText(QStringLiteral("still here"));
        QCOMPARE(m_rig->send(QStringLiteral("again"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(3, 60000, m_id));
        QVERIFY(m_rig->streamedText(m_id).contains(QStringLiteral("still here")));
        QCOMPARE(m_rig->svc->app().runtime().processId(m_id), pid);
        QVERIFY(m_rig->agent(m_id).value(QLatin1String("isProcessRunning")).toBool());
        QVERIFY(m_rig->waitStatus(QStringLiteral("idle"), 10000, m_id));
        int finals = 0;
        for (const QJsonObject &c : m_rig->chunks(m_id))
            finals += c.value(QLatin1String("isStreaming")).toBool() ? 0 : 1;
        QCOMPARE(finals, 3);
    }

    // A model the API refuses (a 400, as for an unknown model) fails the turn with the API's
    // words: an error status and lastError, never a hang.
    void refusedModelFailsTheTurnClearly() {
        QVERIFY(start());
        m_openai->queueError(400, QStringLiteral("The model 'gpt-nope' does not exist"));
        QCOMPARE(m_rig->send(QStringLiteral("hello"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        QVERIFY(m_rig->waitStatus(QStringLiteral("error"), 10000, m_id));
        QVERIFY2(str(m_rig->agent(m_id), "lastError").contains(QStringLiteral("gpt-nope")),
                 qPrintable(str(m_rig->agent(m_id), "lastError")));
        // The agent still works afterwards.
        m_openai->queueText(QStringLiteral("fine now"));
        QCOMPARE(m_rig->send(QStringLiteral("again"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(2, 60000, m_id));
        QVERIFY(m_rig->waitStatus(QStringLiteral("idle"), 10000, m_id));
    }

    void missingCliIsRefusedClearly() {
        QVERIFY(start(QStringLiteral("auto"),
                      [](ServerConfig &c) { c.codexBin = QStringLiteral("/nonexistent/codex"); }));
        const HttpResponse r = m_rig->send(QStringLiteral("hello"), m_id);
        QCOMPARE(r.status, 503);
        QCOMPARE(str(r.object(), "code"), QStringLiteral("cli_unavailable"));
        QVERIFY2(str(r.object(), "error").contains(QStringLiteral("codex")), r.body.constData());
    }

    // History of a Codex agent comes from its rollout file: the same pages, search and session
    // list as for Claude agents, with each message once (no event_msg duplicates, no injected
    // developer/context items).
    void historyReadsTheRollout() {
        QVERIFY(start());
        m_openai->queueText(QStringLiteral("The capital is Canberra, mate."));
        QCOMPARE(m_rig->send(QStringLiteral("capital of australia?"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(1, 60000, m_id));
        const QString call = m_openai->queueFunctionCall(
            QStringLiteral("exec_command"),
            {{QStringLiteral("cmd"), QStringLiteral("echo history-ok")}});
        m_openai->queueText(QStringLiteral("Command ran fine."));
        QCOMPARE(m_rig->send(QStringLiteral("run a command"), m_id).status, 200);
        QVERIFY(m_rig->waitTurns(2, 60000, m_id));
        QVERIFY(m_rig->waitStatus(QStringLiteral("idle"), 10000, m_id));
        const QString thread = str(m_rig->agent(m_id), "sessionId");
        QVERIFY(!thread.isEmpty());

        const QString base = QStringLiteral("/api/agents/") + m_id;
        auto get = [&](const QString &path) {
            const HttpResponse r = m_rig->http.get(m_rig->svc->url(base + path));
            if (r.status != 200)
                qWarning("%s -> %d %s", qPrintable(path), r.status, r.body.constData());
            return r.object();
        };
        // Rollout lines are flushed by the CLI shortly after the turn ends.
        QJsonObject page;
        QTRY_VERIFY_WITH_TIMEOUT((page = get(QStringLiteral("/history?limit=50")))
                                         .value(QLatin1String("totalCount"))
                                         .toInt() >= 6,
                                 10000);
        const QJsonArray messages = page.value(QLatin1String("messages")).toArray();
        const QString dump = QString::fromUtf8(QJsonDocument(page).toJson());
        QCOMPARE(str(page, "sessionId"), thread);
        QCOMPARE(page.value(QLatin1String("totalCount")).toInt(), 6);
        QCOMPARE(messages.size(), 6);
        QVERIFY(!page.value(QLatin1String("hasMore")).toBool());
        const QStringList types{QStringLiteral("user"),        QStringLiteral("assistant"),
                                QStringLiteral("user"),        QStringLiteral("tool_use"),
                                QStringLiteral("tool_result"), QStringLiteral("assistant")};
        for (int i = 0; i < messages.size(); ++i)
            QVERIFY2(str(messages.at(i).toObject(), "type") == types.at(i), qPrintable(dump));
        auto at = [&](int i) { return messages.at(i).toObject(); };
        QCOMPARE(str(at(0), "content"), QStringLiteral("capital of australia?"));
        QCOMPARE(str(at(1), "content"), QStringLiteral("The capital is Canberra, mate."));
        QCOMPARE(str(at(2), "content"), QStringLiteral("run a command"));
        QCOMPARE(str(at(3), "toolName"), QStringLiteral("exec_command"));
        QCOMPARE(str(at(3), "toolUseId"), call);
        QCOMPARE(str(at(3).value(QLatin1String("toolInput")).toObject(), "cmd"),
                 QStringLiteral("echo history-ok"));
        QCOMPARE(str(at(4), "toolUseId"), call);
        QVERIFY2(str(at(4), "content").contains(QStringLiteral("history-ok")), qPrintable(dump));
        QCOMPARE(str(at(5), "content"), QStringLiteral("Command ran fine."));
        QStringList uuids; // the items' own ids: unique, as Claude entries' uuids are
        for (int i = 0; i < messages.size(); ++i) {
            QVERIFY2(at(i).value(QLatin1String("timestamp")).toInteger() > 0, qPrintable(dump));
            QVERIFY2(!str(at(i), "uuid").isEmpty() && !uuids.contains(str(at(i), "uuid")),
                     qPrintable(dump));
            uuids.append(str(at(i), "uuid"));
        }

        // Paging: offset counts back from the newest entry.
        const QJsonObject newest = get(QStringLiteral("/history?limit=1"));
        QCOMPARE(newest.value(QLatin1String("totalCount")).toInt(), 6);
        QVERIFY(newest.value(QLatin1String("hasMore")).toBool());
        QCOMPARE(str(newest.value(QLatin1String("messages")).toArray().at(0).toObject(), "content"),
                 QStringLiteral("Command ran fine."));
        const QJsonObject oldest = get(QStringLiteral("/history?limit=1&offset=5"));
        QVERIFY(!oldest.value(QLatin1String("hasMore")).toBool());
        QCOMPARE(str(oldest.value(QLatin1String("messages")).toArray().at(0).toObject(), "content"),
                 QStringLiteral("capital of australia?"));

        const QJsonObject found = get(QStringLiteral("/search?q=canberra"));
        QCOMPARE(found.value(QLatin1String("totalMatches")).toInt(), 1);
        const QJsonObject match = found.value(QLatin1String("matches")).toArray().at(0).toObject();
        QCOMPARE(str(match, "type"), QStringLiteral("assistant"));
        QCOMPARE(match.value(QLatin1String("offset")).toInt(), 4);

        const QJsonObject sessions = get(QStringLiteral("/sessions"));
        QCOMPARE(str(sessions, "currentSessionId"), thread);
        const QJsonArray list = sessions.value(QLatin1String("sessions")).toArray();
        QCOMPARE(list.size(), 1);
        QCOMPARE(str(list.at(0).toObject(), "sessionId"), thread);
        QCOMPARE(list.at(0).toObject().value(QLatin1String("messageCount")).toInt(), 6);
        // An explicit sessionId works too; one of another agent's directory does not exist here.
        QCOMPARE(get(QStringLiteral("/history?sessionId=") + thread)
                     .value(QLatin1String("totalCount"))
                     .toInt(),
                 6);
        QCOMPARE(m_rig->http
                     .get(m_rig->svc->url(
                         base +
                         QStringLiteral("/history?sessionId=00000000-0000-0000-0000-000000000000")))
                     .status,
                 404);
    }
};

QTEST_GUILESS_MAIN(TestCodexAgents)
#include "tst_codex_agents.moc"
