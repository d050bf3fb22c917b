#pragma once
// The browser suites' bridge to tests/web/browser_driver.py (headless Chromium driven with
// Selenium): one JSON command per line in, one JSON answer per line out. The test's event loop
// keeps running while it waits, so a service in the same thread goes on serving the browser.
// The including target defines FLOTILLA_SYSTEM_PYTHON, FLOTILLA_BROWSER_DRIVER and
// FLOTILLA_SCREENSHOT_DIR (tests/web_browser_tests.cmake).

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <QUrl>

namespace flotilla::test {

class Browser final {
public:
    ~Browser() { quit(); }

    // `extraArgs` go to browser_driver.py (e.g. --ignore-certificate-errors).
    bool start(const QUrl &base, const QStringList &extraArgs, QString *error) {
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process,
                         [this] { m_buffer += m_process.readAllStandardOutput(); });
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        const QStringList arguments =
            QStringList{QStringLiteral(FLOTILLA_BROWSER_DRIVER), QStringLiteral("--url"),
                        base.toString(), QStringLiteral("--screenshots"),
                        QStringLiteral(FLOTILLA_SCREENSHOT_DIR)} +
            extraArgs;
        m_process.start(QStringLiteral(FLOTILLA_SYSTEM_PYTHON), arguments);
        const QJsonObject hello = readAnswer(60000);
        if (!hello.value(QStringLiteral("ok")).toBool()) {
            *error = QStringLiteral("the browser bridge did not start: ") +
                     hello.value(QStringLiteral("error")).toString();
            return false;
        }
        return true;
    }

    // Runs one command; false with the bridge's error in lastError().
    bool run(const QString &cmd, QJsonObject args = {}, QJsonValue *value = nullptr,
             int timeoutMs = 90000) {
        args.insert(QStringLiteral("cmd"), cmd);
        m_process.write(QJsonDocument(args).toJson(QJsonDocument::Compact) + '\n');
        const QJsonObject answer = readAnswer(timeoutMs);
        if (value)
            *value = answer.value(QStringLiteral("value"));
        m_error = answer.value(QStringLiteral("error")).toString();
        if (!answer.value(QStringLiteral("ok")).toBool() && m_error.isEmpty())
            m_error = QStringLiteral("no answer from the browser bridge");
        return answer.value(QStringLiteral("ok")).toBool();
    }
    QString lastError() const { return m_error; }

    void quit() {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.write("{\"cmd\":\"quit\"}\n");
        m_process.closeWriteChannel();
        if (!QTest::qWaitFor([this] { return m_process.state() == QProcess::NotRunning; }, 15000))
            m_process.kill();
        m_process.waitForFinished(5000);
    }

private:
    QJsonObject readAnswer(int timeoutMs) {
        // The service lives in this thread: spin the event loop while the browser works.
        (void)QTest::qWaitFor(
            [this] { return m_buffer.contains('\n') || m_process.state() == QProcess::NotRunning; },
            timeoutMs);
        const qsizetype eol = m_buffer.indexOf('\n');
        if (eol < 0)
            return {};
        const QByteArray line = m_buffer.left(eol);
        m_buffer.remove(0, eol + 1);
        return QJsonDocument::fromJson(line).object();
    }

    QProcess m_process;
    QByteArray m_buffer;
    QString m_error;
};

} // namespace flotilla::test
