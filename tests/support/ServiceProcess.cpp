#include "support/ServiceProcess.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>

namespace flotilla::test {

QProcessEnvironment hermeticEnv(const QString &home) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/xdg"));
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
    env.remove(QStringLiteral("AUTH_TOKEN"));
    env.remove(QStringLiteral("FLOTILLA_PORT"));
    // As TestService: agents unconfined unless a suite asks for a sandbox.
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
    return env;
}

QUrl localUrl(quint16 port, const QString &path) {
    return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path));
}

ServiceProcess::~ServiceProcess() {
    if (m_process.state() != QProcess::NotRunning)
        kill();
}

bool ServiceProcess::start(const QStringList &args, const QProcessEnvironment &env, int timeoutMs) {
    QStringList all = args;
    if (!all.contains(QStringLiteral("--port")))
        all << QStringLiteral("--port") << QStringLiteral("0");
    m_process.setProcessEnvironment(env);
    if (!m_wrapper.isEmpty())
        m_process.start(m_wrapper.constFirst(),
                        m_wrapper.mid(1) + QStringList{QStringLiteral(FLOTILLAD_PATH)} + all);
    else if (m_runAs.isEmpty())
        m_process.start(QStringLiteral(FLOTILLAD_PATH), all);
    else
        m_process.start(QStringLiteral("runuser"),
                        QStringList{QStringLiteral("--preserve-environment"), QStringLiteral("-u"),
                                    m_runAs, QStringLiteral("--"), QStringLiteral(FLOTILLAD_PATH)} +
                            all);
    if (!m_process.waitForStarted(timeoutMs))
        return false;
    static const QRegularExpression re(QStringLiteral("listening on \\S+:(\\d+)"));
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        if (m_process.state() == QProcess::NotRunning)
            break;
        m_process.waitForReadyRead(50);
        m_err += m_process.readAllStandardError();
        const auto match = re.match(QString::fromUtf8(m_err));
        if (match.hasMatch()) {
            m_port = quint16(match.captured(1).toUInt());
            return true;
        }
    }
    m_err += m_process.readAllStandardError();
    return false;
}

qint64 ServiceProcess::servicePid() const {
    const qint64 own = m_process.processId();
    if (m_runAs.isEmpty() || own <= 0)
        return own;
    QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(own));
    if (!children.open(QIODevice::ReadOnly))
        return -1;
    return children.readAll().trimmed().split(' ').value(0).toLongLong();
}

int ServiceProcess::runToExit(const QStringList &args, const QProcessEnvironment &env,
                              int timeoutMs) {
    m_process.setProcessEnvironment(env);
    m_process.start(QStringLiteral(FLOTILLAD_PATH), args);
    if (!m_process.waitForFinished(timeoutMs)) {
        kill();
        return -1;
    }
    m_err += m_process.readAllStandardError();
    m_out += m_process.readAllStandardOutput();
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}

bool ServiceProcess::terminate(int timeoutMs) {
    m_process.terminate();
    const bool ok = m_process.waitForFinished(timeoutMs);
    m_err += m_process.readAllStandardError();
    return ok;
}

void ServiceProcess::kill() {
    m_process.kill();
    m_process.waitForFinished(5000);
    m_err += m_process.readAllStandardError();
}

QByteArray ServiceProcess::stdErr() {
    m_err += m_process.readAllStandardError();
    return m_err;
}

QByteArray ServiceProcess::stdOut() {
    m_out += m_process.readAllStandardOutput();
    return m_out;
}

} // namespace flotilla::test
