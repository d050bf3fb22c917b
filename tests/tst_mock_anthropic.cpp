// The mock Anthropic API against the real, pinned `claude` CLI (run directly with QProcess, not
// through the service): streamed text, the appended system prompt, a tool round trip, HTTP
// errors, several turns in one process, --resume and the session file. Every agent test builds
// on these facts, so they are checked here first.

#include "support/MockAnthropic.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using flotilla::test::MockAnthropic;
Q_DECLARE_METATYPE(MockAnthropic::Retry)

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// One `claude -p` in stream-json mode: stdout parsed line by line into events.
class Claude final {
public:
    Claude(const MockAnthropic &mock, const QString &home, const QString &cwd,
           const QStringList &extraArgs = {}) {
        m_process.setProcessEnvironment(mock.claudeEnvironment(home));
        m_process.setWorkingDirectory(cwd);
        m_process.setProgram(MockAnthropic::claudeBinary());
        m_process.setArguments(
            QStringList{QStringLiteral("-p"), QStringLiteral("--output-format"),
                        QStringLiteral("stream-json"), QStringLiteral("--input-format"),
                        QStringLiteral("stream-json"), QStringLiteral("--verbose"),
                        QStringLiteral("--include-partial-messages")} +
            extraArgs);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process,
                         [this] { readOut(); });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { m_err += m_process.readAllStandardError(); });
    }
    ~Claude() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    void setEnv(const QString &key, const QString &value) {
        QProcessEnvironment env = m_process.processEnvironment();
        env.insert(key, value);
        m_process.setProcessEnvironment(env);
    }
    bool start() {
        m_process.start();
        return m_process.waitForStarted(10000);
    }
    void send(const QString &text) {
        const QJsonObject message{{QStringLiteral("role"), QStringLiteral("user")},
                                  {QStringLiteral("content"), text}};
        const QJsonObject line{{QStringLiteral("type"), QStringLiteral("user")},
                               {QStringLiteral("message"), message}};
        m_process.write(QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
    }
    // Stops the turn in flight the way an SDK host does: a control_request on stdin.
    void interrupt() {
        const QJsonObject line{
            {QStringLiteral("type"), QStringLiteral("control_request")},
            {QStringLiteral("request_id"), QStringLiteral("interrupt-1")},
            {QStringLiteral("request"),
             QJsonObject{{QStringLiteral("subtype"), QStringLiteral("interrupt")}}}};
        m_process.write(QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
    }
    // Closes stdin (the CLI then exits after the current turn) and waits for the exit.
    bool finish(int timeoutMs = 30000) {
        m_process.closeWriteChannel();
        return QTest::qWaitFor([this] { return m_process.state() == QProcess::NotRunning; },
                               timeoutMs);
    }

    // Index of the first event at or after `from` matching `pred`, waiting up to timeoutMs; -1.
    int waitFor(const std::function<bool(const QJsonObject &)> &pred, int timeoutMs = 60000,
                int from = 0) {
        int found = -1;
        const auto scan = [&] {
            readOut(); // also catches lines still unread when the process exited
            for (int i = from; found < 0 && i < m_events.size(); ++i)
                found = pred(m_events.at(i)) ? i : -1;
            return found >= 0;
        };
        (void)QTest::qWaitFor([&] { return scan() || m_process.state() == QProcess::NotRunning; },
                              timeoutMs);
        return scan() ? found : -1;
    }

    QJsonObject event(int i) const { return m_events.value(i); }
    // Events whose `key` ("type", "subtype") is `value`.
    QList<QJsonObject> matching(const char *key, const char *value) const {
        QList<QJsonObject> out;
        for (const QJsonObject &o : m_events)
            if (str(o, key) == QLatin1String(value))
                out << o;
        return out;
    }
    QString sessionId() const {
        for (const QJsonObject &o : m_events)
            if (str(o, "type") == QLatin1String("system") &&
                str(o, "subtype") == QLatin1String("init"))
                return str(o, "session_id");
        return {};
    }
    // For failure messages: stderr and the last stdout lines.
    QByteArray diag() const {
        QByteArray out = "\n--- stderr:\n" + m_err.right(2000) + "\n--- last stdout lines:\n";
        for (qsizetype i = qMax<qsizetype>(0, m_raw.size() - 8); i < m_raw.size(); ++i)
            out += m_raw.at(i).left(600) + '\n';
        return out;
    }

private:
    void readOut() {
        m_buffer += m_process.readAllStandardOutput();
        qsizetype nl;
        while ((nl = m_buffer.indexOf('\n')) >= 0) {
            const QByteArray line = m_buffer.left(nl).trimmed();
            m_buffer.remove(0, nl + 1);
            if (line.isEmpty())
                continue;
            m_raw << line;
            m_events << QJsonDocument::fromJson(line).object();
        }
    }

    QProcess m_process;
    QByteArray m_buffer;
    QByteArray m_err;
    QList<QByteArray> m_raw;
    QList<QJsonObject> m_events;
};

// A temporary HOME and working directory for one CLI run.
struct Sandbox {
    QTemporaryDir dir;
    QString home() const { return dir.path() + QStringLiteral("/home"); }
    QString work() const { return dir.path() + QStringLiteral("/work"); }
    bool make() const { return dir.isValid() && QDir().mkpath(home()) && QDir().mkpath(work()); }
};

// message.content of an assistant or user event.
QJsonArray blocksOf(const QJsonObject &event) {
    return event.value(QLatin1String("message"))
        .toObject()
        .value(QLatin1String("content"))
        .toArray();
}

bool isResult(const QJsonObject &o) {
    return str(o, "type") == QLatin1String("result");
}

bool isTextDelta(const QJsonObject &o) {
    const QJsonObject ev = o.value(QLatin1String("event")).toObject();
    return str(o, "type") == QLatin1String("stream_event") &&
           str(ev.value(QLatin1String("delta")).toObject(), "type") == QLatin1String("text_delta");
}

} // namespace

