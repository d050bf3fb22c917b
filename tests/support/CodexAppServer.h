#pragma once
// One real `codex app-server` over stdio for tests (JSON-RPC 2.0, one JSON object per line each
// way), pointed at a MockOpenAI: send requests and notifications, wait for messages, answer the
// server's requests. What the CLI does with each call is recorded in tst_mock_openai.cpp.

#include "support/MockOpenAI.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

#include <csignal>
#include <functional>
#include <memory>

#include <sys/types.h>
#include <unistd.h>

namespace flotilla::test {

namespace jsonrpc {

inline QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

inline QJsonObject sub(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toObject();
}

inline QJsonObject paramsOf(const QJsonObject &message) {
    return sub(message, "params");
}

inline bool isMethod(const QJsonObject &message, const char *method) {
    return str(message, "method") == QLatin1String(method);
}

// A request of the server to the client: it has both an id and a method.
inline bool isServerRequest(const QJsonObject &message) {
    return message.contains(QLatin1String("id")) && message.contains(QLatin1String("method"));
}

// One `codex app-server` over stdio. Client request ids count from 1.
} // namespace jsonrpc

using namespace jsonrpc; // NOLINT(google-build-using-namespace): test helpers

class AppServer final {
public:
    AppServer(const MockOpenAI &mock, const QString &home, const QString &cwd,
              const QStringList &extraArgs = {}) {
        m_process.setProcessEnvironment(mock.codexEnvironment(home));
        m_process.setWorkingDirectory(cwd);
        m_process.setProgram(MockOpenAI::codexBinary());
        m_process.setArguments(QStringList{QStringLiteral("app-server")} + extraArgs);
        // `.bin/codex` is a node launcher; without process.execve (Node < 22.15, Debian's 18 and
        // 20 included) it spawns the native binary as a child and only forwards SIGINT, SIGTERM
        // and SIGHUP. A SIGKILL of the launcher alone leaves the native app-server running until
        // its stdin closes, so it gets a process group of its own and kill() signals the group.
        m_process.setChildProcessModifier([] { ::setpgid(0, 0); });
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process,
                         [this] { readOut(); });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { m_err += m_process.readAllStandardError(); });
    }
    ~AppServer() { kill(); }

    // Starts the process and does the initialize handshake.
    bool start() {
        m_process.start();
        if (!m_process.waitForStarted(10000))
            return false;
        const QJsonObject info{{QStringLiteral("name"), QStringLiteral("flotilla-test")},
                               {QStringLiteral("version"), QStringLiteral("0")}};
        const int id = request("initialize", {{QStringLiteral("clientInfo"), info}});
        if (!waitResult(id).contains(QLatin1String("userAgent")))
            return false;
        notify("initialized");
        return true;
    }
    int request(const char *method, const QJsonObject &params) {
        const int id = m_nextId++;
        write({{QStringLiteral("id"), id},
               {QStringLiteral("method"), QLatin1String(method)},
               {QStringLiteral("params"), params}});
        return id;
    }
    void notify(const char *method) { write({{QStringLiteral("method"), QLatin1String(method)}}); }
    void respond(const QJsonValue &id, const QJsonObject &result) {
        write({{QStringLiteral("id"), id}, {QStringLiteral("result"), result}});
    }
    // The result of request `id` ({} when it failed or timed out; see response()).
    QJsonObject waitResult(int id, int timeoutMs = 30000) {
        const int i = waitFor(
            [id](const QJsonObject &m) {
                return !m.contains(QLatin1String("method")) &&
                       m.value(QLatin1String("id")).toInt(-1) == id;
            },
            timeoutMs);
        return i < 0 ? QJsonObject() : sub(m_messages.at(i), "result");
    }
    // thread/start -> thread id; turn/start -> turn id (empty on failure).
    QString startThread(const QJsonObject &params) {
        return str(sub(waitResult(request("thread/start", params)), "thread"), "id");
    }
    QString startTurn(const QString &threadId, const QString &text, QJsonObject params = {}) {
        params.insert(QStringLiteral("threadId"), threadId);
        params.insert(QStringLiteral("input"),
                      QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                             {QStringLiteral("text"), text}}});
        return str(sub(waitResult(request("turn/start", params)), "turn"), "id");
    }

    // Index of the first message at or after `from` matching `pred`, waiting up to timeoutMs; -1.
    int waitFor(const std::function<bool(const QJsonObject &)> &pred, int timeoutMs = 30000,
                int from = 0) {
        int found = -1;
        const auto scan = [&] {
            readOut();
            for (int i = from; found < 0 && i < m_messages.size(); ++i)
                found = pred(m_messages.at(i)) ? i : -1;
            return found >= 0;
        };
        (void)QTest::qWaitFor([&] { return scan() || m_process.state() == QProcess::NotRunning; },
                              timeoutMs);
        return scan() ? found : -1;
    }
    int waitMethod(const char *method, int timeoutMs = 30000, int from = 0) {
        return waitFor([method](const QJsonObject &m) { return isMethod(m, method); }, timeoutMs,
                       from);
    }

    QJsonObject message(int i) const { return m_messages.value(i); }
    QList<QJsonObject> messages() const { return m_messages; }
    // Params of every message with this method, in order.
    QList<QJsonObject> paramsWith(const char *method) const {
        QList<QJsonObject> out;
        for (const QJsonObject &m : m_messages)
            if (isMethod(m, method))
                out << paramsOf(m);
        return out;
    }
    // item/completed items of this type.
    QList<QJsonObject> completedItems(const char *type) const {
        QList<QJsonObject> out;
        for (const QJsonObject &p : paramsWith("item/completed"))
            if (str(sub(p, "item"), "type") == QLatin1String(type))
                out << sub(p, "item");
        return out;
    }

    // Closes stdin (app-server then exits) and waits for the exit.
    bool finish(int timeoutMs = 15000) {
        m_process.closeWriteChannel();
        return QTest::qWaitFor([this] { return m_process.state() == QProcess::NotRunning; },
                               timeoutMs);
    }
    // SIGKILL to the launcher and the native binary alike.
    void kill() {
        if (m_process.state() != QProcess::NotRunning) {
            ::kill(-pid_t(m_process.processId()), SIGKILL);
            m_process.waitForFinished(5000);
        }
    }
    // For failure messages: stderr and the last stdout lines.
    QByteArray diag() const {
        QByteArray out = "\n--- stderr:\n" + m_err.right(2000) + "\n--- last stdout lines:\n";
        for (qsizetype i = qMax<qsizetype>(0, m_raw.size() - 10); i < m_raw.size(); ++i)
            out += m_raw.at(i).left(700) + '\n';
        return out;
    }

private:
    void write(const QJsonObject &message) {
        m_process.write(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
    }
    void readOut() {
        m_buffer += m_process.readAllStandardOutput();
        qsizetype nl;
        while ((nl = m_buffer.indexOf('\n')) >= 0) {
            const QByteArray line = m_buffer.left(nl).trimmed();
            m_buffer.remove(0, nl + 1);
            if (line.isEmpty())
                continue;
            m_raw << line;
            m_messages << QJsonDocument::fromJson(line).object();
        }
    }

    QProcess m_process;
    QByteArray m_buffer;
    QByteArray m_err;
    QList<QByteArray> m_raw;
    QList<QJsonObject> m_messages;
    int m_nextId = 1;
};

} // namespace flotilla::test
