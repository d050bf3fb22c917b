#pragma once
// The connection state for the status bar: Connected / Connecting / Reconnecting in N s /
// Authentication failed / Disconnected, with the last error as tooltip. For an ssh:// service
// the tunnel's state comes first while it is not up (opening, restarting, failed and why).
// Reconnection itself is the client's and the tunnel's job; this only shows it (a 1 s timer
// counts down while a retry is scheduled).

#include "client/ServiceClient.h"

#include <QLabel>
#include <QTimer>

namespace flotilla::monitor {
class SshTunnel;
}

namespace flotilla::monitor::ui {

class ConnectionStatusLabel final : public QLabel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionStatusLabel)
public:
    ConnectionStatusLabel(client::ServiceClient &client, SshTunnel &tunnel,
                          QWidget *parent = nullptr);

    void refresh();

private:
    // The tunnel's part while it is not up; false when the client's state is what to show.
    bool describeTunnel(QString *text, QString *colour) const;

    client::ServiceClient &m_client;
    SshTunnel &m_tunnel;
    QTimer m_tick;
    QString m_lastError;
};

} // namespace flotilla::monitor::ui
