// The mock OpenAI Responses API against the real, pinned `codex` CLI driven through
// `codex app-server` (JSON-RPC 2.0 over stdio, one JSON object per line each way), run directly
// with QProcess, not through the service: streamed text, usage, instructions, exec_command with
// and without approval, interrupt, HTTP errors, resume after a kill and the rollout file. The
// Codex agents of the product build on these facts, so they are checked here first.
//
// Verified with 0.169.0 as root (no flag needed, nothing refused), with Debian's bubblewrap and
// with none (the CLI then uses the bwrap bundled in its npm package):
//  - Handshake: request `initialize {clientInfo:{name,version}}` -> result {userAgent, codexHome,
//    platformFamily, platformOs}, then the notification `initialized`. Server request ids start
//    at 0 and are independent of the client's.
//  - `thread/start {cwd, model, approvalPolicy?, sandbox?, developerInstructions?}` ->
//    result.thread.id (a UUIDv7, equal to thread.sessionId), then `thread/started`.
//    `turn/start {threadId, input:[{type:"text",text}], approvalPolicy?}` -> result.turn.id at
//    once (status "inProgress"), then `thread/status/changed {status:{type:"active"}}`,
//    `turn/started`, item/started + item/completed of the userMessage, item/started of the
//    agentMessage (item.id = the Responses item id), `item/agentMessage/delta {threadId, turnId,
//    itemId, delta}` per output_text delta, item/completed {item:{type:"agentMessage",text}},
//    `thread/tokenUsage/updated` after every model response, `thread/status/changed` idle and
//    last `turn/completed {threadId, turn:{id, status, error, items}}`. Closing stdin ends the
//    process (exit 0).
//  - The default sandbox is read-only: with approvalPolicy "never" a write fails inside the
//    sandbox ("Read-only file system" in the function_call_output) and no commandExecution items
//    are emitted at all. With sandbox "workspace-write" the command runs: item/started and
//    item/completed {type:"commandExecution", id = the call_id, command "/bin/bash -lc '<cmd>'",
//    cwd, status "completed", exitCode}.
//  - approvalPolicy "untrusted" (given on turn/start here; the schema says later turns keep it):
//    item/started (commandExecution, inProgress), `thread/status/changed` activeFlags
//    ["waitingOnApproval"], then the server request `item/commandExecution/requestApproval
//    {threadId, turnId, itemId = call_id, command, cwd, commandActions, startedAtMs}`. The answer
//    {"decision": ...}: "accept" runs it; "decline" marks the item "declined", tells the model
//    "rejected by user" and the turn goes on; "cancel" also marks it "declined" and ends the turn
//    as "interrupted" without another request. Each answer is followed by `serverRequest/resolved
//    {requestId}`.
//  - `turn/interrupt {threadId, turnId}` -> result {} at once, the HTTP request is dropped and
//    `turn/completed` follows with turn.status "interrupted".
//  - HTTP errors and retries: see MockOpenAI.h. The final failure is an `error` notification
//    {error:{message, codexErrorInfo}, willRetry:false, threadId, turnId} and
//    `thread/status/changed {type:"systemError"}`, then turn/completed with status "failed" and
//    turn.error; each retry before it is an `error` notification with willRetry true.
//  - `thread/resume {threadId}` in a new process (the first one SIGKILLed after its turn) ->
//    result.thread.id is the same id; the next request resends the earlier turn.
//  - The rollout: HOME/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl, first
//    line {type:"session_meta", payload:{id, cwd, cli_version, model_provider, ...}}.

#include "support/CodexAppServer.h"
#include "support/MockOpenAI.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <functional>
#include <memory>

#include <sys/types.h>
#include <unistd.h>

using flotilla::test::MockOpenAI;

using namespace flotilla::test::jsonrpc;
using flotilla::test::AppServer;

