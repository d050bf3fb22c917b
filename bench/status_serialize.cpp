// What GET /api/agents/status would cost if built per request, against the cached bytes the
// registry keeps (rebuilt only after a change). 100 agents, like the wrk benchmark.

#include "protocol/Agent.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QList>

#include <algorithm>
#include <cstdio>

using flotilla::Agent;

int main() {
    QList<Agent> agents;
    for (int i = 0; i < 100; ++i) {
        Agent a;
        a.id = QStringLiteral("00000000-0000-4000-8000-%1").arg(i, 12, 10, QLatin1Char('0'));
        a.name = QStringLiteral("agent-%1").arg(i);
        a.status = QStringLiteral("working");
        a.currentTask = QStringLiteral("Refactor the parser and add tests for edge cases");
        a.currentTool = QStringLiteral("Bash");
        agents.append(a);
    }
    auto build = [&] {
        QJsonArray array;
        for (const Agent &a : agents)
            array.append(a.toStatusJson());
        return QJsonDocument(array).toJson(QJsonDocument::Compact);
    };
    const QByteArray cached = build();
    constexpr int kRounds = 2000;
    for (int run = 0; run < 5; ++run) {
        QElapsedTimer t;
        t.start();
        qsizetype sink = 0;
        for (int i = 0; i < kRounds; ++i)
            sink += build().size();
        const double perBuildUs = double(t.nsecsElapsed()) / kRounds / 1000.0;
        t.restart();
        for (int i = 0; i < kRounds * 100; ++i) {
            const QByteArray copy = cached; // what the route does: share the cached bytes
            sink += copy.size();
        }
        const double perCachedUs = double(t.nsecsElapsed()) / (kRounds * 100) / 1000.0;
        std::printf("run %d: build+serialise %.1f us/request, cached %.3f us/request (%lld bytes, "
                    "sink %lld)\n",
                    run + 1, perBuildUs, perCachedUs, static_cast<long long>(cached.size()),
                    static_cast<long long>(sink));
    }
    return 0;
}
