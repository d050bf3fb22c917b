// The provider seam (agents/Provider.h, AgentProcess.h), driven by a scripted provider in the real
// service graph: each event of a process is at most one agent_updated, and permission requests
// that come through a process's own protocol (Codex's approvals, later) take the same way as
// the Claude hooks' (auto, protected paths, held and answered over the WebSocket, denied on stop).

#include "agents/AgentProcess.h"
#include "agents/Provider.h"
#include "domain/AgentRegistry.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include "support/WsClient.h"

#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;
using Kind = AgentEvent::Kind;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// A process that runs nothing: the test makes it speak.
class ScriptedProcess final : public AgentProcess {
    Q_OBJECT
public:
    using AgentProcess::AgentProcess;

    void start(const AgentLaunch &launch) override {
        launched = launch;
        m_running = true;
    }
    void sendUserMessage(const QString &text) override { messages << text; }
    bool interruptTurn() override {
        stop();
        return false;
    }
    // Stays until the test (or the service's shutdown) ends it, so what it was told can be read.
    void stop(int graceMs = 2000) override {
        Q_UNUSED(graceMs)
        stopRequested = true;
    }
    bool isRunning() const override { return m_running; }
    qint64 pid() const override { return 0; }
    QString stderrTail() const override { return {}; }
    void answerPermission(const QString &requestId, bool granted, const QString &reason) override {
        answers << Answer{requestId, granted, reason};
    }

    void say(const AgentEvent &e) { Q_EMIT agentEvent(e); }
    void crash() {
        m_running = false;
        Q_EMIT finished(1, 0, false);
    }
    void ask(const QString &id, const QString &tool, const QJsonObject &input) {
        Q_EMIT permissionRequested(id, tool, input);
    }

    struct Answer {
        QString requestId;
        bool granted = false;
        QString reason;
    };
    AgentLaunch launched;
    bool stopRequested = false;
    QStringList messages;
    QList<Answer> answers;

private:
    bool m_running = false;
};

// Registered as "codex" (a name the validation accepts), replacing the real Codex provider.
class ScriptedProvider final : public Provider {
public:
    explicit ScriptedProvider(QPointer<ScriptedProcess> *last)
        : m_last(last) {}
    QString name() const override { return QStringLiteral("codex"); }
    QString displayName() const override { return QStringLiteral("Scripted CLI"); }
    QString defaultModel() const override { return QStringLiteral("gpt-5.5"); } // Codex's
    QString program() const override { return QStringLiteral("scripted-cli"); }
    QString unavailableReason() const override { return {}; }
    AgentLaunch launch(const LaunchRequest &request) const override {
        AgentLaunch l;
        l.program = program();
        l.arguments = {QStringLiteral("app-server")};
        l.cwd = request.cwd;
        l.environment = request.environment;
        l.resumeId = request.resumeId;
        l.model = request.model;
        l.systemPrompt = request.systemPrompt;
        return l;
    }
    AgentProcess *createProcess(QObject *parent) const override {
        auto *p = new ScriptedProcess(parent);
        *m_last = p;
        return p;
    }
    bool canResume(const QString &, const QString &) const override { return true; }

private:
    QPointer<ScriptedProcess> *m_last;
};

AgentEvent eventOf(Kind kind) {
    AgentEvent e;
    e.kind = kind;
    return e;
}

} // namespace

class TestAgentProvider final : public QObject {
    Q_OBJECT

    // The service with the scripted provider, a WebSocket client and one agent that has sent its
    // first message (the process is running, a turn is active).
    struct Rig {
        TestService svc;
        HttpClient http;
        WsClient ws;
        QPointer<ScriptedProcess> process;
        QString agentId;