namespace {

// A temporary HOME and working directory for one CLI run.
struct Sandbox {
    QTemporaryDir dir;
    QString home() const { return dir.path() + QStringLiteral("/home"); }
    QString work() const { return dir.path() + QStringLiteral("/work"); }
    bool make() const { return dir.isValid() && QDir().mkpath(home()) && QDir().mkpath(work()); }
};

QJsonObject threadParams(const Sandbox &box, QJsonObject extra = {}) {
    extra.insert(QStringLiteral("cwd"), box.work());
    extra.insert(QStringLiteral("model"), QStringLiteral("gpt-mock"));
    return extra;
}

QJsonObject approvalPolicy(const char *policy) {
    return {{QStringLiteral("approvalPolicy"), QLatin1String(policy)}};
}

QJsonObject execArgs(const QString &cmd) {
    return {{QStringLiteral("cmd"), cmd}};
}

} // namespace

class TestMockOpenAI : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void textTurnStreams();
    void developerInstructionsReachServer();
    void execWithoutApproval();
    void approvalDecision_data();
    void approvalDecision();
    void interruptEndsHangingTurn();
    void httpError_data();
    void httpError();
    void resumeAfterKill();
    void sessionFileWritten();

private:
    QString m_version; // "0.169.0", from `codex --version`
    std::unique_ptr<MockOpenAI> m_mock;
    std::unique_ptr<Sandbox> m_box;
};

void TestMockOpenAI::initTestCase() {
    const QString bin = MockOpenAI::codexBinary();
    QVERIFY2(QFileInfo(bin).isExecutable(),
             qPrintable(QStringLiteral("The pinned Codex CLI is missing at %1: run "
                                       "scripts/install-codex.sh (or scripts/install-deps.sh)")
                            .arg(bin)));
    QProcess version;
    version.start(bin, {QStringLiteral("--version")});
    QVERIFY(version.waitForFinished(30000));
    const QString out = QString::fromUtf8(version.readAllStandardOutput()).trimmed();
    QVERIFY2(out.startsWith(QLatin1String("codex-cli ")), qPrintable(out));
    m_version = out.mid(10);
}

void TestMockOpenAI::init() {
    m_mock = std::make_unique<MockOpenAI>();
    QVERIFY(m_mock->start());
    m_box = std::make_unique<Sandbox>();
    QVERIFY(m_box->make());
}

void TestMockOpenAI::cleanup() {
    m_mock.reset();
    m_box.reset();
}

void TestMockOpenAI::textTurnStreams() {
    MockOpenAI &mock = *m_mock;
    const Sandbox &box = *m_box;
    const QString text = QStringLiteral("Hello from the mock, streamed in pieces.");
    mock.queueText(text, 4);
    mock.setUsage(1200, 34, 500);
    AppServer cx(mock, box.home(), box.work());
    QVERIFY2(cx.start(), cx.diag().constData());
    const QString threadId = cx.startThread(threadParams(box));
    QVERIFY2(!threadId.isEmpty(), cx.diag().constData());
    const QString turnId = cx.startTurn(threadId, QStringLiteral("say hi flotilla-a"));
    QVERIFY2(!turnId.isEmpty(), cx.diag().constData());
    const int done = cx.waitMethod("turn/completed");
    QVERIFY2(done >= 0, cx.diag().constData());

    const int started = cx.waitMethod("turn/started", 0);
    QVERIFY(started >= 0 && started < done);
    QString streamed;
    QString itemId;
    int deltas = 0;
    for (int i = 0; i < done; ++i) {
        const QJsonObject m = cx.message(i);
        if (!isMethod(m, "item/agentMessage/delta"))
            continue;
        const QJsonObject p = paramsOf(m);
        QVERIFY(i > started);
        QCOMPARE(str(p, "threadId"), threadId);
        QCOMPARE(str(p, "turnId"), turnId);
        itemId = itemId.isEmpty() ? str(p, "itemId") : itemId;
        QCOMPARE(str(p, "itemId"), itemId);
        streamed += str(p, "delta");
        ++deltas;
    }
    QCOMPARE(deltas, 4);
    QCOMPARE(streamed, text);
    const QList<QJsonObject> messages = cx.completedItems("agentMessage");
    QCOMPARE(messages.size(), 1);
    QCOMPARE(str(messages.first(), "text"), text);
    QCOMPARE(str(messages.first(), "id"), itemId);

    const QJsonObject turn = sub(paramsOf(cx.message(done)), "turn");
    QCOMPARE(str(turn, "id"), turnId);
    QCOMPARE(str(turn, "status"), QStringLiteral("completed"));
    const QList<QJsonObject> usages = cx.paramsWith("thread/tokenUsage/updated");
    QVERIFY2(!usages.isEmpty(), cx.diag().constData());
    QCOMPARE(str(usages.last(), "turnId"), turnId);
    const QJsonObject total = sub(sub(usages.last(), "tokenUsage"), "total");
    QCOMPARE(total.value(QLatin1String("inputTokens")).toInt(), 1200);
    QCOMPARE(total.value(QLatin1String("cachedInputTokens")).toInt(), 500);
    QCOMPARE(total.value(QLatin1String("outputTokens")).toInt(), 34);
    QCOMPARE(total.value(QLatin1String("totalTokens")).toInt(), 1234);

    QCOMPARE(mock.requestCount(), 1); // one request per model response, nothing else
    QCOMPARE(mock.otherRequests().size(), 0);
    QCOMPARE(mock.unscriptedRequests(), 0);
    QCOMPARE(mock.lastUserTextOf(0), QStringLiteral("say hi flotilla-a"));
    const QJsonObject body = mock.request(0);
    QCOMPARE(str(body, "model"), QStringLiteral("gpt-mock"));
    QVERIFY(body.value(QLatin1String("stream")).toBool());
    QCOMPARE(body.value(QLatin1String("store")).toBool(true), false);
    QVERIFY(!body.contains(QLatin1String("previous_response_id")));
    QCOMPARE(mock.rawRequest(0).headers.value("authorization"), QByteArray("Bearer sk-test"));
    QVERIFY2(cx.finish(), cx.diag().constData());
}