class TestMockAnthropic : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void textTurnStreams();
    void appendedSystemPromptReachesServer();
    void toolRoundTrip();
    void httpErrorEndsTurn_data();
    void httpErrorEndsTurn();
    void retriedErrorThenText();
    void pacedStreamThenInterruptedHang();
    void twoMessagesTwoTurns();
    void resumeSendsEarlierMessages();
    void sessionFileWritten();

private:
    std::unique_ptr<MockAnthropic> m_mock; // fresh for every test function and data row
    std::unique_ptr<Sandbox> m_box;
};

void TestMockAnthropic::initTestCase() {
    const QString bin = MockAnthropic::claudeBinary();
    QVERIFY2(QFileInfo(bin).isExecutable(),
             qPrintable(QStringLiteral("The pinned Claude Code CLI is missing at %1: run "
                                       "scripts/install-claude.sh (or scripts/install-deps.sh)")
                            .arg(bin)));
}

void TestMockAnthropic::init() {
    m_mock = std::make_unique<MockAnthropic>();
    QVERIFY(m_mock->start());
    m_box = std::make_unique<Sandbox>();
    QVERIFY(m_box->make());
}

void TestMockAnthropic::cleanup() {
    m_mock.reset();
    m_box.reset();
}

void TestMockAnthropic::textTurnStreams() {
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    const QString text = QStringLiteral("Hello from the mock, streamed in pieces.");
    mock.queueText(text, 4);
    mock.setUsage(1200, 34, 5000, 600);
    Claude claude(mock, box.home(), box.work());
    QVERIFY(claude.start());
    claude.send(QStringLiteral("say hi flotilla-a"));
    const int r = claude.waitFor(isResult);
    QVERIFY2(r >= 0, claude.diag().constData());

    QVERIFY2(!claude.sessionId().isEmpty(), claude.diag().constData());
    QString streamed;
    int deltas = 0;
    for (const QJsonObject &o : claude.matching("type", "stream_event")) {
        const QJsonObject ev = o.value(QLatin1String("event")).toObject();
        const QJsonObject delta = ev.value(QLatin1String("delta")).toObject();
        if (str(ev, "type") == QLatin1String("content_block_delta") &&
            str(delta, "type") == QLatin1String("text_delta")) {
            ++deltas;
            streamed += str(delta, "text");
        }
    }
    QVERIFY2(deltas >= 3, claude.diag().constData());
    QCOMPARE(streamed, text);
    const QList<QJsonObject> assistants = claude.matching("type", "assistant");
    QVERIFY(!assistants.isEmpty());
    QCOMPARE(str(blocksOf(assistants.last()).first().toObject(), "text"), text);
    const QJsonObject result = claude.event(r);
    QCOMPARE(str(result, "subtype"), QStringLiteral("success"));
    QCOMPARE(result.value(QLatin1String("is_error")).toBool(true), false);
    QCOMPARE(str(result, "result"), text);
    QCOMPARE(str(result, "session_id"), claude.sessionId());
    const QJsonObject usage = result.value(QLatin1String("usage")).toObject();
    QCOMPARE(usage.value(QLatin1String("input_tokens")).toInt(), 1200);
    QCOMPARE(usage.value(QLatin1String("output_tokens")).toInt(), 34);
    QCOMPARE(usage.value(QLatin1String("cache_read_input_tokens")).toInt(), 5000);
    QCOMPARE(usage.value(QLatin1String("cache_creation_input_tokens")).toInt(), 600);

    QCOMPARE(mock.requestCount(), 1); // one request per turn, nothing else
    QCOMPARE(mock.otherRequests().size(), 0);
    QCOMPARE(mock.unscriptedRequests(), 0);
    QVERIFY2(mock.lastUserTextOf(0).endsWith(QLatin1String("say hi flotilla-a")),
             qPrintable(mock.lastUserTextOf(0)));
    QVERIFY(mock.request(0).value(QLatin1String("stream")).toBool());
    QVERIFY(claude.finish());
}

