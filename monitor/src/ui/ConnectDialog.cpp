#include "ui/ConnectDialog.h"

#include "core/SshTarget.h"
#include "ui/CredentialStore.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

ConnectDialog::ConnectDialog(CredentialStore &store, QWidget *parent)
    : QDialog(parent)
    , m_store(store)
    , m_saved(new QComboBox(this))
    , m_name(new QLineEdit(this))
    , m_url(new QLineEdit(this))
    , m_token(new QLineEdit(this))
    , m_remember(new QCheckBox(tr("&Remember the token"), this))
    , m_warning(new QLabel(this))
    , m_error(new QLabel(this))
    , m_remove(new QPushButton(tr("Re&move"), this)) {
    setWindowTitle(tr("Connect to flotillad"));
    setObjectName(QStringLiteral("connectDialog"));
    m_saved->setObjectName(QStringLiteral("savedServices"));
    m_url->setObjectName(QStringLiteral("serviceUrl"));
    m_token->setObjectName(QStringLiteral("serviceToken"));
    m_warning->setObjectName(QStringLiteral("keyringWarning"));
    m_error->setObjectName(QStringLiteral("connectError"));
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:5174"));
    m_url->setToolTip(
        tr("http://host:port for a service this machine reaches directly;\n"
           "ssh://user@host[:ssh port]?port=5174 for a flotillad on another machine,\n"
           "reached through ssh (key authentication: ssh never prompts here)."));
    m_token->setEchoMode(QLineEdit::Password);
    connect(m_url, &QLineEdit::textChanged, this, &ConnectDialog::showTokenHint);
    showTokenHint();
    m_name->setPlaceholderText(tr("optional"));
    m_remember->setChecked(true);
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("color: #a15c00;"));
    m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_error->hide();

    auto *savedRow = new QHBoxLayout;
    savedRow->addWidget(m_saved, 1);
    savedRow->addWidget(m_remove);
    auto *form = new QFormLayout;
    form->addRow(tr("&Saved:"), savedRow);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("Service &URL:"), m_url);
    form->addRow(tr("&Token:"), m_token);
    form->addRow(QString(), m_remember);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Connect"));
    connect(buttons, &QDialogButtonBox::accepted, this, &ConnectDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ConnectDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_warning);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    connect(m_saved, &QComboBox::currentIndexChanged, this, &ConnectDialog::showProfile);
    connect(m_remove, &QPushButton::clicked, this, &ConnectDialog::removeProfile);
    connect(&m_store, &CredentialStore::warningChanged, this, &ConnectDialog::showWarning);
    showWarning(m_store.warning());
    reloadProfiles(m_profiles.lastUsed());
    if (m_profiles.all().isEmpty()) {
        // Ask the store once so a missing keyring is reported before the user types a token.
        m_store.readToken(QStringLiteral("flotilla-monitor-probe"),
                          [](bool, const QByteArray &) {});
    }
}

void ConnectDialog::reloadProfiles(const QUrl &select) {
    const QSignalBlocker block(m_saved);
    m_saved->clear();
    for (const ServiceProfile &p : m_profiles.all())
        m_saved->addItem(p.name + QStringLiteral("  (") + p.key() + QLatin1Char(')'), p.url);
    m_saved->addItem(tr("New service..."));
    const int i = m_profiles.indexOf(select);
    m_saved->setCurrentIndex(i >= 0 ? i : m_saved->count() - 1);
    showProfile(m_saved->currentIndex());
}

void ConnectDialog::showProfile(int index) {
    const QList<ServiceProfile> all = m_profiles.all();
    ++m_readGeneration;
    m_token->clear();
    m_error->hide();
    if (index < 0 || index >= all.size()) {
        m_remove->setEnabled(false);
        m_name->clear();
        m_url->setText(QStringLiteral("http://127.0.0.1:5174"));
        m_remember->setChecked(true);
        return;
    }
    const ServiceProfile &p = all[index];
    m_remove->setEnabled(true);
    m_name->setText(p.name);
    m_url->setText(p.key());
    m_remember->setChecked(p.rememberToken);
    if (!p.rememberToken)
        return;
    const int generation = m_readGeneration;
    const QPointer<ConnectDialog> self(this);
    m_store.readToken(p.key(), [self, generation](bool found, const QByteArray &token) {
        if (self && found && generation == self->m_readGeneration &&
            self->m_token->text().isEmpty())
            self->m_token->setText(QString::fromUtf8(token));
    });
}

void ConnectDialog::removeProfile() {
    const QUrl url = m_saved->currentData().toUrl();
    if (!url.isValid())
        return;
    m_store.removeToken(url.toString(QUrl::StripTrailingSlash));
    m_profiles.remove(url);
    reloadProfiles({});
}

void ConnectDialog::showTokenHint() {
    // A remote service's token has to be typed: the local token file is this machine's.
    m_token->setPlaceholderText(isSshUrl(enteredUrl())
                                    ? tr("the remote service's token (empty: it runs without one)")
                                    : tr("empty when the service runs without AUTH_TOKEN"));
}

void ConnectDialog::showWarning(const QString &warning) {
    m_warning->setText(warning);
    m_warning->setVisible(!warning.isEmpty());
}

void ConnectDialog::preset(const QUrl &url, const QByteArray &token) {
    const int i = m_profiles.indexOf(url);
    if (i >= 0)
        m_saved->setCurrentIndex(i);
    else
        m_saved->setCurrentIndex(m_saved->count() - 1);
    m_url->setText(url.toString(QUrl::StripTrailingSlash));
    if (!token.isEmpty())
        m_token->setText(QString::fromUtf8(token));
}

QUrl ConnectDialog::enteredUrl() const {
    QString text = m_url->text().trimmed();
    if (!text.contains(QStringLiteral("://")))
        text.prepend(QStringLiteral("http://"));
    return QUrl(text, QUrl::StrictMode).adjusted(QUrl::StripTrailingSlash);
}

client::Endpoint ConnectDialog::endpoint() const {
    return {enteredUrl(), m_token->text().trimmed().toUtf8()};
}

ServiceProfile ConnectDialog::profile() const {
    return {m_name->text().trimmed(), enteredUrl(), m_remember->isChecked()};
}

void ConnectDialog::accept() {
    const QUrl url = enteredUrl();
    const bool schemeOk =
        url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https");
    QString refusal;
    if (isSshUrl(url))
        (void)parseSshTarget(url, &refusal);
    else if (!url.isValid() || url.host().isEmpty() || !schemeOk)
        refusal = tr("Enter a service URL such as http://127.0.0.1:5174 or "
                     "ssh://user@host?port=5174.");
    if (!refusal.isEmpty()) {
        m_error->setText(refusal);
        m_error->show();
        m_url->setFocus();
        return;
    }
    const ServiceProfile p = profile();
    m_profiles.upsert(p);
    const QByteArray token = m_token->text().trimmed().toUtf8();
    if (p.rememberToken && !token.isEmpty())
        m_store.writeToken(p.key(), token);
    else
        m_store.removeToken(p.key());
    QDialog::accept();
}

} // namespace flotilla::monitor::ui