        bool start(const QString &permissionMode = QStringLiteral("ask")) {
            return boot(permissionMode) && send(QStringLiteral("hello")) == 200 && process;
        }
        // The service and the agent, no message yet.
        bool boot(const QString &permissionMode = QStringLiteral("ask")) {
            if (!svc.start())
                return false;
            svc.app().providers().add(std::make_unique<ScriptedProvider>(&process));
            if (!ws.open(svc.wsUrl()) || !ws.waitFor(QStringLiteral("work_plans_update")))
                return false;
            const HttpResponse r =
                http.post(svc.url(QStringLiteral("/api/agents")),
                          QJsonObject{{QStringLiteral("name"), QStringLiteral("scripted-1")},
                                      {QStringLiteral("cwd"), svc.workDir()},
                                      {QStringLiteral("provider"), QStringLiteral("codex")},
                                      {QStringLiteral("permissionMode"), permissionMode}});
            agentId = str(r.object(), "id");
            return r.status == 201;
        }
        int send(const QString &text) {
            return http
                .post(svc.url(QStringLiteral("/api/agents/%1/message").arg(agentId)),
                      QJsonObject{{QStringLiteral("message"), text}})
                .status;
        }
        const Agent &agent() { return *svc.app().agents().find(agentId); }
    };

private Q_SLOTS:
    void turnStartIsOneUpdate() {
        Rig rig;
        QVERIFY(rig.boot());
        QSignalSpy updates(&rig.svc.app().agents(), &AgentRegistry::agentUpdated);
        QCOMPARE(rig.send(QStringLiteral("hello")), 200);
        QVERIFY(rig.process);
        QCOMPARE(updates.count(), 1); // process started and turn started: one change
        const QJsonObject changes = updates.at(0).at(1).toJsonObject();
        QCOMPARE(str(changes, "status"), QStringLiteral("working"));
        QCOMPARE(changes.value(QLatin1String("isProcessRunning")).toBool(), true);
        QCOMPARE(str(changes, "currentTask"), QStringLiteral("hello"));
        QCOMPARE(rig.process->messages, QStringList{QStringLiteral("hello")});
        QCOMPARE(rig.process->launched.program, QStringLiteral("scripted-cli"));
        QCOMPARE(rig.process->launched.environment.value(QStringLiteral("FLOTILLA_AGENT_ID")),
                 rig.agentId);
        // Its credential is a file, never text in its environment (security/AgentTokens.h).
        QVERIFY(!rig.process->launched.environment.contains(QStringLiteral("FLOTILLA_TOKEN")));
        QVERIFY(QFileInfo::exists(
            rig.process->launched.environment.value(QStringLiteral("FLOTILLA_AUTH_HEADER_FILE"))));
    }

