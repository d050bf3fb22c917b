#pragma once
// Helpers shared by the boss suites (tst_boss, tst_work_plans): WebSocket messages, payload
// lookups and a boss spawned over the wire. Header-only: nothing here needs moc.

#include "support/AgentRig.h"

#include <QJsonArray>
#include <QTest>

#include <functional>

namespace flotilla::test {

inline QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

inline QJsonObject payloadOf(const QJsonObject &message) {
    return message.value(QLatin1String("payload")).toObject();
}

inline void sendWs(WsClient &ws, const char *type, const QJsonObject &payload) {
    ws.sendJson(QJsonObject{{QStringLiteral("type"), QLatin1String(type)},
                            {QStringLiteral("payload"), payload}});
}

// Payloads of `type` matching `pred`, in arrival order.
inline QList<QJsonObject> payloads(const WsClient &ws, const char *type,
                                   const std::function<bool(const QJsonObject &)> &pred = {}) {
    QList<QJsonObject> out;
    for (const QJsonObject &m : ws.ofType(QLatin1String(type))) {
        const QJsonObject p = payloadOf(m);
        if (!pred || pred(p))
            out.append(p);
    }
    return out;
}

// Waits until `n` payloads of `type` match; returns the n-th (empty object on timeout).
inline QJsonObject waitPayload(const WsClient &ws, const char *type, int n = 1,
                               const std::function<bool(const QJsonObject &)> &pred = {},
                               int timeoutMs = 60000) {
    if (!QTest::qWaitFor([&] { return payloads(ws, type, pred).size() >= n; }, timeoutMs))
        return {};
    return payloads(ws, type, pred).at(n - 1);
}

inline std::function<bool(const QJsonObject &)> field(const char *key, const QString &value) {
    return [key, value](const QJsonObject &p) { return str(p, key) == value; };
}

// A fenced block as a boss would write it.
inline QString fenced(const char *tag, const QString &json) {
    return QStringLiteral("```") + QLatin1String(tag) + QLatin1Char('\n') + json +
           QStringLiteral("\n```\n");
}

inline QString json(const QJsonValue &v) {
    return QString::fromUtf8(v.isArray()
                                 ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                 : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
}

// A second agent next to the rig's "agent-1".
inline QString createAgent(AgentRig &rig, const QString &name) {
    const HttpResponse r =
        rig.post(QStringLiteral("/api/agents"),
                 QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("cwd"), rig.cwd}});
    return r.status == 201 ? str(r.object(), "id") : QString();
}

// spawn_boss_agent over the rig's WebSocket; returns the boss id once its team is announced.
inline QString spawnBoss(AgentRig &rig, const QString &name, const QStringList &team) {
    sendWs(*rig.ws, "spawn_boss_agent",
           QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("cwd"), rig.cwd},
                       {QStringLiteral("subordinateIds"), QJsonArray::fromStringList(team)}});
    const QJsonObject created = waitPayload(*rig.ws, "agent_created", 1, field("name", name), 5000);
    const QString id = str(created, "id");
    if (id.isEmpty() ||
        waitPayload(*rig.ws, "boss_subordinates_updated", 1, field("bossId", id), 5000).isEmpty())
        return {};
    return id;
}

inline void sendCommand(AgentRig &rig, const QString &bossId, const QString &command) {
    sendWs(*rig.ws, "send_boss_command",
           QJsonObject{{QStringLiteral("bossId"), bossId}, {QStringLiteral("command"), command}});
}

inline HttpResponse reportTask(AgentRig &rig, const QString &agentId, const QString &summary,
                               const QString &status = QStringLiteral("completed")) {
    return rig.post(
        QStringLiteral("/api/agents/%1/report-task").arg(agentId),
        QJsonObject{{QStringLiteral("summary"), summary}, {QStringLiteral("status"), status}});
}

// The error the service sent for the last client message (waits for the n-th error overall).
inline QJsonObject waitError(WsClient &ws, int n, int timeoutMs = 5000) {
    return waitPayload(ws, "error", n, {}, timeoutMs);
}

} // namespace flotilla::test
