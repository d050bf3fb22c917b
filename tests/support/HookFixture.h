#pragma once
// What the hook suites (tst_hooks: routes and refusals; tst_hook_runs: the runs of real commands)
// share: building hook bodies, the REST calls on /api/hooks, the hook_run events a rig received.
// A suite's class inherits it, so its tests call the helpers unqualified. Header-only and without
// Q_OBJECT, so it needs no entry in the support library.

#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "support/AgentRig.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

namespace flotilla::test {

class HookFixture {
protected:
    static QByteArray json(const QJsonObject &o) {
        return QJsonDocument(o).toJson(QJsonDocument::Compact);
    }
    static QString str(const QJsonObject &o, QLatin1String key) { return o.value(key).toString(); }
    static QJsonObject payloadOf(const QJsonObject &message) {
        return message.value(wire::key::Payload).toObject();
    }
    // `/bin/sh -c script hook args...`: $1... are `args`.
    static QJsonArray sh(const QString &script, const QStringList &args = {}) {
        QJsonArray argv{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script,
                        QStringLiteral("hook")};
        for (const QString &a : args)
            argv.append(a);
        return argv;
    }
    // KEY=value lines of an `env` dump.
    static QHash<QString, QString> parseEnv(const QByteArray &dump) {
        QHash<QString, QString> out;
        for (const QByteArray &line : dump.split('\n')) {
            const qsizetype eq = line.indexOf('=');
            if (eq > 0)
                out.insert(QString::fromUtf8(line.left(eq)), QString::fromUtf8(line.mid(eq + 1)));
        }
        return out;
    }

    static void expectError(const HttpResponse &r, int status, const QString &code) {
        QVERIFY2(r.status == status, r.body.constData());
        QCOMPARE(str(r.object(), wire::key::Code), code);
        QVERIFY(!str(r.object(), wire::key::Error).isEmpty());
    }
    static QJsonObject addHook(AgentRig &rig, const QJsonObject &body) {
        const HttpResponse r = rig.post(QStringLiteral("/api/hooks"), body);
        if (r.status != 201)
            qWarning() << "hook not created" << r.status << r.body;
        return r.object();
    }
    static QJsonObject hookOn(const QString &event, const QString &name, const QJsonArray &command,
                              const QJsonObject &extra = {}) {
        QJsonObject body{{wire::key::Name_, name},
                         {wire::shaping::key::Event, event},
                         {wire::shaping::key::Command, command}};
        for (auto it = extra.begin(); it != extra.end(); ++it)
            body.insert(it.key(), it.value());
        return body;
    }
    static QUrl hookUrl(AgentRig &rig, const QString &id, const QString &rest = {}) {
        return rig.svc->url(QStringLiteral("/api/hooks/") + id + rest);
    }
    // The hook_run events received for `hookId`, in order.
    static QList<QJsonObject> runsOf(AgentRig &rig, const QString &hookId) {
        QList<QJsonObject> out;
        for (const QJsonObject &m : rig.ws->ofType(wire::shaping::msg::HookRun)) {
            if (str(payloadOf(m), wire::shaping::key::HookId) == hookId)
                out.append(payloadOf(m));
        }
        return out;
    }
    static QJsonObject awaitRun(AgentRig &rig, const QString &hookId, int timeoutMs = 15000) {
        if (!QTest::qWaitFor([&] { return !runsOf(rig, hookId).isEmpty(); }, timeoutMs))
            return {};
        return runsOf(rig, hookId).constFirst();
    }
};

} // namespace flotilla::test
