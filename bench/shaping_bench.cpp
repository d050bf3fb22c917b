// What shaping costs every turn: the runtime asks InstructionComposer::shapeFor() before each
// turn (compose the global, area, class and custom instructions; hash the agent's skills to know
// whether its skill files changed; write them only when they did). Runs the real catalogs on a
// real SQLite database in a temporary directory.
//
//   bench_shaping [calls=300] [results.json]
//
// Cases: no skills; 4 skills of 8 KiB (a typical role); 64 skills of 256 KiB (the limits: 16 MiB
// hashed per call), each with 64 KiB of class, area and custom instructions. "changed" is a call
// after a skill was edited (the files are rewritten).

#include "BenchSupport.h"
#include "domain/AgentRegistry.h"
#include "domain/SystemPromptStore.h"
#include "organization/AreaStore.h"
#include "shaping/ClassCatalog.h"
#include "shaping/InstructionComposer.h"
#include "shaping/SkillCatalog.h"
#include "shaping/SkillMaterializer.h"
#include "storage/Database.h"
#include "storage/StartupReport.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

#include <cstdio>

using namespace flotilla;

namespace {

// A catalog of provider names for the classes' defaults (none are used here).
class NoProviders final : public ProviderCatalog {
public:
    QStringList providerNames() const override { return {QStringLiteral("claude")}; }
    QString defaultProvider() const override { return QStringLiteral("claude"); }
    QString defaultModel(const QString &) const override { return QStringLiteral("m"); }
};

struct Case {
    const char *name;
    int skills;
    int skillBytes;
    int instructionBytes;
};

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    const int calls = argc > 1 ? QString::fromLocal8Bit(argv[1]).toInt() : 300;
    const QString resultsPath = argc > 2 ? QString::fromLocal8Bit(argv[2]) : QString();
    QJsonObject results;
    for (const Case &c : {Case{"none", 0, 0, 0}, Case{"typical", 4, 8 * 1024, 4 * 1024},
                          Case{"limits", 64, 256 * 1024 - 64, 64 * 1024 - 64}}) {
        QTemporaryDir dir;
        StartupReport report;
        auto db = Database::open(dir.path() + QStringLiteral("/f.db"), report);
        if (!db) {
            std::fprintf(stderr, "database: %s\n", qPrintable(db.error().message));
            return 1;
        }
        const Clock clock = Clock::system();
        NoProviders providers;
        SystemPromptStore prompt(dir.path() + QStringLiteral("/prompt.json"), clock);
        (void)prompt.setPrompt(QString(c.instructionBytes, QLatin1Char('g')));
        SkillCatalog skills(**db, clock);
        ClassCatalog classes(**db, providers, skills, clock);
        AreaStore areas(**db, clock);
        SkillMaterializer files(dir.path() + QStringLiteral("/agent-skills"));
        InstructionComposer composer(prompt, areas, classes, skills, files);

        QJsonArray slugs;
        for (int i = 0; i < c.skills; ++i) {
            const QString slug = QStringLiteral("skill-%1").arg(i);
            (void)skills.create(
                {{QStringLiteral("slug"), slug},
                 {QStringLiteral("description"), QStringLiteral("Skill %1").arg(i)},
                 {QStringLiteral("content"), QString(c.skillBytes, QLatin1Char('s'))}});
            slugs.append(slug);
        }
        (void)classes.create(
            {{QStringLiteral("slug"), QStringLiteral("role")},
             {QStringLiteral("instructions"), QString(c.instructionBytes, QLatin1Char('c'))},
             {QStringLiteral("skills"), slugs}});
        const auto area = areas.create(AreaDraft{QStringLiteral("A"), QString(),
                                                 QString(c.instructionBytes, QLatin1Char('a'))});
        Agent agent;
        agent.id = QStringLiteral("agent-1");
        agent.name = QStringLiteral("a1");
        agent.agentClass = QStringLiteral("role");
        agent.areaId = area ? area->id : QString();
        agent.customInstructions = QString(c.instructionBytes, QLatin1Char('u'));

        (void)composer.shapeFor(agent); // first write
        QList<double> steady, changed;
        for (int i = 0; i < calls; ++i) {
            QElapsedTimer t;
            t.start();
            const AgentShape shape = composer.shapeFor(agent);
            steady.append(double(t.nsecsElapsed()) / 1e6);
            if (shape.instructions.isEmpty() && c.instructionBytes > 0)
                return 2;
        }
        for (int i = 0; c.skills > 0 && i < qMin(calls, 30); ++i) {
            (void)skills.update(QStringLiteral("skill-0"),
                                {{QStringLiteral("content"), QStringLiteral("v%1").arg(i)}});
            QElapsedTimer t;
            t.start();
            (void)composer.shapeFor(agent);
            changed.append(double(t.nsecsElapsed()) / 1e6);
        }
        const bench::Stats a = bench::stats(steady);
        const bench::Stats b = bench::stats(changed);
        std::printf("%-8s shapeFor ms: steady min %.3f median %.3f max %.3f", c.name, a.min,
                    a.median, a.max);
        if (!changed.isEmpty())
            std::printf(" | after a skill edit min %.3f median %.3f max %.3f", b.min, b.median,
                        b.max);
        std::printf("\n");
        results.insert(QLatin1String(c.name),
                       QJsonObject{{QStringLiteral("steadyMs"), bench::toJson(a)},
                                   {QStringLiteral("changedMs"), bench::toJson(b)}});
    }
    if (!resultsPath.isEmpty()) {
        QFile out(resultsPath);
        if (out.open(QIODevice::WriteOnly))
            out.write(QJsonDocument(results).toJson());
    }
    return 0;
}
