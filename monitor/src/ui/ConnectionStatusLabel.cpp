#include "ui/ConnectionStatusLabel.h"

#include "core/SshTunnel.h"

#include <cmath>

namespace flotilla::monitor::ui {

using client::ConnectionState;

namespace {
const QString kGreen = QStringLiteral("#2e7d32");
const QString kYellow = QStringLiteral("#f9a825");
const QString kRed = QStringLiteral("#c62828");
const QString kGrey = QStringLiteral("#757575");
} // namespace

ConnectionStatusLabel::ConnectionStatusLabel(client::ServiceClient &client, SshTunnel &tunnel,
                                             QWidget *parent)
    : QLabel(parent)
    , m_client(client)
    , m_tunnel(tunnel) {
    setObjectName(QStringLiteral("connectionState"));
    setTextFormat(Qt::RichText);
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &ConnectionStatusLabel::refresh);
    connect(&m_client, &client::ServiceClient::stateChanged, this, &ConnectionStatusLabel::refresh);
    connect(&m_client, &client::ServiceClient::connectionError, this,
            [this](const QString &message) {
                m_lastError = message;
                refresh();
            });
    connect(&m_tunnel, &SshTunnel::stateChanged, this, &ConnectionStatusLabel::refresh);
    connect(&m_tunnel, &SshTunnel::errorChanged, this, &ConnectionStatusLabel::refresh);
    refresh();
}

bool ConnectionStatusLabel::describeTunnel(QString *text, QString *colour) const {
    const QString target = m_tunnel.target().destination();
    switch (m_tunnel.state()) {
    case SshTunnel::State::Stopped:
    case SshTunnel::State::Up:
        return false;
    case SshTunnel::State::Starting:
        *text = tr("Opening an ssh tunnel to %1...").arg(target);
        *colour = kYellow;
        return true;
    case SshTunnel::State::Reconnecting:
        *text = tr("ssh tunnel to %1 lost: restarting (attempt %2)")
                    .arg(target)
                    .arg(m_tunnel.attempt());
        *colour = kYellow;
        return true;
    case SshTunnel::State::Failed: {
        // The first line is ssh's own (e.g. "Permission denied (publickey)"); the tooltip has
        // the rest, with what to do about it.
        const QString why = m_tunnel.lastError().section(QLatin1Char('\n'), 0, 0);
        *text = target.isEmpty() ? tr("ssh tunnel failed: %1").arg(why)
                                 : tr("ssh tunnel to %1 failed: %2").arg(target, why);
        *colour = kRed;
        return true;
    }
    }
    return false;
}

void ConnectionStatusLabel::refresh() {
    const ConnectionState state = m_client.state();
    const bool viaSsh = m_tunnel.state() != SshTunnel::State::Stopped;
    // Through a tunnel the client's URL is a local port: name the ssh:// service instead.
    const QString where = viaSsh ? m_tunnel.target().url().toDisplayString()
                                 : m_client.endpoint().baseUrl.toDisplayString();
    QString text;
    QString colour;
    if (!describeTunnel(&text, &colour)) {
        switch (state) {
        case ConnectionState::Connected:
            text = tr("Connected to %1").arg(where);
            colour = kGreen;
            m_lastError.clear();
            break;
        case ConnectionState::Connecting:
            text = tr("Connecting to %1...").arg(where);
            colour = kYellow;
            break;
        case ConnectionState::Reconnecting: {
            const qint64 ms = m_client.nextRetryInMs();
            text = ms >= 0 ? tr("Reconnecting in %1 s (attempt %2)")
                                 .arg(qint64(std::ceil(double(ms) / 1000.0)))
                                 .arg(m_client.reconnectAttempt())
                           : tr("Reconnecting...");
            colour = kYellow;
            break;
        }
        case ConnectionState::AuthFailed:
            text = tr("Authentication failed: check the token (File > Connect)");
            colour = kRed;
            break;
        case ConnectionState::Disconnected:
            text = tr("Disconnected");
            colour = kGrey;
            break;
        }
    }
    // The countdown needs a tick only while a retry is pending.
    if (state == ConnectionState::Reconnecting)
        m_tick.start();
    else
        m_tick.stop();
    setText(QStringLiteral("<span style=\"color:%1\">&#9679;</span> %2")
                .arg(colour, text.toHtmlEscaped()));
    // What ssh said (e.g. nothing listening on the remote port) explains a client error too.
    QStringList tip;
    if (!m_lastError.isEmpty())
        tip << m_lastError;
    if (viaSsh && !m_tunnel.lastError().isEmpty())
        tip << tr("ssh: %1").arg(m_tunnel.lastError());
    setToolTip(tip.join(QLatin1Char('\n')));
    setProperty("connectionState", client::toString(state));
    setProperty("tunnelState", toString(m_tunnel.state()));
}

} // namespace flotilla::monitor::ui
