#pragma once
// The fields of POST /api/agents: name, working directory, class, model, permission mode. The
// last directory is remembered, since agents of one project usually share it.

#include <QDialog>
#include <QJsonObject>

class QComboBox;
class QLabel;
class QLineEdit;

namespace flotilla::monitor::ui {

class NewAgentDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NewAgentDialog)
public:
    explicit NewAgentDialog(QWidget *parent = nullptr);

    QJsonObject fields() const;
    void showError(const QString &error); // the service's refusal, dialog stays open
    void accept() override;

Q_SIGNALS:
    void createRequested(const QJsonObject &fields);

private:
    QLineEdit *m_name;
    QLineEdit *m_cwd;
    QComboBox *m_class;
    QComboBox *m_provider;
    QComboBox *m_model;
    QComboBox *m_permission;
    QLabel *m_error;
};

} // namespace flotilla::monitor::ui
