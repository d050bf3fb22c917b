#pragma once
// The browser suites' bridge to tests/web/browser_driver.py (headless Chromium driven with
// Selenium): one JSON command per line in, one JSON answer per line out. The test's event loop
// keeps running while it waits, so a service in the same thread goes on serving the browser.
// The including target defines FLOTILLA_SYSTEM_PYTHON, FLOTILLA_BROWSER_DRIVER and
// FLOTILLA_SCREENSHOT_DIR (tests/web_browser_tests.cmake).

#include <QDebug>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QProcess>
#include <QTest>
#include <QUrl>

namespace flotilla::test {

// A bridge command's arguments: args({{"css", "#token"}, {"text", "abc"}}).
inline QJsonObject args(std::initializer_list<QPair<QString, QJsonValue>> pairs) {
    QJsonObject o;
    for (const auto &p : pairs)
        o.insert(p.first, p.second);
    return o;
}

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

    // --- What the page suites do with it ---
    static constexpr int kPhoneWidth = 360;
    static constexpr int kPhoneHeight = 740;
    static constexpr int kDesktopWidth = 1280;
    static constexpr int kDesktopHeight = 820;

    // Waits until `js` (a function body) returns something truthy; that value in *value.
    bool waitJs(const QString &js, int timeoutS = 20, QJsonValue *value = nullptr) {
        return run(QStringLiteral("wait_js"),
                   args({{QStringLiteral("js"), js}, {QStringLiteral("timeout"), timeoutS}}), value,
                   (timeoutS + 30) * 1000);
    }
    QJsonValue eval(const QString &js) {
        QJsonValue v;
        if (!run(QStringLiteral("eval"), args({{QStringLiteral("js"), js}}), &v))
            qWarning().noquote() << "eval failed:" << m_error;
        return v;
    }
    bool screenshot(const QString &name) {
        return run(QStringLiteral("screenshot"), args({{QStringLiteral("name"), name}}));
    }
    bool phone() {
        return run(QStringLiteral("viewport"), args({{QStringLiteral("width"), kPhoneWidth},
                                                     {QStringLiteral("height"), kPhoneHeight},
                                                     {QStringLiteral("mobile"), true}}));
    }
    bool desktop() {
        return run(QStringLiteral("viewport"), args({{QStringLiteral("width"), kDesktopWidth},
                                                     {QStringLiteral("height"), kDesktopHeight}}));
    }
    bool clickNav(const QString &section) {
        return run(QStringLiteral("click"),
                   args({{QStringLiteral("css"),
                          QStringLiteral("nav a[data-section=\"%1\"]").arg(section)}}));
    }
    bool typeInto(const QString &css, const QString &text, bool clear = false) {
        return run(QStringLiteral("type"), args({{QStringLiteral("css"), css},
                                                 {QStringLiteral("text"), text},
                                                 {QStringLiteral("clear"), clear}}));
    }
    // The sign-in screen's error once it shows; empty if it never does.
    QString signInError(int timeoutS) {
        QJsonValue shown;
        if (!waitJs(QStringLiteral("const e = document.getElementById('signin-error');"
                                   "return e && !e.hidden && e.textContent"),
                    timeoutS, &shown))
            return {};
        return shown.toString();
    }
    // Opens the page at phone size with empty storage and signs in with `token`; true once the
    // agents list shows `agents` rows.
    bool signIn(const QByteArray &token, int agents) {
        return run(QStringLiteral("open"), args({{QStringLiteral("path"), QStringLiteral("/")},
                                                 {QStringLiteral("width"), kPhoneWidth},
                                                 {QStringLiteral("height"), kPhoneHeight},
                                                 {QStringLiteral("mobile"), true},
                                                 {QStringLiteral("clearStorage"), true}})) &&
               waitJs(QStringLiteral("return document.getElementById('signin-form')")) &&
               typeInto(QStringLiteral("#token"), QString::fromLatin1(token + '\n')) &&
               waitJs(QStringLiteral(
                          "return document.querySelectorAll('#agent-list li.agent').length === %1")
                          .arg(agents));
    }

    // Debian's chromium and chromium-driver present, the browser started at `page` and signed in
    // with `token` (the agents list showing `agents` rows); false with `error` set otherwise.
    bool startSignedIn(const QUrl &page, const QByteArray &token, int agents, QString *error) {
        for (const char *tool : {"/usr/bin/chromium", "/usr/bin/chromedriver"}) {
            if (!QFile::exists(QString::fromLatin1(tool))) {
                *error = QStringLiteral("Debian's chromium and chromium-driver are needed: "
                                        "scripts/install-deps.sh");
                return false;
            }
        }
        if (!start(page, {}, error))
            return false;
        if (!signIn(token, agents)) {
            *error = lastError();
            return false;
        }
        return true;
    }

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
