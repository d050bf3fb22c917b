// Codecs of the shared protocol library: what the service sends is what clients decode.

#include "protocol/Agent.h"
#include "protocol/Envelope.h"
#include "protocol/HistoryNames.h"
#include "protocol/Notification.h"
#include "protocol/OutputChunk.h"
#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace flotilla;

class TestProtocol final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void agentRoundTrip() {
        Agent a;
        a.id = QStringLiteral("a1");
        a.name = QStringLiteral("Scout");
        a.agentClass = QStringLiteral("scout");
        a.status = QStringLiteral("idle");
        a.subordinateIds = {QStringLiteral("b"), QStringLiteral("c")};
        a.contextUsed = 1234;
        a.trackingStatus = QStringLiteral("blocked");
        a.idleTimeoutSeconds = 0; // never: not the same as null
        a.usage.turns = 3;
        a.usage.inputTokens = 330;
        a.usage.cacheReadTokens = 3000;
        a.usage.costUsd = 0.001575;
        a.budget.tokens = 5000;
        a.budget.perDay = true;
        Agent back;
        QVERIFY(Agent::fromJson(a.toJson(), &back));
        QCOMPARE(back, a);
    }

    void agentNullables() {
        Agent a;
        a.id = QStringLiteral("x");
        a.name = QStringLiteral("n");
        const QJsonObject o = a.toJson();
        for (const auto key : {wire::key::SessionId, wire::key::BossId, wire::key::AreaId,
                               wire::key::LastError, wire::key::TrackingStatus,
                               wire::usage::key::IdleTimeoutSeconds, wire::usage::key::Budget})
            QVERIFY2(o.value(key).isNull(), key.data());
        // An agent without turns still has its usage object, all zeros.
        QCOMPARE(o.value(wire::usage::key::Usage).toObject().value(wire::usage::key::Turns),
                 QJsonValue(0));
    }

    void agentRejectsMissingIdentity() {
        Agent a;
        QVERIFY(!Agent::fromJson(QJsonObject{{wire::key::Name_, QStringLiteral("n")}}, &a));
        QVERIFY(!Agent::fromJson(QJsonObject{{wire::key::Id, QStringLiteral("i")}}, &a));
    }

    void statusItemHasExactlyTheSpecFields() {
        Agent a;
        a.id = QStringLiteral("x");
        a.name = QStringLiteral("n");
        QStringList keys = a.toStatusJson().keys();
        keys.sort();
        QCOMPARE(keys, QStringList({QStringLiteral("currentTask"), QStringLiteral("currentTool"),
                                    QStringLiteral("id"), QStringLiteral("isProcessRunning"),
                                    QStringLiteral("name"), QStringLiteral("status")}));
    }

    void changedFieldsCarriesIdNameAndDiffOnly() {
        Agent before;
        before.id = QStringLiteral("x");
        before.name = QStringLiteral("n");
        before.cwd = QStringLiteral("/tmp");
        Agent after = before;
        after.currentTool = QStringLiteral("Bash");
        after.contextUsed = 10;
        const QJsonObject diff = Agent::changedFields(before, after);
        QStringList keys = diff.keys();
        keys.sort();
        QCOMPARE(keys, QStringList({QStringLiteral("contextUsed"), QStringLiteral("currentTool"),
                                    QStringLiteral("id"), QStringLiteral("name")}));
    }

    void notificationOmitsEmptyUrls() {
        Notification n;
        n.id = QStringLiteral("1");
        n.timestamp = 1700000000000;
        QVERIFY(!n.toJson().contains(wire::key::IconUrl));
        n.iconUrl = QStringLiteral("https://x/y.png");
        Notification back;
        QVERIFY(Notification::fromJson(n.toJson(), &back));
        QCOMPARE(back.iconUrl, n.iconUrl);
        QCOMPARE(back.timestamp, n.timestamp);
    }

    void outputChunkOptionalTools() {
        OutputChunk c;
        c.agentId = QStringLiteral("a");
        c.text = QStringLiteral("hi");
        c.isStreaming = false;
        QJsonObject o = c.toJson();
        QVERIFY(!o.contains(wire::key::ToolName));
        QVERIFY(!o.contains(wire::key::ToolInput));
        c.toolName = QStringLiteral("Bash");
        c.toolInput = QJsonObject{{QStringLiteral("command"), QStringLiteral("echo hi")}};
        c.hasToolInput = true;
        OutputChunk back;
        QVERIFY(OutputChunk::fromJson(c.toJson(), &back));
        QCOMPARE(back.toolName, c.toolName);
        QCOMPARE(back.toolInput, c.toolInput);
        QCOMPARE(back.isStreaming, false);
        QVERIFY(!back.isError);
        // A failed tool's result says so; a good one leaves the key out.
        OutputChunk result;
        result.agentId = QStringLiteral("a");
        result.toolName = QStringLiteral("mcp__flotilla__notify");
        result.toolOutput = QStringLiteral("title is required");
        result.hasToolOutput = true;
        QVERIFY(!result.toJson().contains(wire::history::key::IsError));
        result.isError = true;
        QVERIFY(OutputChunk::fromJson(result.toJson(), &back));
        QVERIFY(back.isError);
    }

    void encodeEventIsCompactEnvelope() {
        const QByteArray bytes =
            encodeEvent(wire::msg::AgentDeleted, QJsonObject{{wire::key::Id, QStringLiteral("x")}});
        QCOMPARE(bytes, QByteArray(R"({"payload":{"id":"x"},"type":"agent_deleted"})"));
    }

    void decodeClientMessage_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QString>("type");
        QTest::newRow("ok") << QByteArray(R"({"type":"ping","payload":{"a":1}})") << true
                            << QStringLiteral("ping");
        QTest::newRow("no payload")
            << QByteArray(R"({"type":"ping"})") << true << QStringLiteral("ping");
        QTest::newRow("null payload")
            << QByteArray(R"({"type":"ping","payload":null})") << true << QStringLiteral("ping");
        QTest::newRow("malformed") << QByteArray("{type") << false << QString();
        QTest::newRow("array") << QByteArray("[1,2]") << false << QString();
        QTest::newRow("no type") << QByteArray(R"({"payload":{}})") << false << QString();
        QTest::newRow("numeric type") << QByteArray(R"({"type":3})") << false << QString();
        QTest::newRow("empty type") << QByteArray(R"({"type":""})") << false << QString();
        QTest::newRow("payload array")
            << QByteArray(R"({"type":"x","payload":[]})") << false << QString();
    }

    void decodeClientMessage() {
        QFETCH(QByteArray, text);
        QFETCH(bool, valid);
        QFETCH(QString, type);
        QString why;
        const auto msg = flotilla::decodeClientMessage(text, &why);
        QCOMPARE(msg.has_value(), valid);
        if (valid)
            QCOMPARE(msg->type, type);
        else
            QVERIFY(!why.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestProtocol)
#include "tst_protocol.moc"
