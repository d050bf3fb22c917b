// MonitorSession's side of ssh:// services: the session opens the tunnel instead of connecting,
// connects its client to the tunnel's local port once the tunnel is up, and again whenever ssh
// had to be restarted. Kept apart from MonitorSession.cpp so the rest of the session does not
// know about ssh at all.

#include "core/MonitorLog.h"
#include "core/MonitorSession.h"

namespace flotilla::monitor {

using client::ConnectionState;

bool MonitorSession::openTunnelled(const client::Endpoint &endpoint) {
    if (!isSshUrl(endpoint.baseUrl)) {
        m_tunnel.stop(); // a tunnel of a previous ssh:// service is not needed any more
        return false;
    }
    m_client.disconnectFromService();
    // The token the user typed, never the local token file's: the tunnel's local URL looks
    // like this machine's service, but the remote one must not receive this machine's secret.
    m_client.setEndpoint({QUrl(), endpoint.token});
    m_tunnel.start(endpoint.baseUrl); // a refused URL goes to Failed, with the reason
    return true;
}

void MonitorSession::onTunnelStateChanged(SshTunnel::State state) {
    if (!isSshUrl(m_requested.baseUrl))
        return;
    switch (state) {
    case SshTunnel::State::Up: {
        // A restarted ssh may listen on another port; and the client is told at once rather
        // than at its next backoff step.
        const client::Endpoint through{m_tunnel.localUrl(), m_requested.token};
        if (m_client.state() == ConnectionState::Connected &&
            m_client.endpoint().baseUrl == through.baseUrl)
            return;
        qCInfo(lcMonitor) << "connecting through the ssh tunnel at" << through.baseUrl;
        m_client.setEndpoint(through);
        m_client.connectToService();
        break;
    }
    case SshTunnel::State::Failed:
        // Nothing to connect to until the user changes something; the tunnel says why.
        m_client.disconnectFromService();
        break;
    case SshTunnel::State::Starting:
    case SshTunnel::State::Reconnecting:
    case SshTunnel::State::Stopped:
        // A dropped tunnel closes the WebSocket: the client notices and retries by itself
        // until the tunnel is up again.
        break;
    }
}

} // namespace flotilla::monitor
