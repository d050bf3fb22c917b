#pragma once
// bench_remote's service: the real flotillad binary (a ServiceProcess) with host "box" (the
// RemoteHost's sshd) connected, a WebSocket client timing each agent's first delta, and the
// memory of flotillad's processes here and of the remote account's there, from /proc.

#include "ProcStatus.h"
#include "protocol/HostNames.h"
#include "protocol/WireNames.h"
#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/MockOpenAI.h"
#include "support/RemoteHost.h"
#include "support/ServiceProcess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <cstdio>

namespace flotilla::bench {

using test::HttpClient;
using test::HttpResponse;
using test::localUrl;
using test::MockAnthropic;
using test::MockOpenAI;
using test::RemoteHost;
using test::ServiceProcess;
namespace hk = wire::host::key;

inline const QString kHost = QStringLiteral("box");

inline bool isMaster(qint64 pid) {
    return commandLine(pid).contains("ControlMaster=yes");
}

// One moment of the service's processes, MiB.
struct Memory {
    double service = 0;                    // flotillad itself
    double master = 0;                     // its ssh ControlMaster
    double sessions = 0;                   // its other ssh children: one per remote agent
    double agents = 0;                     // its other children and below: the local agents' CLIs
    double there = 0;                      // every process of the remote account
    double masterPss = 0, sessionsPss = 0; // their share of shared pages: what one more costs
    int sessionCount = 0, thereCount = 0;
};

class RemoteBenchService final {
public:
    RemoteBenchService(MockAnthropic &anthropic, MockOpenAI &openai, RemoteHost &remote, uint uid,
                       const QByteArray &token)
        : m_token(token)
        , m_http(token)
        , m_anthropic(anthropic)
        , m_openai(openai)
        , m_remote(remote)
        , m_uid(uid) {
        m_clock.start();
        QObject::connect(&m_ws, &QWebSocket::textMessageReceived, [this](const QString &text) {
            const QJsonObject m = QJsonDocument::fromJson(text.toUtf8()).object();
            if (m.value(wire::key::Type).toString() != wire::msg::Output)
                return;
            const QJsonObject p = m.value(wire::key::Payload).toObject();
            const QString id = p.value(wire::key::AgentId).toString();
            if (!m_firstDelta.contains(id))
                m_firstDelta.insert(id, m_clock.nsecsElapsed());
            if (!p.value(wire::key::IsStreaming).toBool(true))
                ++m_finals[id];
        });
    }

    // flotillad on `dataDir`, its WebSocket, and host "box" connected.
    bool start(const QString &dataDir, const QProcessEnvironment &env) {
        if (!m_svc.start({QStringLiteral("--data-dir"), dataDir, QStringLiteral("--ssh-config"),
                          m_remote.sshConfig()},
                         env)) {
            std::fprintf(stderr, "flotillad did not start: %s\n", m_svc.stdErr().constData());
            return false;
        }
        m_ws.open(QUrl(QStringLiteral("ws://127.0.0.1:%1/ws?token=%2")
                           .arg(m_svc.port())
                           .arg(QString::fromLatin1(m_token))));
        if (!QTest::qWaitFor([&] { return m_ws.state() == QAbstractSocket::ConnectedState; },
                             10000))
            return false;
        const HttpResponse r =
            m_http.post(url(QStringLiteral("/api/hosts")), {{hk::Name_, kHost},
                                                            {hk::Ssh, m_remote.destination()},
                                                            {hk::ClaudeBin, m_remote.claudeBin()},
                                                            {hk::CodexBin, m_remote.codexBin()}});
        const auto state = [&] {
            return m_http.get(url(QStringLiteral("/api/hosts/") + kHost))
                .object()
                .value(hk::State)
                .toString();
        };
        if (r.status != 201 ||
            !QTest::qWaitFor([&] { return state() == wire::host::state::Connected; }, 20000)) {
            std::fprintf(stderr, "host %s: %d %s, state %s\n", qPrintable(kHost), r.status,
                         r.body.constData(), qPrintable(state()));
            return false;
        }
        QTest::qWait(500); // the master's session there settles
        m_thereBaseline = memory().thereCount;
        return true;
    }

    // A new agent here or on "box" (its own directory), idle timeout off; its id or empty.
    QString create(const QString &provider, bool remote) {
        static int agents = 0;
        const QString dir = QStringLiteral("project-%1").arg(++agents);
        QString cwd = QDir(m_root.path()).filePath(dir);
        if (remote) {
            cwd = m_remote.home() + QLatin1Char('/') + dir;
            m_remote.writeHomeFile(dir + QStringLiteral("/README"), "hi\n");
        } else {
            QDir().mkpath(cwd);
        }
        QJsonObject body{{wire::key::Name_, QStringLiteral("%1-%2").arg(provider, dir)},
                         {wire::key::Cwd, cwd},
                         {wire::key::Provider, provider},
                         {wire::key::PermissionMode, QStringLiteral("auto")},
                         {QStringLiteral("idleTimeoutSeconds"), 0},
                         {hk::Host, remote ? kHost : QString(wire::host::Local)}};
        if (provider == QLatin1String("codex"))
            body.insert(wire::key::Model, QStringLiteral("gpt-mock"));
        const HttpResponse r = m_http.post(url(QStringLiteral("/api/agents")), body);
        if (r.status != 201)
            std::fprintf(stderr, "create %s: %d %s\n", qPrintable(provider), r.status,
                         r.body.constData());
        return r.object().value(wire::key::Id).toString();
    }