void TestMockOpenAI::developerInstructionsReachServer() {
    MockOpenAI &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueText(QStringLiteral("ok"));
    const QString mark = QStringLiteral("FLOTILLA-MARK-7f3a: you are agent b.");
    AppServer cx(mock, box.home(), box.work());
    QVERIFY2(cx.start(), cx.diag().constData());
    const QString threadId =
        cx.startThread(threadParams(box, {{QStringLiteral("developerInstructions"), mark}}));
    QVERIFY2(!threadId.isEmpty(), cx.diag().constData());
    QVERIFY(!cx.startTurn(threadId, QStringLiteral("hello")).isEmpty());
    QVERIFY2(cx.waitMethod("turn/completed") >= 0, cx.diag().constData());
    QVERIFY2(mock.instructionsOf(0).contains(mark), qPrintable(mock.instructionsOf(0).left(400)));
    QVERIFY(!mock.lastUserTextOf(0).contains(mark));
    QVERIFY(!mock.request(0).contains(QLatin1String("instructions"))); // 0.169.0 never sends it
    QVERIFY2(cx.finish(), cx.diag().constData());
}

void TestMockOpenAI::execWithoutApproval() {
    MockOpenAI &mock = *m_mock;
    const Sandbox &box = *m_box;
    const QString callId = mock.queueFunctionCall(
        QStringLiteral("exec_command"),
        execArgs(QStringLiteral("touch flotilla-never.txt && echo flotilla-ran")),
        QStringLiteral("call_never"));
    mock.queueText(QStringLiteral("done"));
    AppServer cx(mock, box.home(), box.work());
    QVERIFY2(cx.start(), cx.diag().constData());
    QJsonObject params = approvalPolicy("never");
    params.insert(QStringLiteral("sandbox"), QStringLiteral("workspace-write"));
    const QString threadId = cx.startThread(threadParams(box, params));
    QVERIFY(!cx.startTurn(threadId, QStringLiteral("touch it")).isEmpty());
    const int done = cx.waitMethod("turn/completed");
    QVERIFY2(done >= 0, cx.diag().constData());

    QVERIFY(QFileInfo::exists(box.work() + QStringLiteral("/flotilla-never.txt")));
    QCOMPARE(mock.requestCount(), 2);
    QVERIFY(!mock.hasFunctionCallOutput(0, callId));
    QVERIFY(mock.hasFunctionCallOutput(1, callId));
    const QString output = mock.functionCallOutputOf(1, callId);
    QVERIFY2(output.contains(QLatin1String("flotilla-ran")), qPrintable(output));
    QVERIFY2(output.contains(QLatin1String("exited with code 0")), qPrintable(output));
    const QList<QJsonObject> commands = cx.completedItems("commandExecution");
    QCOMPARE(commands.size(), 1);
    QCOMPARE(str(commands.first(), "id"), callId);
    QCOMPARE(str(commands.first(), "status"), QStringLiteral("completed"));
    QCOMPARE(commands.first().value(QLatin1String("exitCode")).toInt(-1), 0);
    QCOMPARE(str(commands.first(), "cwd"), box.work());
    QVERIFY(str(commands.first(), "command").contains(QLatin1String("touch flotilla-never.txt")));
    for (const QJsonObject &m : cx.messages())
        QVERIFY2(!isServerRequest(m), QJsonDocument(m).toJson().constData());
    QCOMPARE(str(sub(paramsOf(cx.message(done)), "turn"), "status"), QStringLiteral("completed"));
    QCOMPARE(mock.lastUserTextOf(1), QStringLiteral("touch it"));
    QVERIFY2(cx.finish(), cx.diag().constData());
}

