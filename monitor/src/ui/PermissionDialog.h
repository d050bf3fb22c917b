#pragma once
// One pending permission request: which agent, which tool, its input (pretty-printed JSON), and
// Grant / Deny. Non-modal, so several agents can wait at once and the window stays usable.
// Closing without a choice leaves the request pending (the service denies it at its deadline).

#include <QDialog>
#include <QJsonObject>

namespace flotilla::monitor::ui {

class PermissionDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PermissionDialog)
public:
    explicit PermissionDialog(const QJsonObject &request, QWidget *parent = nullptr);

    QString requestId() const { return m_id; }

Q_SIGNALS:
    void answered(const QString &requestId, bool granted);

private:
    QString m_id;
};

} // namespace flotilla::monitor::ui
