// flotilla-monitor under load, without a service: 200 agents in the real agents table (proxy,
// sort, context-bar delegate) receiving a burst of agent_updated diffs, and 10,000 output lines
// streamed into an OutputModel shown in the real OutputView. Reports wall time per update, time
// to append the lines, the time to paint, and peak RSS. Runs offscreen unless QT_QPA_PLATFORM
// says otherwise:  ./bench_monitor [updates=5000] [lines=10000]

#include "core/AgentsModel.h"
#include "core/OutputModel.h"
#include "ui/AgentsView.h"
#include "ui/OutputView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QTableView>
#include <QTextStream>

#include <algorithm>
#include <sys/resource.h>
#include <vector>

using namespace flotilla::monitor;

namespace {

long peakRssKiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss; // KiB on Linux
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
    const int lines = args.size() > 2 ? args[2].toInt() : 10000;
    // How many lines arrive per event-loop pass: 1 is the worst case (every WebSocket message
    // handled on its own, a layout and paint after each).
    const int perPass = args.size() > 3 ? std::max(1, args[3].toInt()) : 20;
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

    // --- 10,000 streamed lines in the real output view ---
    OutputModel output;
    ui::OutputView outView;
    outView.resize(900, 700);
    outView.setOutputModel(&output);
    if (qEnvironmentVariableIsEmpty("BENCH_HIDE_OUTPUT"))
        outView.show();
    QApplication::processEvents();
    std::vector<double> perLineUs;
    perLineUs.reserve(size_t(lines));
    QElapsedTimer stream;
    stream.start();
    for (int n = 0; n < lines; ++n) {
        QJsonObject chunk{{QStringLiteral("agentId"), QStringLiteral("a")},
                          {QStringLiteral("isStreaming"), true},
                          {QStringLiteral("timestamp"), qint64(1700000000000) + n}};
        if (n % 100 == 99) {
            chunk.insert(QStringLiteral("text"), QString());
            chunk.insert(QStringLiteral("toolName"), QStringLiteral("Bash"));
            chunk.insert(QStringLiteral("toolInput"),
                         QJsonObject{{QStringLiteral("command"), QStringLiteral("make -j2")}});
        } else {
            chunk.insert(
                QStringLiteral("text"),
                QStringLiteral("line %1: compiling src/module_%2.cpp ... ok\n").arg(n).arg(n % 97));
        }
        t.restart();
        output.appendChunk(chunk);
        perLineUs.push_back(double(t.nsecsElapsed()) / 1e3);
        if (n % perPass == perPass - 1)
            QApplication::processEvents();
    }
    QApplication::processEvents();
    const double streamMs = double(stream.nsecsElapsed()) / 1e6;
    t.restart();
    outView.viewport()->repaint();
    const double outPaintMs = double(t.nsecsElapsed()) / 1e6;
    const bool atBottom = outView.isFollowing();
    double lineSum = 0;
    for (double v : perLineUs)
        lineSum += v;

    out << "output: " << lines << " lines streamed in " << streamMs << " ms (event loop run every "
        << perPass << " lines); appendChunk mean " << lineSum / double(perLineUs.size())
        << " us, p99 " << percentile(perLineUs, 0.99) << " us; rows kept " << output.rowCount()
        << " (capacity " << output.capacity() << ", dropped " << output.droppedCount()
        << "); following the tail: " << (atBottom ? "yes" : "no") << "\n";
    out << "output view repaint: " << outPaintMs << " ms\n";
    out << "peak RSS: start " << rssStart / 1024 << " MiB, after agents " << rssAgents / 1024
        << " MiB, after output " << peakRssKiB() / 1024 << " MiB\n";
    return 0;
}
