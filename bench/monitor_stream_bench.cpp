// flotilla-monitor as a daily driver: 50 agents streaming at once into the real
// monitor. A real flotillad (child process, temp HOME and data dir) runs 50 agents, each the
// real Claude Code CLI (the pinned one) against MockAnthropic in this process, which streams
// every turn as text deltas at a scripted pace. The monitor side is the real MonitorSession
// (REST + WebSocket through ServiceClient, the same event handlers as the app) feeding the real
// AgentsView (table shown) and one agent's ConversationView (900 x 700, shown, following the
// tail). The shown agent's turn streams fast (--fast-rate); while it streams, every other agent
// streams at --rate.
//
// Measured in this process over the stream: CPU time (getrusage utime + stime) against wall
// time, RSS (/proc/self/statm) before and after, frames of the conversation view (paint events
// on its viewport) per second while its reply streams, and how many `output` messages per second
// arrived. flotillad's CPU is read from /proc for context (the 50 CLI processes take the rest of
// the two cores, which touches the wall clock, not the monitor's CPU seconds). Offscreen unless
// QT_QPA_PLATFORM says otherwise:
//   ./bench_monitor_stream [--agents 50] [--rate 20] [--fast-rate 200] [--seconds 10]
// (rate: text deltas per second of each agent's reply; fast-rate: the shown agent's).

#include "core/MonitorSession.h"
#include "protocol/WireNames.h"
#include "support/MockAnthropic.h"
#include "ui/AgentsView.h"
#include "ui/ConversationView.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <functional>
#include <sys/resource.h>
#include <unistd.h>

using namespace flotilla::monitor;
namespace k = flotilla::wire::key;
namespace m = flotilla::wire::msg;

namespace {

// A reply as agents write them, cut into deltas of about 24 characters.
const QString &replyTemplate() {
    static const QString text = QStringLiteral(
        "I looked at `src/module.cpp` and the failing test. The cause is an off-by-one in the "
        "range check, fixed below.\n\n- the check now uses `<` instead of `<=`\n- a test covers "
        "the edge\n- nothing else changes\n\n```cpp\nfor (int i = 0; i < n; ++i)\n    total += "
        "v[i];\n```\n\nThe build passes and **all 214 tests** pass again.\n\n");
    return text;
}

// `count` deltas of the reply template (repeated), about 24 characters each.
QStringList replyPieces(int count) {
    QStringList pieces;
    const QString &text = replyTemplate();
    int at = 0;
    while (pieces.size() < count) {
        pieces << text.mid(at, 24);
        at = (at + 24) % int(text.size());
    }
    return pieces;
}

// --- driver ------------------------------------------------------------------------------------

double cpuSecondsSelf() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// utime + stime of another process, from /proc/<pid>/stat.
double cpuSecondsOf(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray stat = f.readAll();
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 13)
        return 0;
    return double(fields[11].toLongLong() + fields[12].toLongLong()) / double(sysconf(_SC_CLK_TCK));
}

long rssKiB() {
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toLong() * (sysconf(_SC_PAGESIZE) / 1024) : 0;
}

long peakRssKiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

bool waitUntil(const std::function<bool()> &done, int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QEventLoop idle; // sleeps in the event loop: the monitor's own work still runs
        QTimer::singleShot(20, &idle, &QEventLoop::quit);
        idle.exec();
    }
    return true;
}

// Counts the paint events of a widget: the frames it drew.
class PaintCounter final : public QObject {
public:
    using QObject::QObject;
    int paints = 0;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override {
        if (event->type() == QEvent::Paint)
            ++paints;
        return QObject::eventFilter(watched, event);
    }
};

// What the monitor received over its WebSocket, per agent.
struct Received {
    int outputMessages = 0;
    qint64 characters = 0;
    int finals = 0;
    qint64 firstMs = -1; // of the measured turn, on the wall clock below
    qint64 finalMs = -1;
    int framesAtFirst = 0; // the conversation view's paints when its first and final chunk came
    int framesAtFinal = 0;
};

} // namespace

