#pragma once
// For the monitor's GUI suites: the real flotillad as a child process on a free port, its agents
// the pinned Claude Code CLI talking to MockAnthropic (in the test's thread: wait with QTRY_*),
// and the monitor's MainWindow connected to it with a file credential store. Header-only: only
// the monitor suites include it.

#include "core/MonitorSession.h"
#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/ServiceProcess.h"
#include "ui/AgentsView.h"
#include "ui/FileCredentialStore.h"
#include "ui/MainWindow.h"

#include <QDir>
#include <QJsonObject>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

namespace flotilla::test {

class MonitorUiFixture final {
public:
    QTemporaryDir tmp;
    MockAnthropic mock;
    ServiceProcess service;
    HttpClient http;
    QString cwd;
    // The service's token (set before startService); empty: none.
    QByteArray token;
    std::unique_ptr<monitor::MonitorSession> session;
    std::unique_ptr<monitor::ui::FileCredentialStore> store;
    std::unique_ptr<monitor::ui::MainWindow> window;

    QUrl url(const QString &path) const { return localUrl(service.port(), path); }
    QUrl baseUrl() const { return localUrl(service.port(), {}); }

    // Mock + service + a project directory for agents. `sandboxDefault`: the service's sandbox
    // for auto agents without one of their own (--sandbox-default).
    bool startService(quint16 port = 0, const QString &sandboxDefault = QStringLiteral("off")) {
        if (!tmp.isValid() || (!mock.port() && !mock.start()))
            return false;
        const QString home = tmp.path() + QStringLiteral("/service-home");
        QDir().mkpath(home);
        cwd = tmp.path() + QStringLiteral("/project");
        QDir().mkpath(cwd);
        // The agents' CLI inherits flotillad's environment: point it at the mock.
        QProcessEnvironment env = mock.claudeEnvironment(home);
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
        env.remove(QStringLiteral("AUTH_TOKEN"));
        if (!token.isEmpty()) {
            env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromUtf8(token));
            http.setToken(token);
        }
        env.remove(QStringLiteral("FLOTILLA_PORT"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        // As hermeticEnv: agents unconfined unless a suite asks for a sandbox.
        env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), sandboxDefault);
        QStringList args{QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data"),
                         QStringLiteral("--claude-bin"), MockAnthropic::claudeBinary()};
        if (port != 0)
            args << QStringLiteral("--port") << QString::number(port);
        return service.start(args, env);
    }

    // The window, shown and connecting; short reconnect backoff for restart tests.
    bool openWindow() {
        session = std::make_unique<monitor::MonitorSession>();
        session->client().setInitialBackoffMs(100);
        session->client().setMaxBackoffMs(400);
        store = std::make_unique<monitor::ui::FileCredentialStore>(tmp.path() +
                                                                   QStringLiteral("/tokens.json"));
        window = std::make_unique<monitor::ui::MainWindow>(*session, *store);
        window->resize(1400, 860);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get()))
            return false;
        window->connectTo({baseUrl(), token});
        return true;
    }

    void closeWindow() {
        window.reset();
        session.reset();
    }

    // POST /api/agents (permissionMode auto unless `extra` says otherwise); the id or empty.
    QString createAgent(const QString &name, const QJsonObject &extra = {}) {
        QJsonObject body{{QStringLiteral("name"), name},
                         {QStringLiteral("cwd"), cwd},
                         {QStringLiteral("permissionMode"), QStringLiteral("auto")}};
        for (auto it = extra.begin(); it != extra.end(); ++it)
            body.insert(it.key(), it.value());
        const HttpResponse r = http.post(url(QStringLiteral("/api/agents")), body);
        return r.status == 201 ? r.object().value(QStringLiteral("id")).toString() : QString();
    }

    HttpResponse sendMessage(const QString &agentId, const QString &text) {
        return http.post(url(QStringLiteral("/api/agents/%1/message").arg(agentId)),
                         {{QStringLiteral("message"), text}});
    }

    monitor::ui::AgentsView *agentsView() const { return window->agentsView(); }
    QTableView *table() const { return agentsView()->table(); }
};

} // namespace flotilla::test