void TestMockAnthropic::appendedSystemPromptReachesServer() {
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueText(QStringLiteral("ok"));
    const QString mark = QStringLiteral("FLOTILLA-MARK-7f3a: you are agent b.");
    Claude claude(mock, box.home(), box.work(), {QStringLiteral("--append-system-prompt"), mark});
    QVERIFY(claude.start());
    QSignalSpy received(&mock, &MockAnthropic::requestReceived);
    claude.send(QStringLiteral("hello"));
    QVERIFY2(received.wait(60000), claude.diag().constData());
    QVERIFY2(mock.systemPromptOf(0).contains(mark), qPrintable(mock.systemPromptOf(0).right(400)));
    QVERIFY(!mock.lastUserTextOf(0).contains(mark)); // it is the system prompt, not the message
    QVERIFY2(claude.waitFor(isResult) >= 0, claude.diag().constData());
    QVERIFY(claude.finish());
}

void TestMockAnthropic::toolRoundTrip() {
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    const QString id =
        mock.queueToolUse(QStringLiteral("Bash"),
                          {{QStringLiteral("command"), QStringLiteral("echo flotilla-tool-ok")},
                           {QStringLiteral("description"), QStringLiteral("test")}});
    mock.queueText(QStringLiteral("done"));
    Claude claude(mock, box.home(), box.work());
    QVERIFY(claude.start());
    claude.send(QStringLiteral("run the echo"));
    const int r = claude.waitFor(isResult);
    QVERIFY2(r >= 0, claude.diag().constData());

    bool sawToolUse = false;
    for (const QJsonObject &o : claude.matching("type", "assistant")) {
        const QJsonArray blocks = blocksOf(o);
        for (const QJsonValue &b : blocks)
            sawToolUse |= str(b.toObject(), "type") == QLatin1String("tool_use") &&
                          str(b.toObject(), "id") == id &&
                          str(b.toObject(), "name") == QLatin1String("Bash");
    }
    QVERIFY2(sawToolUse, claude.diag().constData());
    bool sawResult = false;
    for (const QJsonObject &o : claude.matching("type", "user")) {
        const QJsonArray blocks = blocksOf(o);
        for (const QJsonValue &b : blocks) {
            const QJsonObject block = b.toObject();
            const QByteArray content =
                QJsonDocument(QJsonArray{block.value(QLatin1String("content"))}).toJson();
            sawResult |= str(block, "type") == QLatin1String("tool_result") &&
                         str(block, "tool_use_id") == id && content.contains("flotilla-tool-ok");
        }
    }
    QVERIFY2(sawResult, claude.diag().constData());
    QCOMPARE(str(claude.event(r), "subtype"), QStringLiteral("success"));
    QCOMPARE(str(claude.event(r), "result"), QStringLiteral("done"));

    QCOMPARE(mock.requestCount(), 2);
    QVERIFY(!mock.hasToolResult(0));
    QVERIFY(mock.hasToolResult(1, id));
    QVERIFY2(mock.toolResultTextOf(1, id).contains(QLatin1String("flotilla-tool-ok")),
             qPrintable(mock.toolResultTextOf(1, id)));
    QCOMPARE(mock.unscriptedRequests(), 0);
    QVERIFY(claude.finish());
}

void TestMockAnthropic::httpErrorEndsTurn_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("type");
    QTest::addColumn<MockAnthropic::Retry>("retry");
    QTest::addColumn<int>("maxRetries"); // CLAUDE_CODE_MAX_RETRIES, -1: unset
    QTest::addColumn<int>("requests");   // what the pinned CLI sends for the one turn
    using R = MockAnthropic::Retry;
    // 401/429/5xx without a hint would be retried for about 3 minutes (see MockAnthropic.h).
    QTest::newRow("400") << 400 << QStringLiteral("invalid_request_error") << R::CliDecides << -1
                         << 6;
    QTest::newRow("403") << 403 << QStringLiteral("permission_error") << R::CliDecides << -1 << 1;
    QTest::newRow("401 no-retry") << 401 << QStringLiteral("authentication_error") << R::No << -1
                                  << 1;
    QTest::newRow("500 no-retry") << 500 << QStringLiteral("api_error") << R::No << -1 << 1;
    QTest::newRow("529 max-retries=1")
        << 529 << QStringLiteral("overloaded_error") << R::CliDecides << 1 << 2;
}

