// What shapes an agent reaches the real CLI and the model: the global prompt, area, class and
// custom instructions in their documented order, a change on the next message, skills through
// each CLI's own mechanism (listed by name and description, the body only once used, gone once
// taken away). Both real CLIs against the scripted mocks.

#include "support/AgentRig.h"

#include <QtTest>

using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// Everything of request i a model reads besides the user's text: system/developer prompt and
// conversation (Claude lists skills in a role=system message of `messages`, Codex in a developer
// message of `input`).
QString seenBy(ScriptedModel &model, int i) {
    return model.systemPromptOf(i) + QLatin1Char('\n') + model.conversationOf(i);
}

} // namespace

class TestShapingAgents : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void instructionsReachTheModelInOrder_data() { addProviderRows(); }
    void instructionsReachTheModelInOrder() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        QCOMPARE(rig.post(QStringLiteral("/api/agents/system-settings/prompt"),
                          {{QStringLiteral("prompt"), QStringLiteral("GLOBAL-MARK-1")}})
                     .status,
                 200);
        const auto area =
            rig.post(QStringLiteral("/api/areas"),
                     {{QStringLiteral("name"), QStringLiteral("Backend")},
                      {QStringLiteral("instructions"), QStringLiteral("AREA-MARK-2")}});
        QCOMPARE(area.status, 201);
        QCOMPARE(rig.post(QStringLiteral("/api/classes"),
                          {{QStringLiteral("slug"), QStringLiteral("reviewer")},
                           {QStringLiteral("instructions"), QStringLiteral("CLASS-MARK-3")}})
                     .status,
                 201);
        const auto created = rig.createAgent(
            QStringLiteral("rev-1"),
            {{QStringLiteral("class"), QStringLiteral("reviewer")},
             {QStringLiteral("customInstructions"), QStringLiteral("CUSTOM-MARK-4")}});
        QCOMPARE(created.status, 201);
        const QString id = str(created.object(), "id");
        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/move-area"),
                          {{QStringLiteral("agentIds"), QJsonArray{id}},
                           {QStringLiteral("areaId"), str(area.object(), "id")}})
                     .status,
                 200);

        rig.model().queueText(QStringLiteral("first"));
        QCOMPARE(rig.send(QStringLiteral("hello"), id).status, 200);
        QVERIFY(rig.waitTurns(1, 30000, id));
        const QString system = rig.model().systemPromptOf(0);
        qsizetype last = -1;
        for (const char *mark : {"GLOBAL-MARK-1", "AREA-MARK-2", "CLASS-MARK-3", "CUSTOM-MARK-4"}) {
            const qsizetype at = system.indexOf(QLatin1String(mark));
            QVERIFY2(at > last, qPrintable(QStringLiteral("%1 at %2 (after %3) in: %4")
                                               .arg(QLatin1String(mark))
                                               .arg(at)
                                               .arg(last)
                                               .arg(system.right(600))));
            last = at;
        }

        // A change of the class reaches the agent on its next message, in the same conversation.
        QCOMPARE(rig.http
                     .patch(rig.svc->url(QStringLiteral("/api/classes/reviewer")),
                            {{QStringLiteral("instructions"), QStringLiteral("CLASS-MARK-5")}})
                     .status,
                 200);
        rig.model().queueText(QStringLiteral("second"));
        QCOMPARE(rig.send(QStringLiteral("again"), id).status, 200);
        QVERIFY(rig.waitTurns(2, 30000, id));
        QVERIFY2(rig.model().systemPromptOf(1).contains(QStringLiteral("CLASS-MARK-5")),
                 qPrintable(rig.model().systemPromptOf(1).right(600)));
        QVERIFY(rig.model().conversationOf(1).contains(QStringLiteral("hello")));
    }

    // Instructions longer than one command-line argument may be (128 KiB) still reach Claude,
    // through a file (--append-system-prompt-file).
    void longInstructionsReachClaude() {
        AgentRig rig;
        QVERIFY(rig.start());
        QCOMPARE(rig.post(QStringLiteral("/api/agents/system-settings/prompt"),
                          {{QStringLiteral("prompt"), QString(90 * 1024, QLatin1Char('g'))}})
                     .status,
                 200);
        QCOMPARE(rig.http
                     .patch(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
                            {{QStringLiteral("customInstructions"),
                              QString(QString(60 * 1024, QLatin1Char('c')) +
                                      QStringLiteral("TAIL-MARK-9"))}})
                     .status,
                 200);
        rig.model().queueText(QStringLiteral("read it"));
        QCOMPARE(rig.send(QStringLiteral("hello")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("idle"));
        QVERIFY(rig.model().systemPromptOf(0).contains(QStringLiteral("TAIL-MARK-9")));
    }

    // A skill's name and description are in every request; its body only once the model used it
    // (Claude: the Skill tool; Codex: a $name mention); taken away, it is gone on the next message.
    void skillsReachTheModel_data() { addProviderRows(); }
    void skillsReachTheModel() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        QCOMPARE(rig.post(QStringLiteral("/api/skills"),
                          {{QStringLiteral("slug"), QStringLiteral("checklist")},
                           {QStringLiteral("description"),
                            QStringLiteral("Review checklist. DESC-MARK-11")},
                           {QStringLiteral("content"),
                            QStringLiteral("# Checklist\nBODY-MARK-12: check the tests first.")}})
                     .status,
                 201);
        QCOMPARE(rig.http
                     .patch(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
                            {{QStringLiteral("skills"), QJsonArray{QStringLiteral("checklist")}}})
                     .status,
                 200);

        if (rig.isCodex()) {
            rig.model().queueText(QStringLiteral("used it"));
            QCOMPARE(rig.send(QStringLiteral("please apply $flotilla:checklist")).status, 200);
            QVERIFY(rig.waitTurns(1));
            QVERIFY2(seenBy(rig.model(), 0).contains(QStringLiteral("DESC-MARK-11")),
                     qPrintable(seenBy(rig.model(), 0).left(3000)));
            QVERIFY2(seenBy(rig.model(), 0).contains(QStringLiteral("BODY-MARK-12")),
                     qPrintable(rig.model().conversationOf(0)));
        } else {
            rig.mock.queueToolUse(
                QStringLiteral("Skill"),
                {{QStringLiteral("skill"), QStringLiteral("flotilla:checklist")}});
            rig.mock.queueText(QStringLiteral("used it"));
            QCOMPARE(rig.send(QStringLiteral("please review")).status, 200);
            QVERIFY(rig.waitTurns(1));
            QVERIFY2(seenBy(rig.model(), 0).contains(QStringLiteral("DESC-MARK-11")),
                     qPrintable(seenBy(rig.model(), 0).left(3000)));
            QVERIFY(!seenBy(rig.model(), 0).contains(QStringLiteral("BODY-MARK-12")));
            QVERIFY2(seenBy(rig.model(), 1).contains(QStringLiteral("BODY-MARK-12")),
                     qPrintable(rig.model().conversationOf(1).right(2000)));
            bool labelled = false;
            const QList<QJsonObject> chunks = rig.chunks();
            for (const QJsonObject &c : chunks)
                labelled = labelled || str(c, "skill") == QLatin1String("flotilla:checklist");
            QVERIFY(labelled);
        }
        // Taken away, the skill cannot be used any more: the CLI no longer has it, so its body
        // comes no more (the earlier turns still hold what it brought then). Both CLIs list a
        // session's skills once, at its start, so the listing of the first turn stays in the
        // conversation's history.
        const auto bodies = [&rig](int i) {
            return int(seenBy(rig.model(), i).count(QStringLiteral("BODY-MARK-12")));
        };
        const int last = rig.model().requestCount() - 1;
        QCOMPARE(rig.http
                     .patch(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
                            {{QStringLiteral("skills"), QJsonArray{}}})
                     .status,
                 200);
        if (rig.isCodex()) {
            rig.model().queueText(QStringLiteral("plain"));
            QCOMPARE(rig.send(QStringLiteral("apply $flotilla:checklist again")).status, 200);
            QVERIFY(rig.waitTurns(2));
        } else {
            rig.mock.queueToolUse(
                QStringLiteral("Skill"),
                {{QStringLiteral("skill"), QStringLiteral("flotilla:checklist")}});
            rig.mock.queueText(QStringLiteral("plain"));
            QCOMPARE(rig.send(QStringLiteral("review again")).status, 200);
            QVERIFY(rig.waitTurns(2));
            // Only the first turn's launch: the second call found no such skill.
            QCOMPARE(rig.model()
                         .conversationOf(rig.model().requestCount() - 1)
                         .count(QStringLiteral("Launching skill: flotilla:checklist")),
                     1);
        }
        const int newest = rig.model().requestCount() - 1;
        QVERIFY(newest > last);
        QVERIFY2(bodies(newest) <= bodies(last),
                 qPrintable(QStringLiteral("%1 then %2").arg(bodies(last)).arg(bodies(newest))));
    }
};

QTEST_GUILESS_MAIN(TestShapingAgents)
#include "tst_shaping_agents.moc"