void TestMockOpenAI::approvalDecision_data() {
    QTest::addColumn<QString>("decision");
    QTest::addColumn<bool>("runs");
    QTest::addColumn<QString>("itemStatus");
    QTest::addColumn<QString>("turnStatus");
    QTest::addColumn<int>("requests");
    QTest::newRow("accept") << QStringLiteral("accept") << true << QStringLiteral("completed")
                            << QStringLiteral("completed") << 2;
    QTest::newRow("decline") << QStringLiteral("decline") << false << QStringLiteral("declined")
                             << QStringLiteral("completed") << 2;
    QTest::newRow("cancel") << QStringLiteral("cancel") << false << QStringLiteral("declined")
                            << QStringLiteral("interrupted") << 1;
}

void TestMockOpenAI::approvalDecision() {
    QFETCH(QString, decision);
    QFETCH(bool, runs);
    QFETCH(QString, itemStatus);
    QFETCH(QString, turnStatus);
    QFETCH(int, requests);
    MockOpenAI &mock = *m_mock;
    const Sandbox &box = *m_box;
    const QString file = box.work() + QStringLiteral("/flotilla-approved.txt");
    const QString callId = mock.queueFunctionCall(
        QStringLiteral("exec_command"), execArgs(QStringLiteral("touch flotilla-approved.txt")));
    mock.queueText(QStringLiteral("after the decision"));
    AppServer cx(mock, box.home(), box.work());
    QVERIFY2(cx.start(), cx.diag().constData());
    const QString threadId = cx.startThread(
        threadParams(box, {{QStringLiteral("sandbox"), QStringLiteral("workspace-write")}}));
    const QString turnId = cx.startTurn(threadId, QStringLiteral("touch it, asking first"),
                                        approvalPolicy("untrusted"));
    QVERIFY2(!turnId.isEmpty(), cx.diag().constData());

    const int ask = cx.waitMethod("item/commandExecution/requestApproval");
    QVERIFY2(ask >= 0, cx.diag().constData());
    const QJsonObject request = cx.message(ask);
    QVERIFY(isServerRequest(request));
    const QJsonObject p = paramsOf(request);
    QCOMPARE(str(p, "threadId"), threadId);
    QCOMPARE(str(p, "turnId"), turnId);
    QCOMPARE(str(p, "itemId"), callId);
    QCOMPARE(str(p, "cwd"), box.work());
    QVERIFY(str(p, "command").contains(QLatin1String("touch flotilla-approved.txt")));
    QVERIFY(!QFileInfo::exists(file)); // nothing runs before the answer
    QCOMPARE(mock.requestCount(), 1);

    const QJsonValue requestId = request.value(QLatin1String("id"));
    cx.respond(requestId, {{QStringLiteral("decision"), decision}});
    const int resolved = cx.waitFor(
        [&](const QJsonObject &m) {
            return isMethod(m, "serverRequest/resolved") &&
                   paramsOf(m).value(QLatin1String("requestId")) == requestId;
        },
        30000, ask);
    QVERIFY2(resolved >= 0, cx.diag().constData());
    const int done = cx.waitMethod("turn/completed", 30000, resolved);
    QVERIFY2(done >= 0, cx.diag().constData());
    QCOMPARE(str(sub(paramsOf(cx.message(done)), "turn"), "status"), turnStatus);
    QCOMPARE(QFileInfo::exists(file), runs);
    QCOMPARE(mock.requestCount(), requests);
    const QList<QJsonObject> commands = cx.completedItems("commandExecution");
    QCOMPARE(commands.size(), 1);
    QCOMPARE(str(commands.first(), "id"), callId);
    QCOMPARE(str(commands.first(), "status"), itemStatus);
    if (requests > 1) {
        const QString output = mock.functionCallOutputOf(1, callId);
        QVERIFY2(output.contains(runs ? QLatin1String("exited with code 0")
                                      : QLatin1String("rejected by user")),
                 qPrintable(output));
    }
    QVERIFY2(cx.finish(), cx.diag().constData());
}

