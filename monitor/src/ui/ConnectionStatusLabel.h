#pragma once
// The connection state for the status bar: Connected / Connecting / Reconnecting in N s /
// Authentication failed / Disconnected, with the last error as tooltip. Reconnection itself is
// the client's job; this only shows it (a 1 s timer counts down while a retry is scheduled).

#include "client/ServiceClient.h"

#include <QLabel>
#include <QTimer>

namespace flotilla::monitor::ui {

class ConnectionStatusLabel final : public QLabel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionStatusLabel)
public:
    explicit ConnectionStatusLabel(client::ServiceClient &client, QWidget *parent = nullptr);

    void refresh();

private:
    client::ServiceClient &m_client;
    QTimer m_tick;
    QString m_lastError;
};

} // namespace flotilla::monitor::ui