int main(int argc, char *argv[]) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOptions({{QStringLiteral("agents"), QStringLiteral("agents"), QStringLiteral("n"),
                        QStringLiteral("50")},
                       {QStringLiteral("rate"), QStringLiteral("deltas/s per agent"),
                        QStringLiteral("n"), QStringLiteral("20")},
                       {QStringLiteral("fast-rate"), QStringLiteral("deltas/s of the shown agent"),
                        QStringLiteral("n"), QStringLiteral("200")},
                       {QStringLiteral("seconds"), QStringLiteral("length of the stream"),
                        QStringLiteral("s"), QStringLiteral("10")}});
    parser.process(app);
    const int agents = qMax(1, parser.value(QStringLiteral("agents")).toInt());
    const int rate = qMax(1, parser.value(QStringLiteral("rate")).toInt());
    const int fastRate = qMax(1, parser.value(QStringLiteral("fast-rate")).toInt());
    const int seconds = qMax(1, parser.value(QStringLiteral("seconds")).toInt());
    QTextStream out(stdout);
    QTextStream err(stderr);

    // The mock model and the service, whose agents run the real CLI against it.
    flotilla::test::MockAnthropic mock;
    if (!mock.start()) {
        err << "the mock model did not start\n";
        return 2;
    }
    QTemporaryDir tmp;
    const QString home = tmp.filePath(QStringLiteral("home"));
    const QString cwd = tmp.filePath(QStringLiteral("project"));
    QDir().mkpath(home);
    QDir().mkpath(cwd);
    QProcessEnvironment env = mock.claudeEnvironment(home);
    // Agents unconfined, as these numbers have always been taken (bench_sandbox measures the
    // sandbox).
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
    env.insert(QStringLiteral("FLOTILLA_CLAUDE_BIN"),
               flotilla::test::MockAnthropic::claudeBinary());
    env.remove(QStringLiteral("AUTH_TOKEN"));
    env.remove(QStringLiteral("FLOTILLA_PORT"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    QProcess service;
    service.setProcessEnvironment(env);
    service.start(QStringLiteral(FLOTILLAD_PATH),
                  {QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--data-dir"),
                   tmp.filePath(QStringLiteral("data"))});
    QByteArray serviceErr;
    quint16 port = 0;
    static const QRegularExpression listening(QStringLiteral("listening on \\S+:(\\d+)"));
    waitUntil(
        [&] {
            serviceErr += service.readAllStandardError();
            const auto match = listening.match(QString::fromUtf8(serviceErr));
            if (match.hasMatch())
                port = quint16(match.captured(1).toUInt());
            return port != 0 || service.state() == QProcess::NotRunning;
        },
        10000);
    if (port == 0) {
        err << "flotillad did not start: " << serviceErr << "\n";
        return 2;
    }

    // The monitor: the real session, the table and one conversation shown.
    MonitorSession session;
    QHash<QString, Received> received;
    bool measuring = false;
    QElapsedTimer wall;
    PaintCounter conversationPaints;
    PaintCounter tablePaints;
    QObject::connect(&session.client(), &flotilla::client::ServiceClient::eventReceived, &session,
                     [&](const QString &type, const QJsonValue &payload) {
                         if (type != QLatin1String(m::Output))
                             return;
                         const QJsonObject chunk = payload.toObject();
                         Received &r = received[chunk.value(k::AgentId).toString()];
                         const bool final = !chunk.value(k::IsStreaming).toBool(true);
                         r.finals += final ? 1 : 0;
                         if (!measuring)
                             return;
                         ++r.outputMessages;
                         r.characters += chunk.value(k::Text).toString().size();
                         if (r.firstMs < 0) {
                             r.firstMs = wall.elapsed();
                             r.framesAtFirst = conversationPaints.paints;
                         }
                         if (final) {
                             r.finalMs = wall.elapsed();
                             r.framesAtFinal = conversationPaints.paints;
                         }
                     });
    session.open({QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)), {}});
    if (!waitUntil(
            [&] {
                return session.client().state() == flotilla::client::ConnectionState::Connected;
            },
            10000)) {
        err << "the monitor did not connect\n";
        return 2;
    }
    for (int a = 0; a < agents; ++a)
        session.createAgent(
            {{QStringLiteral("name"), QStringLiteral("agent-%1").arg(a, 2, 10, QLatin1Char('0'))},
             {QStringLiteral("cwd"), cwd}});
    if (!waitUntil([&] { return session.agents().agentIds().size() == agents; }, 30000)) {
        err << "agents were not created\n";
        return 2;
    }
    const QStringList ids = session.agents().agentIds();
    // One scripted turn per message, in the order the CLIs' requests reach the mock.
    const auto send = [&](const QString &id, int deltas, int perSecond) {
        mock.queueDeltas(replyPieces(deltas), 1000 / perSecond);
        const int before = mock.requestCount();
        session.sendMessage(id, QStringLiteral("go on"));
        // The next turn is queued only once this agent's request took this one.
        waitUntil([&] { return mock.requestCount() > before; }, 30000);
    };
    const auto allFinals = [&](int n) {
        for (const QString &id : std::as_const(ids)) {
            if (received.value(id).finals < n)
                return false;
        }
        return true;
    };
    // Warm-up: every agent's CLI process started before anything is measured.
    for (int a = 0; a < agents; ++a)
        mock.queueText(QStringLiteral("ready"), 1);
    for (const QString &id : std::as_const(ids))
        session.sendMessage(id, QStringLiteral("hello"));
    if (!waitUntil([&] { return allFinals(1); }, 300000)) {
        err << "the warm-up turns did not end\n";
        return 2;
    }

    const QString shown = ids.first();
    ui::AgentsView table(session.agents());
    table.resize(1000, 700);
    table.show();
    table.selectAgent(shown);
    ui::ConversationView conversation;
    conversation.resize(900, 700);
    conversation.setTranscript(&session.conversation(shown));
    conversation.show();
    conversation.viewport()->installEventFilter(&conversationPaints);
    table.table()->viewport()->installEventFilter(&tablePaints);
    waitUntil([] { return false; }, 500); // settle: first paints, pending events
    conversationPaints.paints = 0;
    tablePaints.paints = 0;

    // The measured stream: the shown agent at `fastRate` first, then every other at `rate`, all
    // for `seconds`.
    const long rssBefore = rssKiB();
    const double cpuBefore = cpuSecondsSelf();
    const double serviceCpuBefore = cpuSecondsOf(service.processId());
    measuring = true;
    wall.start();
    send(shown, fastRate * seconds, fastRate);
    for (const QString &id : std::as_const(ids)) {
        if (id != shown)
            send(id, rate * seconds, rate);
    }
    const bool complete = waitUntil([&] { return allFinals(2); }, seconds * 1000 * 4 + 60000);
    const double wallS = double(wall.nsecsElapsed()) / 1e9;
    const double cpuS = cpuSecondsSelf() - cpuBefore;
    const double serviceCpuS = cpuSecondsOf(service.processId()) - serviceCpuBefore;
    measuring = false;
    const int framesInWindow = conversationPaints.paints;
    const int tableFrames = tablePaints.paints;
    // The view renders a streaming reply with a delay: let it settle before reading its state.
    waitUntil([] { return false; }, 1500);
    const long rssAfter = rssKiB();

    int messages = 0;
    qint64 characters = 0;
    for (const Received &r : std::as_const(received)) {
        messages += r.outputMessages;
        characters += r.characters;
    }
    const Received fast = received.value(shown);
    const double fastS = double(fast.finalMs - fast.firstMs) / 1000.0;
    const int framesInStream = fast.framesAtFinal - fast.framesAtFirst;
    const int cliDeltas = (agents - 1) * rate * seconds + fastRate * seconds; // the mock's
    const TranscriptModel &shownModel = session.conversation(shown);
    const QString lastReply =
        shownModel.rowCount() > 0 ? shownModel.entry(shownModel.rowCount() - 1).text : QString();

    out << "stream: " << agents << " agents x " << rate << " deltas/s, the shown one " << fastRate
        << " deltas/s, " << seconds << " s; " << (complete ? "every turn ended" : "INCOMPLETE")
        << " in " << wallS << " s\n";
    out << "fed: " << cliDeltas << " CLI deltas (" << double(cliDeltas) / wallS << "/s) arrived as "
        << messages << " output messages (" << double(messages) / wallS << "/s, "
        << characters / 1024 << " KiB of text); the shown agent: " << fast.outputMessages
        << " messages over " << fastS << " s (" << double(fast.outputMessages) / qMax(0.001, fastS)
        << "/s), reply " << lastReply.size() / 1024 << " KiB\n";
    out << "monitor CPU: " << cpuS << " s over " << wallS << " s wall = " << 100.0 * cpuS / wallS
        << " % of one core; flotillad " << 100.0 * serviceCpuS / wallS << " %\n";
    out << "conversation view: " << framesInStream
        << " frames = " << double(framesInStream) / qMax(0.001, fastS)
        << " fps while its reply streamed (" << framesInWindow << " in the whole window); table "
        << tableFrames << " frames = " << double(tableFrames) / wallS
        << " fps; following the tail: " << (conversation.isFollowing() ? "yes" : "no") << "\n";
    out << "RSS: " << rssBefore / 1024 << " MiB before the stream, " << rssAfter / 1024
        << " MiB after (" << (rssAfter - rssBefore) / 1024 << " MiB more); peak "
        << peakRssKiB() / 1024 << " MiB\n";
    out.flush();

    session.close();
    service.terminate();
    service.waitForFinished(10000);
    return complete ? 0 : 1;
}