void TestMockOpenAI::interruptEndsHangingTurn() {
    MockOpenAI &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueHang();
    QSignalSpy received(&mock, &MockOpenAI::requestReceived);
    AppServer cx(mock, box.home(), box.work());
    QVERIFY2(cx.start(), cx.diag().constData());
    const QString threadId = cx.startThread(threadParams(box));
    const QString turnId = cx.startTurn(threadId, QStringLiteral("never answered"));
    QVERIFY2(!turnId.isEmpty(), cx.diag().constData());
    QVERIFY2(received.wait(30000), cx.diag().constData());

    QElapsedTimer t;
    t.start();
    const int id = cx.request("turn/interrupt", {{QStringLiteral("threadId"), threadId},
                                                 {QStringLiteral("turnId"), turnId}});
    const int answered = cx.waitFor([id](const QJsonObject &m) {
        return !m.contains(QLatin1String("method")) && m.value(QLatin1String("id")).toInt() == id;
    });
    QVERIFY2(answered >= 0, cx.diag().constData());
    QVERIFY2(cx.message(answered).contains(QLatin1String("result")), cx.diag().constData());
    const int done = cx.waitMethod("turn/completed", 10000);
    QVERIFY2(done >= 0, cx.diag().constData());
    const QJsonObject turn = sub(paramsOf(cx.message(done)), "turn");
    QCOMPARE(str(turn, "id"), turnId);
    QCOMPARE(str(turn, "status"), QStringLiteral("interrupted"));
    qInfo("interrupt: turn/completed after %lld ms", t.elapsed());
    QTRY_COMPARE_WITH_TIMEOUT(mock.abandonedResponses(), 1, 10000);
    QCOMPARE(mock.requestCount(), 1);
    QVERIFY2(cx.finish(), cx.diag().constData());
}

