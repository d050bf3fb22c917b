#pragma once
// SIGTERM/SIGINT/SIGHUP turned into a Qt signal through a self-pipe: the handler only writes a
// byte (all it may safely do), all real work happens in the event loop.

#include <QObject>

class QSocketNotifier;

namespace flotilla {

class UnixSignals final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UnixSignals)
public:
    explicit UnixSignals(QObject *parent = nullptr);
    ~UnixSignals() override;

Q_SIGNALS:
    void terminateRequested(int signalNumber);

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace flotilla
