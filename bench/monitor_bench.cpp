// flotilla-monitor under load, without a service: 200 agents in the real agents table (proxy,
// sort, context-bar delegate) receiving a burst of agent_updated diffs, and a long session (2,000
// turns: the user's message, a markdown reply in deltas, a tool call every 5th turn) pushed into
// a TranscriptModel shown in the real ConversationView. Reports wall time per update, time per
// turn, the time to paint and to show the agent afresh, the model's byte estimate and the RSS it
// all costs. Runs offscreen unless QT_QPA_PLATFORM says otherwise:
//   ./bench_monitor [updates=5000] [turns=2000] [deltas per reply=8]

#include "core/AgentsModel.h"
#include "core/TranscriptModel.h"
#include "ui/AgentsView.h"
#include "ui/ConversationView.h"
#include "ui/TranscriptRenderer.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QTableView>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextStream>

#include <algorithm>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using namespace flotilla::monitor;

namespace {

long peakRssKiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss; // KiB on Linux
}

long rssKiB() {
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toLong() * (sysconf(_SC_PAGESIZE) / 1024) : 0;
}

// A reply as agents write them: a paragraph, a list, now and then a fenced code block.
QString replyText(int turn) {
    QString md = QStringLiteral("Turn %1: I looked at `src/module_%2.cpp` and the failing test. "
                                "The cause is an off-by-one in the range check, fixed below.\n\n")
                     .arg(turn)
                     .arg(turn % 97);
    md += QStringLiteral("- the check now uses `<` instead of `<=`\n- a test covers the edge\n"
                         "- nothing else changes\n\n");
    if (turn % 10 == 0)
        md += QStringLiteral("```cpp\nfor (int i = 0; i < n; ++i)\n    total += v[i];\n```\n");
    return md;
}

QJsonObject chunk(const QString &text, bool streaming, qint64 ts) {
    return {{QStringLiteral("agentId"), QStringLiteral("a")},
            {QStringLiteral("text"), text},
            {QStringLiteral("isStreaming"), streaming},
            {QStringLiteral("timestamp"), ts}};
}

QJsonObject agentJson(int i) {
    static const char *classes[] = {"builder", "reviewer", "researcher", "boss"};
    return {{QStringLiteral("id"),
             QStringLiteral("00000000-0000-4000-8000-%1").arg(i, 12, 10, QLatin1Char('0'))},
            {QStringLiteral("name"), QStringLiteral("agent-%1").arg(i, 3, 10, QLatin1Char('0'))},
            {QStringLiteral("class"), QLatin1String(classes[i % 4])},
            {QStringLiteral("status"), QStringLiteral("idle")},
            {QStringLiteral("cwd"), QStringLiteral("/home/user/project-%1").arg(i % 7)},
            {QStringLiteral("provider"), QStringLiteral("claude")},
            {QStringLiteral("model"), QStringLiteral("sonnet")},
            {QStringLiteral("taskLabel"), QStringLiteral("task label %1").arg(i)},
            {QStringLiteral("currentTask"), QString()},
            {QStringLiteral("currentTool"), QString()},
            {QStringLiteral("contextUsed"), 1000 * (i % 150)},
            {QStringLiteral("contextLimit"), 200000},
            {QStringLiteral("isProcessRunning"), false},
            {QStringLiteral("isBoss"), i % 4 == 3},
            {QStringLiteral("subordinateIds"), QJsonArray()},
            {QStringLiteral("createdAt"), qint64(1700000000000) + i}};
}

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

} // namespace

