#pragma once
// The real service graph, in-process, hermetic: its own temp HOME and data dir, port 0 on
// loopback. Tests reach it over real sockets like any client.

#include "app/ServiceApp.h"

#include <QTemporaryDir>
#include <QUrl>

#include <functional>
#include <memory>

namespace flotilla::test {

class TestService final {
public:
    // `tweak` may adjust the config (token, limits, timeouts) before start.
    explicit TestService(const std::function<void(ServerConfig &)> &tweak = {});
    ~TestService();

    bool start(); // false with a message in lastError()
    void stop();
    QString lastError() const { return m_error; }

    ServiceApp &app() { return *m_app; }
    quint16 port() const { return m_app ? m_app->port() : 0; }
    QUrl url(const QString &path) const;
    QUrl wsUrl(const QString &pathAndQuery = QStringLiteral("/ws")) const;
    QString dataDir() const { return m_data.path(); }
    // A fresh directory agents may use as cwd.
    QString workDir() const { return m_work.path(); }
    ServerConfig &config() { return m_config; }

private:
    QTemporaryDir m_data;
    QTemporaryDir m_work;
    ServerConfig m_config;
    std::unique_ptr<ServiceApp> m_app;
    QString m_error;
};

} // namespace flotilla::test