void TestMockOpenAI::httpError_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("times");
    QTest::addColumn<QStringList>("args");  // app-server -c overrides
    QTest::addColumn<int>("requests");      // what the pinned CLI sends for the one turn
    QTest::addColumn<int>("retryNotices");  // `error` notifications with willRetry true
    QTest::addColumn<QString>("errorInfo"); // in the final codexErrorInfo; empty: turn succeeds
    QTest::addColumn<bool>("showsMessage"); // the mock's message reaches turn.error.message
    const auto retries = [](int request, int stream) {
        return QStringList{
            QStringLiteral("-c"),
            QStringLiteral("model_providers.mock.request_max_retries=%1").arg(request),
            QStringLiteral("-c"),
            QStringLiteral("model_providers.mock.stream_max_retries=%1").arg(stream)};
    };
    // A lasting 5xx with the default retries takes 30 requests and ~25 s (see MockOpenAI.h).
    QTest::newRow("400") << 400 << 20 << QStringList() << 1 << 0 << QStringLiteral("\"other\"")
                         << true;
    QTest::newRow("429") << 429 << 20 << QStringList() << 1 << 0
                         << QStringLiteral("responseTooManyFailedAttempts") << false;
    QTest::newRow("500 no retries")
        << 500 << 20 << retries(0, 0) << 1 << 0 << QStringLiteral("internalServerError") << false;
    QTest::newRow("500 request=1 stream=1")
        << 500 << 20 << retries(1, 1) << 4 << 1 << QStringLiteral("internalServerError") << false;
    QTest::newRow("500 once, retried silently")
        << 500 << 1 << QStringList() << 2 << 0 << QString() << false;
    QTest::newRow("401 no retries")
        << 401 << 20 << retries(0, 0) << 1 << 0 << QStringLiteral("401") << true;
}