    void eachEventIsAtMostOneUpdate_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("subAgent");
        QTest::addColumn<int>("expected");
        QTest::newRow("session started") << int(Kind::SessionStarted) << false << 1;
        QTest::newRow("text delta") << int(Kind::TextDelta) << false << 0;
        QTest::newRow("tool use") << int(Kind::ToolUse) << false << 1;
        QTest::newRow("sub-agent tool use") << int(Kind::ToolUse) << true << 0;
        QTest::newRow("tool result") << int(Kind::ToolResult) << false << 1;
        QTest::newRow("usage") << int(Kind::Usage) << false << 1;
        QTest::newRow("turn ended") << int(Kind::TurnEnded) << false << 1;
        QTest::newRow("api retry") << int(Kind::ApiRetry) << false << 0;
        QTest::newRow("compacting") << int(Kind::Compacting) << false << 0;
    }
    void eachEventIsAtMostOneUpdate() {
        QFETCH(int, kind);
        QFETCH(bool, subAgent);
        QFETCH(int, expected);
        Rig rig;
        QVERIFY(rig.start());
        if (Kind(kind) == Kind::ToolResult) { // a tool must be running for its result to clear
            AgentEvent use = eventOf(Kind::ToolUse);
            use.toolUseId = QStringLiteral("t1");
            use.toolName = QStringLiteral("exec_command");
            rig.process->say(use);
        }
        AgentEvent e = eventOf(Kind(kind));
        e.sessionId = QStringLiteral("thread-1");
        e.text = QStringLiteral("some text");
        e.toolUseId = QStringLiteral("t1");
        e.toolName = QStringLiteral("exec_command");
        e.active = true;
        e.usage = TokenUsage{100, 20, 5000, 0};
        if (subAgent)
            e.parentToolUseId = QStringLiteral("task-1");
        QSignalSpy updates(&rig.svc.app().agents(), &AgentRegistry::agentUpdated);
        rig.process->say(e);
        QCOMPARE(updates.count(), expected);
    }

    void eventsReachTheAgent() {
        Rig rig;
        QVERIFY(rig.start());
        AgentEvent started = eventOf(Kind::SessionStarted);
        started.sessionId = QStringLiteral("thread-1");
        rig.process->say(started);
        QCOMPARE(rig.agent().sessionId, QStringLiteral("thread-1"));
        AgentEvent usage = eventOf(Kind::Usage);
        usage.usage.contextTokens = 5000;
        usage.usage.contextWindow = 400'000; // a provider that knows its window says so
        rig.process->say(usage);
        QCOMPARE(rig.agent().contextUsed, qint64(5000));
        QCOMPARE(rig.agent().contextLimit, qint64(400'000));
        AgentEvent ended = eventOf(Kind::TurnEnded);
        ended.text = QStringLiteral("done");
        ended.usage = TokenUsage{100, 20, 0, 0};
        rig.process->say(ended);
        QCOMPARE(rig.agent().status, QStringLiteral("idle"));
        QCOMPARE(rig.agent().tokensUsed, qint64(120));
        QCOMPARE(rig.agent().taskCount, 1);
    }

    void queuedMessageIsATurnOfItsOwn() {
        Rig rig;
        QVERIFY(rig.start());
        QCOMPARE(rig.send(QStringLiteral("second")), 200); // queued behind the active turn
        QSignalSpy updates(&rig.svc.app().agents(), &AgentRegistry::agentUpdated);
        rig.process->say(eventOf(Kind::TurnEnded));
        // The turn's end (idle), then the queued turn's start (working): clients see both.
        QCOMPARE(updates.count(), 2);
        QCOMPARE(str(updates.at(0).at(1).toJsonObject(), "status"), QStringLiteral("idle"));
        QCOMPARE(str(updates.at(1).at(1).toJsonObject(), "status"), QStringLiteral("working"));
        QCOMPARE(rig.process->messages.size(), 2);
    }

    void processPermissionAnsweredAtOnce_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("namesDataDir");
        QTest::addColumn<bool>("granted");
        QTest::newRow("auto grants") << QStringLiteral("auto") << false << true;
        QTest::newRow("protected path, auto") << QStringLiteral("auto") << true << false;
        QTest::newRow("protected path, ask") << QStringLiteral("ask") << true << false;
    }
    void processPermissionAnsweredAtOnce() {
        QFETCH(QString, mode);
        QFETCH(bool, namesDataDir);
        QFETCH(bool, granted);
        Rig rig;
        QVERIFY(rig.start(mode));
        const QString cmd =
            namesDataDir ? QStringLiteral("cat %1/flotilla.db").arg(rig.svc.app().config().dataDir)
                         : QStringLiteral("ls");
        rig.process->ask(QStringLiteral("0"), QStringLiteral("exec_command"),
                         {{QStringLiteral("cmd"), cmd}});
        QCOMPARE(rig.process->answers.size(), 1);
        QCOMPARE(rig.process->answers.at(0).requestId, QStringLiteral("0"));
        QCOMPARE(rig.process->answers.at(0).granted, granted);
        QCOMPARE(rig.ws.countOf(QStringLiteral("permission_request")), 0);
    }

    void processPermissionHeldUntilAnswered_data() {
        QTest::addColumn<bool>("granted");
        QTest::newRow("granted") << true;
        QTest::newRow("denied") << false;
    }
    void processPermissionHeldUntilAnswered() {
        QFETCH(bool, granted);
        Rig rig;
        QVERIFY(rig.start());
        rig.process->ask(QStringLiteral("7"), QStringLiteral("exec_command"),
                         {{QStringLiteral("cmd"), QStringLiteral("touch x")}});
        QVERIFY(rig.ws.waitFor(QStringLiteral("permission_request")));
        const QJsonObject request = rig.ws.last(QStringLiteral("permission_request"))
                                        .value(QLatin1String("payload"))
                                        .toObject();
        QCOMPARE(str(request, "tool"), QStringLiteral("exec_command"));
        QCOMPARE(str(request, "agentId"), rig.agentId);
        QTRY_COMPARE(rig.agent().status, QStringLiteral("waiting_permission"));
        QVERIFY(rig.process->answers.isEmpty());
        rig.ws.sendJson({{QStringLiteral("type"), QStringLiteral("permission_response")},
                         {QStringLiteral("payload"),
                          QJsonObject{{QStringLiteral("permissionId"), str(request, "id")},
                                      {QStringLiteral("granted"), granted}}}});
        QTRY_COMPARE(rig.process->answers.size(), 1);
        QCOMPARE(rig.process->answers.at(0).requestId, QStringLiteral("7"));
        QCOMPARE(rig.process->answers.at(0).granted, granted);
        QCOMPARE(rig.agent().status, QStringLiteral("working"));
    }

    void staleAnswerNeverReachesALaterProcess() {
        Rig rig;
        QVERIFY(rig.start());
        rig.process->ask(QStringLiteral("0"), QStringLiteral("exec_command"),
                         {{QStringLiteral("cmd"), QStringLiteral("make")}});
        QVERIFY(rig.ws.waitFor(QStringLiteral("permission_request")));
        const QString firstId = str(rig.ws.last(QStringLiteral("permission_request"))
                                        .value(QLatin1String("payload"))
                                        .toObject(),
                                    "id");
        rig.process->crash();
        QTRY_VERIFY(!rig.process); // the runtime let go of it
        QCOMPARE(rig.send(QStringLiteral("again")), 200);
        QVERIFY(rig.process);
        // The new process's JSON-RPC ids start over: the same "0" is a new question.
        rig.process->ask(QStringLiteral("0"), QStringLiteral("exec_command"),
                         {{QStringLiteral("cmd"), QStringLiteral("make test")}});
        QVERIFY(rig.ws.waitFor(QStringLiteral("permission_request"), 2));
        const auto respond = [&rig](const QString &id) {
            rig.ws.sendJson(
                {{QStringLiteral("type"), QStringLiteral("permission_response")},
                 {QStringLiteral("payload"), QJsonObject{{QStringLiteral("permissionId"), id},
                                                         {QStringLiteral("granted"), true}}}});
        };
        respond(firstId);
        QVERIFY(rig.ws.waitFor(QStringLiteral("permission_resolved")));
        QVERIFY(rig.process->answers.isEmpty());
        respond(str(rig.ws.last(QStringLiteral("permission_request"))
                        .value(QLatin1String("payload"))
                        .toObject(),
                    "id"));
        QTRY_COMPARE(rig.process->answers.size(), 1);
        QCOMPARE(rig.process->answers.at(0).requestId, QStringLiteral("0"));
    }

    void stopDeniesTheProcessRequest() {
        Rig rig;
        QVERIFY(rig.start());
        QPointer<ScriptedProcess> asked = rig.process;
        asked->ask(QStringLiteral("1"), QStringLiteral("exec_command"),
                   {{QStringLiteral("cmd"), QStringLiteral("rm -rf build")}});
        QVERIFY(rig.ws.waitFor(QStringLiteral("permission_request")));
        QCOMPARE(rig.http
                     .post(rig.svc.url(QStringLiteral("/api/agents/bulk/stop")),
                           QJsonObject{{QStringLiteral("agentIds"), QJsonArray{rig.agentId}}})
                     .status,
                 200);
        QVERIFY(asked && asked->stopRequested);
        QCOMPARE(asked->answers.size(), 1);
        QCOMPARE(asked->answers.at(0).granted, false);
        QCOMPARE(asked->answers.at(0).reason, QStringLiteral("the agent was stopped"));
    }
};

QTEST_GUILESS_MAIN(TestAgentProvider)
#include "tst_agent_provider.moc"