    // One message and its whole answer; `ms` gets the first delta. False (why on stderr) on
    // failure.
    bool turn(const QString &id, const QString &provider, double &ms) {
        if (provider == QLatin1String("codex"))
            m_openai.queueText(QStringLiteral("first delta, then more"), 3);
        else
            m_anthropic.queueText(QStringLiteral("first delta, then more"), 3);
        const int before = m_finals.value(id);
        m_firstDelta.remove(id);
        const qint64 sent = m_clock.nsecsElapsed();
        m_http.post(url(QStringLiteral("/api/agents/%1/message").arg(id)),
                    {{wire::key::Message, QStringLiteral("hello")}});
        if (!QTest::qWaitFor([&] { return m_finals.value(id) > before; }, 60000)) {
            std::fprintf(stderr, "%s: the turn did not end within 60 s: %s\n", qPrintable(id),
                         qPrintable(agent(id).value(wire::key::LastError).toString()));
            return false;
        }
        ms = double(m_firstDelta.value(id) - sent) / 1e6;
        return true;
    }

    // Stopped (an idle agent's process ends), and its processes gone here and there.
    bool stop(const QString &id) {
        m_http.post(url(QStringLiteral("/api/agents/bulk/stop")),
                    {{QStringLiteral("agentIds"), QJsonArray{id}}});
        return waitGone(id);
    }

    // Deleted, and its processes gone here and there.
    bool remove(const QString &id) {
        m_http.del(url(QStringLiteral("/api/agents/") + id));
        return waitGone(id);
    }

    bool waitGone(const QString &id) {
        const bool gone = QTest::qWaitFor(
            [&] {
                const Memory m = memory();
                return m.sessionCount == 0 && m.agents == 0 && m.thereCount <= m_thereBaseline;
            },
            15000);
        if (!gone)
            std::fprintf(stderr, "%s: its processes did not end within 15 s\n", qPrintable(id));
        return gone;
    }

    Memory memory() const {
        const QHash<qint64, Proc> all = snapshot();
        const qint64 svc = m_svc.pid();
        Memory m;
        m.service = all.value(svc).rssMiB;
        for (auto it = all.constBegin(); it != all.constEnd(); ++it) {
            if (it->uid == m_uid) {
                m.there += it->rssMiB;
                ++m.thereCount;
            }
            if (it->ppid != svc)
                continue;
            if (it->name == "ssh" && isMaster(it.key())) {
                m.master += it->rssMiB;
                m.masterPss += pssMiB(it.key());
            } else if (it->name == "ssh") {
                m.sessions += it->rssMiB;
                m.sessionsPss += pssMiB(it.key());
                ++m.sessionCount;
            } else {
                for (const qint64 pid : subtree(all, it.key()))
                    m.agents += all.value(pid).rssMiB;
            }
        }
        return m;
    }

    qint64 pid() const { return m_svc.pid(); }

    // The ControlMaster's socket (its `-S`), for a session of our own over the same link.
    QString controlPath() const {
        const QHash<qint64, Proc> all = snapshot();
        for (auto it = all.constBegin(); it != all.constEnd(); ++it) {
            const QList<QByteArray> argv = commandLine(it.key());
            if (it->ppid == m_svc.pid() && argv.contains("ControlMaster=yes"))
                return QString::fromLocal8Bit(argv.value(argv.indexOf("-S") + 1));
        }
        return {};
    }

    // Ends flotillad (its agents and link with it) and waits until the account has no process.
    void stop() {
        m_svc.terminate();
        if (!QTest::qWaitFor([&] { return memory().thereCount == 0; }, 15000))
            std::fprintf(stderr, "the remote account still has %d processes\n",
                         memory().thereCount);
    }

private:
    QUrl url(const QString &path) const { return localUrl(m_svc.port(), path); }
    QJsonObject agent(const QString &id) {
        return m_http.get(url(QStringLiteral("/api/agents/") + id)).object();
    }

    QByteArray m_token;
    HttpClient m_http;
    MockAnthropic &m_anthropic;
    MockOpenAI &m_openai;
    RemoteHost &m_remote;
    uint m_uid;
    QTemporaryDir m_root;
    ServiceProcess m_svc;
    QWebSocket m_ws;
    QElapsedTimer m_clock;
    QHash<QString, qint64> m_firstDelta;
    QHash<QString, int> m_finals;
    int m_thereBaseline = 0;
};

} // namespace flotilla::bench