void TestMockAnthropic::httpErrorEndsTurn() {
    QFETCH(int, status);
    QFETCH(QString, type);
    QFETCH(MockAnthropic::Retry, retry);
    QFETCH(int, maxRetries);
    QFETCH(int, requests);
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    const QString message = QStringLiteral("mock refuses this request");
    mock.queueError(status, type, message, 20, retry);
    Claude claude(mock, box.home(), box.work());
    if (maxRetries >= 0)
        claude.setEnv(QStringLiteral("CLAUDE_CODE_MAX_RETRIES"), QString::number(maxRetries));
    QVERIFY(claude.start());
    QElapsedTimer t;
    t.start();
    claude.send(QStringLiteral("this will fail"));
    const int r = claude.waitFor(isResult, 60000);
    const qint64 ms = t.elapsed();
    QVERIFY2(r >= 0, claude.diag().constData());
    const QJsonObject result = claude.event(r);
    qInfo("HTTP %d: result after %lld ms, %d request(s), %d api_retry line(s); subtype %s: %s",
          status, ms, mock.requestCount(), int(claude.matching("subtype", "api_retry").size()),
          qPrintable(str(result, "subtype")), qPrintable(str(result, "result").left(120)));
    QVERIFY2(result.value(QLatin1String("is_error")).toBool(), claude.diag().constData());
    QVERIFY2(str(result, "result").contains(message), qPrintable(str(result, "result")));
    QCOMPARE(mock.requestCount(), requests);
    QCOMPARE(int(claude.matching("subtype", "api_retry").size()), qMax(0, maxRetries));
    QVERIFY2(ms < 15000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
    QVERIFY(claude.finish());
}

void TestMockAnthropic::retriedErrorThenText() {
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueError(529, QStringLiteral("overloaded_error"), QStringLiteral("busy"));
    mock.queueText(QStringLiteral("recovered"));
    Claude claude(mock, box.home(), box.work());
    QVERIFY(claude.start());
    claude.send(QStringLiteral("try twice"));
    const int r = claude.waitFor(isResult);
    QVERIFY2(r >= 0, claude.diag().constData());
    QCOMPARE(str(claude.event(r), "subtype"), QStringLiteral("success"));
    QCOMPARE(str(claude.event(r), "result"), QStringLiteral("recovered"));
    const QList<QJsonObject> retries = claude.matching("subtype", "api_retry");
    QCOMPARE(retries.size(), 1);
    QCOMPARE(retries.first().value(QLatin1String("error_status")).toInt(), 529);
    QCOMPARE(mock.requestCount(), 2);
    QCOMPARE(mock.request(1).value(QLatin1String("messages")),
             mock.request(0).value(QLatin1String("messages")));
    QVERIFY(claude.finish());
}

void TestMockAnthropic::pacedStreamThenInterruptedHang() {
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueText(QStringLiteral("one two three four five"), 5, 150);
    mock.queueHang();
    QSignalSpy finished(&mock, &MockAnthropic::responseFinished);
    QSignalSpy received(&mock, &MockAnthropic::requestReceived);
    Claude claude(mock, box.home(), box.work());
    QVERIFY(claude.start());
    claude.send(QStringLiteral("slowly"));
    // The first delta reaches stdout while the mock is still writing the answer.
    QVERIFY2(claude.waitFor(isTextDelta) >= 0, claude.diag().constData());
    QCOMPARE(finished.size(), 0);
    const int r1 = claude.waitFor(isResult);
    QVERIFY2(r1 >= 0, claude.diag().constData());
    QCOMPARE(finished.size(), 1);
    QCOMPARE(str(claude.event(r1), "result"), QStringLiteral("one two three four five"));

    claude.send(QStringLiteral("never answered"));
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), 2, 60000);
    QElapsedTimer t;
    t.start();
    claude.interrupt();
    const int r2 = claude.waitFor(isResult, 30000, r1 + 1);
    QVERIFY2(r2 >= 0, claude.diag().constData());
    qInfo("interrupt: result after %lld ms: subtype %s, is_error %d", t.elapsed(),
          qPrintable(str(claude.event(r2), "subtype")),
          int(claude.event(r2).value(QLatin1String("is_error")).toBool()));
    QTRY_COMPARE_WITH_TIMEOUT(mock.abandonedResponses(), 1, 10000);
    QCOMPARE(mock.requestCount(), 2);
    QVERIFY(claude.finish());
}

