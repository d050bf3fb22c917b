#include "support/TestService.h"

namespace flotilla::test {

TestService::TestService(const std::function<void(ServerConfig &)> &tweak) {
    m_config.host = QHostAddress(QHostAddress::LocalHost);
    m_config.port = 0;
    m_config.dataDir = m_data.path() + QStringLiteral("/data");
    // Suites run agents unconfined unless they ask (tst_sandbox_agents does): a sandbox is the
    // default for auto agents wherever bubblewrap works, which would change what every agent
    // suite tests.
    m_config.sandboxDefault = QStringLiteral("off");
    if (tweak)
        tweak(m_config);
}

TestService::~TestService() {
    stop();
}

bool TestService::start() {
    m_app = std::make_unique<ServiceApp>(m_config);
    if (auto failure = m_app->start()) {
        m_error = failure->message;
        m_app.reset();
        return false;
    }
    return true;
}

void TestService::stop() {
    m_app.reset();
}

QUrl TestService::url(const QString &path) const {
    return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port()).arg(path));
}

QUrl TestService::wsUrl(const QString &pathAndQuery) const {
    return QUrl(QStringLiteral("ws://127.0.0.1:%1%2").arg(port()).arg(pathAndQuery));
}

} // namespace flotilla::test
