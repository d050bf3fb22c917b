// What Codex agents do beyond the provider-neutral suites (tst_agent_turns,
// tst_agent_lifecycle and tst_permissions run every flow for Claude and Codex alike): file
// changes (apply_patch) as fileChange tool chunks, the developer instructions of a new thread,
// commands reaching the service from Codex's sandbox, a stop that keeps the warm app-server, and
// history read from rollout files.

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

    std::unique_ptr<AgentRig> m_rig;
    MockOpenAI *m_openai = nullptr; // the rig's
    QString m_id;

    // The service with the Codex CLI pointed at the mock; agent "codex-1" in `mode`.
    bool start(const QString &mode = QStringLiteral("auto"),
               const std::function<void(ServerConfig &)> &tweak = {},
               const QString &model = QStringLiteral("gpt-mock")) {
        m_rig = std::make_unique<AgentRig>(QStringLiteral("codex"), tweak);
        if (!m_rig->start())
            return false;
        m_openai = &m_rig->openai;
        const HttpResponse r = m_rig->createAgent(
            QStringLiteral("codex-1"),
            {{QStringLiteral("model"), model}, {QStringLiteral("permissionMode"), mode}});
        m_id = str(r.object(), "id");
        return r.status == 201;
    }

private Q_SLOTS:
    void cleanup() {
        m_openai = nullptr;
        m_rig.reset();
    }

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

    // A global prompt set before the thread starts is its developer instructions (one changed
    // later is a developer message in the running thread: tst_agent_lifecycle's
    // systemPromptReachesARunningAgent); the request names the agent's model.
    void globalPromptReachesANewThread() {
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
    }

    // A Codex agent reports back like a Claude one: its commands see FLOTILLA_URL,
    // FLOTILLA_AGENT_ID and its own credential file (FLOTILLA_AUTH_HEADER_FILE), and may reach
    // the service on loopback.
    void commandsCanReportTheirTask() {
        QVERIFY(start(QStringLiteral("auto"), [](ServerConfig &c) { c.authToken = "svc-token"; }));
        const QString script =
            QStringLiteral("echo \"url=$FLOTILLA_URL id=$FLOTILLA_AGENT_ID "
                           "tok=${FLOTILLA_AUTH_HEADER_FILE:+set}\" > "
                           "env.txt; "
                           "curl -s -o /dev/null -w '%{http_code}' -X POST "
                           "\"$FLOTILLA_URL/api/agents/$FLOTILLA_AGENT_ID/report-task\" "
                           "-H 'Content-Type: application/json' -H @\"$FLOTILLA_AUTH_HEADER_FILE\" "
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