void TestMockAnthropic::twoMessagesTwoTurns() {
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueText(QStringLiteral("first answer"));
    mock.queueText(QStringLiteral("second answer"));
    Claude claude(mock, box.home(), box.work());
    QVERIFY(claude.start());
    claude.send(QStringLiteral("first question"));
    const int r1 = claude.waitFor(isResult);
    QVERIFY2(r1 >= 0, claude.diag().constData());
    QCOMPARE(str(claude.event(r1), "result"), QStringLiteral("first answer"));
    claude.send(QStringLiteral("second question"));
    const int r2 = claude.waitFor(isResult, 60000, r1 + 1);
    QVERIFY2(r2 >= 0, claude.diag().constData());
    QCOMPARE(str(claude.event(r2), "result"), QStringLiteral("second answer"));
    QCOMPARE(str(claude.event(r2), "session_id"), str(claude.event(r1), "session_id"));

    QCOMPARE(mock.requestCount(), 2);
    QVERIFY(mock.lastUserTextOf(1).endsWith(QLatin1String("second question")));
    const QByteArray second = QJsonDocument(mock.request(1)).toJson();
    QVERIFY(second.contains("first question"));
    QVERIFY(second.contains("first answer"));
    QVERIFY(claude.finish());
}

void TestMockAnthropic::resumeSendsEarlierMessages() {
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueText(QStringLiteral("noted the word"));
    QString session;
    {
        Claude first(mock, box.home(), box.work());
        QVERIFY(first.start());
        first.send(QStringLiteral("remember flotilla-word-f"));
        QVERIFY2(first.waitFor(isResult) >= 0, first.diag().constData());
        session = first.sessionId();
        QVERIFY(!session.isEmpty());
        QVERIFY2(first.finish(), first.diag().constData());
    }
    mock.queueText(QStringLiteral("the word was flotilla-word-f"));
    Claude second(mock, box.home(), box.work(), {QStringLiteral("--resume"), session});
    QVERIFY(second.start());
    second.send(QStringLiteral("which word?"));
    const int r = second.waitFor(isResult);
    QVERIFY2(r >= 0, second.diag().constData());
    QCOMPARE(str(second.event(r), "subtype"), QStringLiteral("success"));
    qInfo("resumed session id: %s (was %s)", qPrintable(str(second.event(r), "session_id")),
          qPrintable(session));

    QCOMPARE(mock.requestCount(), 2);
    QVERIFY(mock.lastUserTextOf(1).endsWith(QLatin1String("which word?")));
    const QByteArray resumed = QJsonDocument(mock.request(1)).toJson();
    QVERIFY(resumed.contains("remember flotilla-word-f"));
    QVERIFY(resumed.contains("noted the word"));
    QVERIFY(second.finish());
}

void TestMockAnthropic::sessionFileWritten() {
    MockAnthropic &mock = *m_mock;
    const Sandbox &box = *m_box;
    mock.queueText(QStringLiteral("filed"));
    Claude claude(mock, box.home(), box.work());
    QVERIFY(claude.start());
    claude.send(QStringLiteral("write me down flotilla-g"));
    QVERIFY2(claude.waitFor(isResult) >= 0, claude.diag().constData());
    const QString session = claude.sessionId();
    QVERIFY(claude.finish());

    // Claude Code names the project directory after the cwd, every non-alphanumeric -> '-'.
    QString encoded = box.work();
    encoded.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9]")), QStringLiteral("-"));
    const QString projects = box.home() + QStringLiteral("/.claude/projects");
    const QString path = projects + QLatin1Char('/') + encoded + QLatin1Char('/') + session +
                         QStringLiteral(".jsonl");
    QVERIFY2(QFileInfo::exists(path),
             qPrintable(path + QStringLiteral(" missing; projects holds: ") +
                        QDir(projects)
                            .entryList(QDir::NoDotAndDotDot | QDir::AllEntries)
                            .join(QLatin1Char(' '))));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray data = f.readAll();
    QVERIFY(data.contains("write me down flotilla-g"));
    QVERIFY(data.contains("filed"));
    for (const QByteArray &line : data.split('\n')) {
        if (!line.trimmed().isEmpty())
            QVERIFY2(QJsonDocument::fromJson(line).isObject(), line.left(200).constData());
    }
}

QTEST_GUILESS_MAIN(TestMockAnthropic)
#include "tst_mock_anthropic.moc"
