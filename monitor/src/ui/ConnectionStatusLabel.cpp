#include "ui/ConnectionStatusLabel.h"

#include <cmath>

namespace flotilla::monitor::ui {

using client::ConnectionState;

ConnectionStatusLabel::ConnectionStatusLabel(client::ServiceClient &client, QWidget *parent)
    : QLabel(parent)
    , m_client(client) {
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
    refresh();
}

void ConnectionStatusLabel::refresh() {
    const ConnectionState state = m_client.state();
    QString text;
    QString colour;
    switch (state) {
    case ConnectionState::Connected:
        text = tr("Connected to %1").arg(m_client.endpoint().baseUrl.toDisplayString());
        colour = QStringLiteral("#2e7d32");
        m_lastError.clear();
        break;
    case ConnectionState::Connecting:
        text = tr("Connecting to %1...").arg(m_client.endpoint().baseUrl.toDisplayString());
        colour = QStringLiteral("#f9a825");
        break;
    case ConnectionState::Reconnecting: {
        const qint64 ms = m_client.nextRetryInMs();
        text = ms >= 0 ? tr("Reconnecting in %1 s (attempt %2)")
                             .arg(qint64(std::ceil(double(ms) / 1000.0)))
                             .arg(m_client.reconnectAttempt())
                       : tr("Reconnecting...");
        colour = QStringLiteral("#f9a825");
        break;
    }
    case ConnectionState::AuthFailed:
        text = tr("Authentication failed: check the token (File > Connect)");
        colour = QStringLiteral("#c62828");
        break;
    case ConnectionState::Disconnected:
        text = tr("Disconnected");
        colour = QStringLiteral("#757575");
        break;
    }
    // The countdown needs a tick only while a retry is pending.
    if (state == ConnectionState::Reconnecting)
        m_tick.start();
    else
        m_tick.stop();
    setText(QStringLiteral("<span style=\"color:%1\">&#9679;</span> %2")
                .arg(colour, text.toHtmlEscaped()));
    setToolTip(m_lastError);
    setProperty("connectionState", client::toString(state));
}

} // namespace flotilla::monitor::ui