void TestMockOpenAI::httpError() {
    QFETCH(int, status);
    QFETCH(int, times);
    QFETCH(QStringList, args);
    QFETCH(int, requests);
    QFETCH(int, retryNotices);
    QFETCH(QString, errorInfo);
    QFETCH(bool, showsMessage);
    MockOpenAI &mock = *m_mock;
    const Sandbox &box = *m_box;
    const QString message = QStringLiteral("mock refuses this request");
    mock.queueError(status, message, times);
    mock.queueText(QStringLiteral("recovered"));
    AppServer cx(mock, box.home(), box.work(), args);
    QVERIFY2(cx.start(), cx.diag().constData());
    const QString threadId = cx.startThread(threadParams(box));
    QElapsedTimer t;
    t.start();
    const QString turnId = cx.startTurn(threadId, QStringLiteral("this will fail"));
    QVERIFY2(!turnId.isEmpty(), cx.diag().constData());
    const int done = cx.waitMethod("turn/completed", 30000);
    const qint64 ms = t.elapsed();
    QVERIFY2(done >= 0, cx.diag().constData());
    const QJsonObject turn = sub(paramsOf(cx.message(done)), "turn");
    const QList<QJsonObject> errors = cx.paramsWith("error");
    qInfo("HTTP %d: turn %s after %lld ms, %d request(s), %d error notification(s): %s", status,
          qPrintable(str(turn, "status")), ms, mock.requestCount(), int(errors.size()),
          QJsonDocument(sub(turn, "error")).toJson(QJsonDocument::Compact).left(300).constData());
    QCOMPARE(mock.requestCount(), requests);
    QVERIFY2(ms < 15000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
    int notices = 0;
    for (const QJsonObject &e : errors) {
        QCOMPARE(str(e, "threadId"), threadId);
        QCOMPARE(str(e, "turnId"), turnId);
        notices += e.value(QLatin1String("willRetry")).toBool() ? 1 : 0;
    }
    QCOMPARE(notices, retryNotices);
    if (errorInfo.isEmpty()) {
        QCOMPARE(str(turn, "status"), QStringLiteral("completed"));
        QCOMPARE(errors.size(), 0);
        QCOMPARE(str(cx.completedItems("agentMessage").value(0), "text"),
                 QStringLiteral("recovered"));
        QVERIFY2(cx.finish(), cx.diag().constData());
        return;
    }
    QCOMPARE(str(turn, "status"), QStringLiteral("failed"));
    QVERIFY(!errors.isEmpty());
    const QJsonObject last = errors.last();
    QCOMPARE(last.value(QLatin1String("willRetry")).toBool(true), false);
    const QByteArray info =
        QJsonDocument(QJsonArray{sub(last, "error").value(QLatin1String("codexErrorInfo"))})
            .toJson(QJsonDocument::Compact);
    QVERIFY2(info.contains(errorInfo.toUtf8()), info.constData());
    const QString turnError = str(sub(turn, "error"), "message");
    QCOMPARE(turnError, str(sub(last, "error"), "message"));
    QCOMPARE(turnError.contains(message), showsMessage);
    QVERIFY2(cx.finish(), cx.diag().constData());
}

void TestMockOpenAI::resumeAfterKill() {
    MockOpenAI &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueText(QStringLiteral("noted the word"));
    QString threadId;
    {
        AppServer first(mock, box.home(), box.work());
        QVERIFY2(first.start(), first.diag().constData());
        threadId = first.startThread(threadParams(box));
        QVERIFY(!first.startTurn(threadId, QStringLiteral("remember flotilla-word-f")).isEmpty());
        QVERIFY2(first.waitMethod("turn/completed") >= 0, first.diag().constData());
        first.kill(); // SIGKILL: whatever the CLI keeps must already be on disk
    }
    mock.queueText(QStringLiteral("the word was flotilla-word-f"));
    AppServer second(mock, box.home(), box.work());
    QVERIFY2(second.start(), second.diag().constData());
    const QJsonObject resumed = second.waitResult(
        second.request("thread/resume", {{QStringLiteral("threadId"), threadId}}));
    QVERIFY2(!resumed.isEmpty(), second.diag().constData());
    QCOMPARE(str(sub(resumed, "thread"), "id"), threadId);
    QVERIFY(!second.startTurn(threadId, QStringLiteral("which word?")).isEmpty());
    const int done = second.waitMethod("turn/completed");
    QVERIFY2(done >= 0, second.diag().constData());
    QCOMPARE(str(sub(paramsOf(second.message(done)), "turn"), "status"),
             QStringLiteral("completed"));

    QCOMPARE(mock.requestCount(), 2);
    QCOMPARE(mock.lastUserTextOf(1), QStringLiteral("which word?"));
    const QByteArray again = QJsonDocument(mock.request(1)).toJson();
    QVERIFY(again.contains("remember flotilla-word-f"));
    QVERIFY(again.contains("noted the word"));
    QVERIFY2(second.finish(), second.diag().constData());
}

void TestMockOpenAI::sessionFileWritten() {
    MockOpenAI &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueText(QStringLiteral("filed"));
    AppServer cx(mock, box.home(), box.work());
    QVERIFY2(cx.start(), cx.diag().constData());
    const QString threadId = cx.startThread(threadParams(box));
    QVERIFY(!cx.startTurn(threadId, QStringLiteral("write me down flotilla-g")).isEmpty());
    QVERIFY2(cx.waitMethod("turn/completed") >= 0, cx.diag().constData());
    QVERIFY2(cx.finish(), cx.diag().constData());

    const QString sessions = box.home() + QStringLiteral("/.codex/sessions");
    QStringList found;
    QDirIterator it(sessions, {QStringLiteral("rollout-*-") + threadId + QStringLiteral(".jsonl")},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        found << it.next();
    QVERIFY2(found.size() == 1,
             qPrintable(sessions + QStringLiteral(": ") + found.join(QLatin1Char(' '))));
    // sessions/YYYY/MM/DD/rollout-...
    const QStringList parts =
        QDir(sessions).relativeFilePath(found.first()).split(QLatin1Char('/'));
    QCOMPARE(parts.size(), 4);
    QCOMPARE(parts.at(0).size(), 4);
    QFile f(found.first());
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray data = f.readAll();
    QVERIFY(data.contains("write me down flotilla-g"));
    QVERIFY(data.contains("filed"));
    const QList<QByteArray> lines = data.trimmed().split('\n');
    for (const QByteArray &line : lines)
        QVERIFY2(QJsonDocument::fromJson(line).isObject(), line.left(200).constData());
    const QJsonObject meta = QJsonDocument::fromJson(lines.first()).object();
    QCOMPARE(str(meta, "type"), QStringLiteral("session_meta"));
    const QJsonObject payload = sub(meta, "payload");
    QCOMPARE(str(payload, "id"), threadId);
    QCOMPARE(str(payload, "cwd"), box.work());
    QCOMPARE(str(payload, "cli_version"), m_version);
    QCOMPARE(str(payload, "model_provider"), QStringLiteral("mock"));
}

QTEST_GUILESS_MAIN(TestMockOpenAI)
#include "tst_mock_openai.moc"
