#include "ui/HostsDialog.h"

#include "core/HostsModel.h"
#include "core/MonitorSession.h"
#include "protocol/HostNames.h"
#include "ui/LibraryCommon.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace hk = ::flotilla::wire::host::key;

HostsDialog::HostsDialog(MonitorSession &session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_table(new QTableView(this))
    , m_check(makeButton(this, tr("&Check"), QStringLiteral("checkHostButton"),
                         [this] { checkCurrent(); }))
    , m_remove(makeButton(this, tr("&Remove..."), QStringLiteral("removeHostButton"),
                          [this] { removeCurrent(); }))
    , m_name(new QLineEdit(this))
    , m_ssh(new QLineEdit(this))
    , m_claudeBin(new QLineEdit(this))
    , m_codexBin(new QLineEdit(this))
    , m_add(makeButton(this, tr("&Add"), QStringLiteral("addHostButton"), [this] { addHost(); }))
    , m_outcome(new QLabel(this)) {
    setObjectName(QStringLiteral("hostsDialog"));
    setWindowTitle(tr("Hosts"));
    m_check->setToolTip(tr("Connect afresh and report the latency and the CLIs there"));

    m_table->setObjectName(QStringLiteral("hostsTable"));
    m_table->setModel(&m_session.hosts());
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(HostsModel::Name, 110);
    m_table->setColumnWidth(HostsModel::Ssh, 160);
    m_table->setColumnWidth(HostsModel::State, 100);
    m_table->setColumnWidth(HostsModel::Error, 300); // ssh's own words; whole in the tooltip
    m_table->setColumnWidth(HostsModel::Agents, 60);
    m_table->setColumnWidth(HostsModel::Latency, 90);
    for (const int column : {HostsModel::Claude, HostsModel::Codex, HostsModel::Git})
        m_table->setColumnWidth(column, 130);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &HostsDialog::updateButtons);
    // A removed row may have been the current one.
    connect(&m_session.hosts(), &QAbstractItemModel::rowsRemoved, this,
            &HostsDialog::updateButtons);

    m_name->setObjectName(QStringLiteral("hostName"));
    m_name->setMaxLength(40);
    m_name->setPlaceholderText(tr("lower case letters, digits, '-'"));
    m_ssh->setObjectName(QStringLiteral("hostSsh"));
    m_ssh->setPlaceholderText(tr("user@host[:port] or an alias of your ssh config"));
    m_claudeBin->setObjectName(QStringLiteral("hostClaudeBin"));
    m_claudeBin->setPlaceholderText(tr("default: claude on that host's PATH"));
    m_codexBin->setObjectName(QStringLiteral("hostCodexBin"));
    m_codexBin->setPlaceholderText(tr("default: codex on that host's PATH"));
    connect(m_ssh, &QLineEdit::returnPressed, this, &HostsDialog::addHost);
    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&SSH:"), m_ssh);
    form->addRow(tr("C&laude there:"), m_claudeBin);
    form->addRow(tr("Co&dex there:"), m_codexBin);
    form->addRow(QString(), m_add);
    auto *adding = new QGroupBox(tr("Add a host"), this);
    adding->setLayout(form);

    m_outcome->setObjectName(QStringLiteral("hostsOutcome"));
    m_outcome->setWordWrap(true);
    m_outcome->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_outcome->hide();

    auto *close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttonRow({m_check, m_remove}));
    layout->addWidget(m_outcome);
    layout->addWidget(adding);
    layout->addWidget(close);
    // The Enter of the add form must not close the dialog.
    for (QPushButton *b : findChildren<QPushButton *>())
        b->setAutoDefault(false);
    resize(1200, 460);
    updateButtons();
}

QString HostsDialog::currentHost() const {
    const QModelIndex i = m_table->selectionModel()->currentIndex();
    return i.isValid() ? i.data(HostsModel::HostNameRole).toString() : QString();
}

void HostsDialog::selectHost(const QString &name) {
    const int row = m_session.hosts().rowOf(name);
    if (row < 0)
        return;
    m_table->selectionModel()->setCurrentIndex(m_session.hosts().index(row, HostsModel::Name),
                                               QItemSelectionModel::ClearAndSelect |
                                                   QItemSelectionModel::Rows);
}

void HostsDialog::updateButtons() {
    const QString name = currentHost();
    m_check->setEnabled(!name.isEmpty());
    m_remove->setEnabled(!name.isEmpty() && name != ::flotilla::wire::host::Local);
}

void HostsDialog::showOutcome(const QString &text, bool failed) {
    m_outcome->setStyleSheet(failed ? QStringLiteral("color: #b00020;") : QString());
    m_outcome->setText(text);
    m_outcome->setVisible(!text.isEmpty());
}

void HostsDialog::checkCurrent() {
    const QString name = currentHost();
    if (name.isEmpty())
        return;
    showOutcome(tr("Checking %1...").arg(name), false);
    const QPointer<HostsDialog> self(this);
    m_session.checkHost(name, [self, name](const client::RestReply &r) {
        if (!self)
            return;
        if (!r.ok()) {
            self->showOutcome(tr("Check of %1 failed: %2").arg(name, refusalText(r)), true);
            return;
        }
        const QJsonObject check = r.body.object();
        self->showOutcome(name + QStringLiteral(": ") + checkSummary(check),
                          !check.value(hk::Reachable).toBool());
    });
}

void HostsDialog::removeCurrent() {
    const QString name = currentHost();
    if (name.isEmpty() || name == ::flotilla::wire::host::Local)
        return;
    confirmDelete(this, tr("the host %1").arg(name), [this, name] {
        const QPointer<HostsDialog> self(this);
        m_session.deleteHost(name, [self, name](const client::RestReply &r) {
            if (self)
                self->showOutcome(r.ok() ? tr("Removed %1").arg(name)
                                         : tr("Not removed: %1").arg(refusalText(r)),
                                  !r.ok());
        });
    });
}

void HostsDialog::addHost() {
    QJsonObject body{{hk::Name_, m_name->text().trimmed()}, {hk::Ssh, m_ssh->text().trimmed()}};
    // Left out when empty: the CLI's own name on that host's PATH.
    if (!m_claudeBin->text().trimmed().isEmpty())
        body.insert(hk::ClaudeBin, m_claudeBin->text().trimmed());
    if (!m_codexBin->text().trimmed().isEmpty())
        body.insert(hk::CodexBin, m_codexBin->text().trimmed());
    m_add->setEnabled(false);
    const QPointer<HostsDialog> self(this);
    m_session.createHost(body, [self](const client::RestReply &r) {
        if (!self)
            return;
        self->m_add->setEnabled(true);
        if (!r.ok()) {
            self->showOutcome(tr("Not added: %1").arg(refusalText(r)), true);
            return;
        }
        const QString name = r.body.object().value(hk::Name_).toString();
        for (QLineEdit *field : {self->m_name, self->m_ssh, self->m_claudeBin, self->m_codexBin})
            field->clear();
        self->selectHost(name);
        self->showOutcome(tr("Added %1; it connects now").arg(name), false);
    });
}

} // namespace flotilla::monitor::ui