int main(int argc, char *argv[]) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = QApplication::arguments();
    const int updates = args.size() > 1 ? args[1].toInt() : 5000;
    const int turns = args.size() > 2 ? args[2].toInt() : 2000;
    const int deltas = args.size() > 3 ? std::max(1, args[3].toInt()) : 8;
    QTextStream out(stdout);
    const long rssStart = peakRssKiB();

    // --- 200 agents in the real table ---
    AgentsModel agents;
    ui::AgentsView view(agents);
    view.resize(1200, 900);
    view.show();
    QApplication::processEvents();
    QJsonArray snapshot;
    for (int i = 0; i < 200; ++i)
        snapshot.append(agentJson(i));
    QElapsedTimer t;
    t.start();
    agents.applySnapshot(snapshot);
    QApplication::processEvents();
    const double snapshotMs = double(t.nsecsElapsed()) / 1e6;
    // A second identical snapshot (what every reconnect sends): must be a cheap no-op diff.
    t.restart();
    agents.applySnapshot(snapshot);
    QApplication::processEvents();
    const double resnapshotMs = double(t.nsecsElapsed()) / 1e6;

    static const char *statuses[] = {"working", "idle", "waiting_permission", "working"};
    static const char *tools[] = {"Bash", "Read", "Edit", "Grep", ""};
    std::vector<double> perUpdateUs;
    perUpdateUs.reserve(size_t(updates));
    QElapsedTimer burst;
    burst.start();
    for (int n = 0; n < updates; ++n) {
        const int i = (n * 37) % 200;
        const QString id = snapshot[i].toObject().value(QStringLiteral("id")).toString();
        QJsonObject changes{{QStringLiteral("status"), QLatin1String(statuses[n % 4])},
                            {QStringLiteral("currentTool"), QLatin1String(tools[n % 5])},
                            {QStringLiteral("contextUsed"), 1000 * ((n + i) % 190)}};
        t.restart();
        agents.applyChanges(id, changes);
        perUpdateUs.push_back(double(t.nsecsElapsed()) / 1e3);
        // The event loop runs between WebSocket messages; paint every 50 like a busy stream.
        if (n % 50 == 49)
            QApplication::processEvents();
    }
    QApplication::processEvents();
    const double burstMs = double(burst.nsecsElapsed()) / 1e6;
    t.restart();
    view.table()->viewport()->repaint();
    const double tablePaintMs = double(t.nsecsElapsed()) / 1e6;
    double sum = 0;
    for (double v : perUpdateUs)
        sum += v;

    out << "agents: 200 rows, snapshot " << snapshotMs << " ms, identical re-snapshot "
        << resnapshotMs << " ms\n";
    out << "agent_updated burst: " << updates << " updates in " << burstMs << " ms ("
        << burstMs * 1000.0 / updates << " us each incl. painting every 50); applyChanges mean "
        << sum / double(perUpdateUs.size()) << " us, p50 " << percentile(perUpdateUs, 0.5)
        << " us, p99 " << percentile(perUpdateUs, 0.99) << " us, max "
        << percentile(perUpdateUs, 1.0) << " us\n";
    out << "table repaint (200 rows, sorted, context bars): " << tablePaintMs << " ms\n";
    const long rssAgents = peakRssKiB();

    // --- a long session in the real conversation view ---
    const long rssBefore = rssKiB();
    TranscriptModel conversation;
    ui::ConversationView convView;
    convView.resize(900, 700);
    convView.setTranscript(&conversation);
    if (qEnvironmentVariableIsEmpty("BENCH_HIDE_OUTPUT"))
        convView.show();
    QApplication::processEvents();
    std::vector<double> perTurnMs;
    perTurnMs.reserve(size_t(turns));
    qint64 ts = 1700000000000;
    QElapsedTimer stream;
    stream.start();
    for (int n = 0; n < turns; ++n) {
        t.restart();
        conversation.turnStarted(QStringLiteral("question %1: why does the test fail?").arg(n),
                                 ++ts);
        if (n % 5 == 4) {
            QJsonObject use = chunk(QString(), true, ++ts);
            use.insert(QStringLiteral("toolName"), QStringLiteral("Bash"));
            use.insert(QStringLiteral("toolInput"),
                       QJsonObject{{QStringLiteral("command"), QStringLiteral("make -j2 test")}});
            conversation.appendChunk(use);
            QJsonObject result = chunk(QString(), true, ++ts);
            result.insert(QStringLiteral("toolName"), QStringLiteral("Bash"));
            result.insert(QStringLiteral("toolOutput"),
                          QStringLiteral("[ 50%] Building CXX object module.o\n").repeated(20));
            conversation.appendChunk(result);
        }
        const QString reply = replyText(n);
        const qsizetype step = reply.size() / deltas + 1;
        for (qsizetype at = 0; at < reply.size(); at += step) {
            conversation.appendChunk(chunk(reply.mid(at, step), true, ++ts));
            QApplication::processEvents(); // a WebSocket message per delta
        }
        conversation.appendChunk(chunk(QString(), false, ++ts));
        QApplication::processEvents();
        perTurnMs.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    QApplication::processEvents();
    const double streamMs = double(stream.nsecsElapsed()) / 1e6;
    const long rssAfter = rssKiB();
    t.restart();
    convView.viewport()->repaint();
    const double convPaintMs = double(t.nsecsElapsed()) / 1e6;
    const bool atBottom = convView.isFollowing();
    const int rendered = convView.renderedCount();
    const int docChars = convView.document()->characterCount();
    const qsizetype docFormats = convView.document()->allFormats().size();
    // Selecting the agent again: the document rebuilt from the model (newest entries).
    t.restart();
    convView.setTranscript(&conversation);
    QApplication::processEvents();
    const double rebuildMs = double(t.nsecsElapsed()) / 1e6;
    const qsizetype rebuiltFormats = convView.document()->allFormats().size();
    double turnSum = 0;
    for (double v : perTurnMs)
        turnSum += v;
    // One reply re-rendered whole as it streams (the view does it at most 20 times a second):
    // markdown parse, insertion and layout at the view's width.
    QString longReply;
    for (int n = 0; longReply.size() < 64 * 1024; ++n)
        longReply += replyText(n);
    const ui::TranscriptRenderer renderer(convView.font());
    QString rerenderCosts;
    for (const int kib : {4, 16, 64}) {
        TranscriptEntry reply;
        reply.text = longReply.left(kib * 1024);
        reply.streaming = true;
        QTextDocument doc;
        doc.setTextWidth(880);
        t.restart();
        for (int i = 0; i < 5; ++i) {
            doc.clear();
            QTextCursor c(&doc);
            renderer.render(c, reply);
            doc.documentLayout()->documentSize();
        }
        rerenderCosts += QStringLiteral(" %1 KiB %2 ms,")
                             .arg(kib)
                             .arg(double(t.nsecsElapsed()) / 5e6, 0, 'f', 2);
    }
    rerenderCosts.chop(1);

    out << "conversation: " << turns << " turns (" << deltas
        << " deltas per reply, event loop after each) in " << streamMs << " ms; per turn mean "
        << turnSum / double(perTurnMs.size()) << " ms, p50 " << percentile(perTurnMs, 0.5)
        << " ms, p99 " << percentile(perTurnMs, 0.99) << " ms, max " << percentile(perTurnMs, 1.0)
        << " ms\n";
    out << "model: " << conversation.rowCount() << " entries kept (max "
        << conversation.maxEntries() << ", " << conversation.droppedCount() << " dropped), "
        << conversation.bytes() / 1024 << " KiB estimated (max " << conversation.maxBytes() / 1024
        << " KiB)\n";
    out << "view: " << rendered << " entries rendered, document " << docChars << " characters, "
        << docFormats << " formats; following the tail: " << (atBottom ? "yes" : "no")
        << "; repaint " << convPaintMs << " ms; rebuild on selecting the agent " << rebuildMs
        << " ms (" << rebuiltFormats << " formats after)\n";
    out << "re-render of a streaming reply:" << rerenderCosts << "\n";
    out << "RSS: before the session " << rssBefore / 1024 << " MiB, after " << turns << " turns "
        << rssAfter / 1024 << " MiB (+" << (rssAfter - rssBefore) / 1024 << " MiB); peak "
        << peakRssKiB() / 1024 << " MiB (start " << rssStart / 1024 << ", after agents "
        << rssAgents / 1024 << ")\n";
    return 0;
}
