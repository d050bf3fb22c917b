#pragma once
// Helpers of the monitor core suites: the real flotillad binary on its own port and data dir
// (restartable on the same port), and a wait for the asynchronous ServiceClient callbacks.

#include "client/ServiceClient.h"
#include "support/HttpClient.h"
#include "support/ServiceProcess.h"

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

namespace flotilla::test {

class MonitorService final {
public:
    // Starts flotillad; `port` 0 picks a free one, otherwise that port (a restart).
    bool start(quint16 port = 0, const QByteArray &token = {}) {
        QProcessEnvironment env = hermeticEnv(m_home.path());
        if (!token.isEmpty())
            env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromUtf8(token));
        QStringList args{QStringLiteral("--data-dir"), m_home.path() + QStringLiteral("/data")};
        if (port != 0)
            args << QStringLiteral("--port") << QString::number(port);
        // A fresh runner each time: ServiceProcess reads the port from its first start's log.
        m_process = std::make_unique<ServiceProcess>();
        if (!m_process->start(args, env))
            return false;
        m_port = m_process->port();
        m_token = token;
        m_http.setToken(token);
        return true;
    }
    bool stop() { return m_process && m_process->terminate(); }

    quint16 port() const { return m_port; }
    QUrl url(const QString &path) const { return localUrl(m_port, path); }
    client::Endpoint endpoint(const QByteArray &token = {}) const {
        return {localUrl(m_port, QString()), token};
    }
    HttpClient &http() { return m_http; }
    QString workDir() const {
        const QString dir = m_home.path() + QStringLiteral("/work");
        QDir().mkpath(dir);
        return dir;
    }
    // Creates an agent over REST (a client other than the monitor); returns its id.
    QString createAgent(const QString &name) {
        const HttpResponse r =
            m_http.post(url(QStringLiteral("/api/agents")),
                        {{QStringLiteral("name"), name}, {QStringLiteral("cwd"), workDir()}});
        return r.status == 201 ? r.object().value(QStringLiteral("id")).toString() : QString();
    }
    bool deleteAgent(const QString &id) {
        return m_http.del(url(QStringLiteral("/api/agents/") + id)).status == 204;
    }

private:
    QTemporaryDir m_home;
    std::unique_ptr<ServiceProcess> m_process;
    quint16 m_port = 0;
    QByteArray m_token;
    HttpClient m_http;
};

// Runs an asynchronous REST call and spins the event loop until its callback ran.
// Connection states compare as their names: QTest cannot print the enum, and a failure should
// say which state it was.
inline QString stateName(client::ConnectionState state) {
    return client::toString(state);
}

template <typename Start> client::RestReply waitReply(Start start, int timeoutMs = 10000) {
    auto got = std::make_shared<std::optional<client::RestReply>>();
    start([got](const client::RestReply &r) { *got = r; });
    (void)QTest::qWaitFor([&] { return got->has_value(); }, timeoutMs);
    return got->value_or(client::RestReply{});
}

} // namespace flotilla::test
