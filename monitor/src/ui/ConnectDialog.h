#pragma once
// Choose a service: saved services (ServiceProfiles) or a new URL, and its token. The token is
// read from and written to the CredentialStore; when the store has no keyring the dialog shows
// where the token goes instead.

#include "client/ServiceClient.h"
#include "ui/ServiceProfiles.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace flotilla::monitor::ui {

class CredentialStore;

class ConnectDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectDialog)
public:
    ConnectDialog(CredentialStore &store, QWidget *parent = nullptr);

    client::Endpoint endpoint() const;
    ServiceProfile profile() const;
    // Fills the fields (e.g. from the command line) without saving anything yet.
    void preset(const QUrl &url, const QByteArray &token);

    void accept() override;

private:
    void reloadProfiles(const QUrl &select);
    void showProfile(int index);
    void removeProfile();
    void showTokenHint();
    void showWarning(const QString &warning);
    QUrl enteredUrl() const;

    CredentialStore &m_store;
    ServiceProfiles m_profiles;
    QComboBox *m_saved;
    QLineEdit *m_name;
    QLineEdit *m_url;
    QLineEdit *m_token;
    QCheckBox *m_remember;
    QLabel *m_warning;
    QLabel *m_error;
    QPushButton *m_remove;
    int m_readGeneration = 0; // drops token reads answered after the user moved on
};

} // namespace flotilla::monitor::ui
