#include "ui/NewAgentDialog.h"

#include "protocol/HostNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace provider = ::flotilla::wire::provider;
namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;
namespace host = ::flotilla::wire::host;

namespace {
const QString kLastCwd = QStringLiteral("newAgent/lastCwd");

// Where the last directory on `name` is remembered: this machine's under the key it always had.
QString lastCwdKey(const QString &name) {
    return name == host::Local ? kLastCwd : kLastCwd + QLatin1Char('/') + name;
}
} // namespace

NewAgentDialog::NewAgentDialog(QWidget *parent)
    : QDialog(parent)
    , m_name(new QLineEdit(this))
    , m_host(new QComboBox(this))
    , m_shownHost(host::Local)
    , m_cwd(new QLineEdit(this))
    , m_browse(new QPushButton(tr("&Browse..."), this))
    , m_class(new QComboBox(this))
    , m_provider(new QComboBox(this))
    , m_model(new QComboBox(this))
    , m_permission(new QComboBox(this))
    , m_area(new QComboBox(this))
    , m_worktree(new QCheckBox(
          tr("Own git &worktree on a new branch (cwd must be in a repository)"), this))
    , m_branch(new QLineEdit(this))
    , m_baseRef(new QLineEdit(this))
    , m_idleMinutes(new QSpinBox(this))
    , m_budgetUsd(new QDoubleSpinBox(this))
    , m_budgetKTokens(new QSpinBox(this))
    , m_budgetPeriod(new QComboBox(this))
    , m_skills(new QListWidget(this))
    , m_instructions(new QPlainTextEdit(this))
    , m_error(new QLabel(this)) {
    setObjectName(QStringLiteral("newAgentDialog"));
    setWindowTitle(tr("New agent"));
    m_name->setObjectName(QStringLiteral("agentName"));
    m_cwd->setObjectName(QStringLiteral("agentCwd"));
    m_name->setMaxLength(100);
    m_cwd->setText(QSettings().value(kLastCwd, QDir::homePath()).toString());
    m_host->setObjectName(QStringLiteral("agentHost"));
    m_host->setToolTip(tr("The machine the agent's CLI runs on"));
    setHosts({});
    connect(m_host, &QComboBox::currentIndexChanged, this, &NewAgentDialog::hostChosen);
    m_class->setEditable(true);
    m_class->setObjectName(QStringLiteral("agentClass"));
    m_class->setIconSize(QSize(16, 16));
    m_class->addItems({QStringLiteral("builder"), QStringLiteral("reviewer"),
                       QStringLiteral("researcher"), QStringLiteral("boss")});
    m_provider->setObjectName(QStringLiteral("agentProvider"));
    m_provider->addItem(tr("Claude Code"), QString(provider::Claude));
    m_provider->addItem(tr("Codex"), QString(provider::Codex));
    m_model->setEditable(true);
    m_model->setObjectName(QStringLiteral("agentModel"));
    // Each provider's own model names; the field stays editable for any other.
    auto fillModels = [this] {
        m_model->clear();
        if (m_provider->currentData().toString() == provider::Codex)
            m_model->addItems({QStringLiteral("gpt-5.5"), QStringLiteral("gpt-6.1-sol")});
        else
            m_model->addItems(
                {QStringLiteral("sonnet"), QStringLiteral("opus"), QStringLiteral("haiku")});
    };
    fillModels();
    connect(m_provider, &QComboBox::currentIndexChanged, this, fillModels);
    m_permission->addItem(tr("Ask before using tools"), QStringLiteral("ask"));
    m_permission->addItem(tr("Allow every tool (auto)"), QStringLiteral("auto"));
    m_area->setObjectName(QStringLiteral("agentArea"));
    setAreas({});
    m_worktree->setObjectName(QStringLiteral("agentWorktree"));
    m_branch->setObjectName(QStringLiteral("agentBranch"));
    m_branch->setPlaceholderText(tr("default: flotilla/<name>"));
    m_baseRef->setObjectName(QStringLiteral("agentBaseRef"));
    m_baseRef->setPlaceholderText(tr("default: the checked-out branch"));
    m_branch->setEnabled(false);
    m_baseRef->setEnabled(false);
    connect(m_worktree, &QCheckBox::toggled, m_branch, &QWidget::setEnabled);
    connect(m_worktree, &QCheckBox::toggled, m_baseRef, &QWidget::setEnabled);
    m_idleMinutes->setObjectName(QStringLiteral("agentIdleMinutes"));
    m_idleMinutes->setRange(-1, 10080);
    m_idleMinutes->setValue(-1);
    m_idleMinutes->setSpecialValueText(tr("service default"));
    m_idleMinutes->setSuffix(tr(" min (0: never)"));
    m_budgetUsd->setObjectName(QStringLiteral("agentBudgetUsd"));
    m_budgetUsd->setRange(0, 100000);
    m_budgetUsd->setDecimals(2);
    m_budgetUsd->setPrefix(QStringLiteral("$"));
    m_budgetUsd->setSpecialValueText(tr("no cost cap"));
    m_budgetKTokens->setObjectName(QStringLiteral("agentBudgetTokens"));
    m_budgetKTokens->setRange(0, 1000000000);
    m_budgetKTokens->setSuffix(tr("k tokens"));
    m_budgetKTokens->setSpecialValueText(tr("no token cap"));
    m_budgetPeriod->addItem(tr("in total"), QStringLiteral("total"));
    m_budgetPeriod->addItem(tr("per day"), QStringLiteral("day"));
    m_skills->setObjectName(QStringLiteral("agentSkills"));
    m_skills->setMaximumHeight(90);
    m_skills->setToolTip(tr("Skills of this agent, besides those of its class"));
    m_instructions->setObjectName(QStringLiteral("agentInstructions"));
    m_instructions->setPlaceholderText(
        tr("Standing instructions for this agent, after its class's (optional)"));
    m_instructions->setMaximumHeight(m_instructions->fontMetrics().height() * 4 + 12);
    connect(m_class, &QComboBox::activated, this, &NewAgentDialog::applyClassDefaults);
    m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_error->setWordWrap(true);
    m_error->hide();

    m_browse->setObjectName(QStringLiteral("agentBrowse"));
    connect(m_browse, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Working directory"), m_cwd->text());
        if (!dir.isEmpty())
            m_cwd->setText(dir);
    });
    auto *cwdRow = new QHBoxLayout;
    cwdRow->addWidget(m_cwd, 1);
    cwdRow->addWidget(m_browse);
    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Host:"), m_host);
    auto *cwdLabel = new QLabel(tr("&Working directory:"), this);
    cwdLabel->setBuddy(m_cwd); // a row of a layout gets no buddy by itself
    form->addRow(cwdLabel, cwdRow);
    form->addRow(tr("&Class:"), m_class);
    form->addRow(tr("P&rovider:"), m_provider);
    form->addRow(tr("&Model:"), m_model);
    form->addRow(tr("&Permissions:"), m_permission);
    form->addRow(tr("&Area:"), m_area);
    form->addRow(QString(), m_worktree);
    form->addRow(tr("&Branch:"), m_branch);
    form->addRow(tr("Base re&f:"), m_baseRef);
    form->addRow(tr("&Idle timeout:"), m_idleMinutes);
    auto *budget = new QHBoxLayout;
    budget->addWidget(m_budgetUsd);
    budget->addWidget(m_budgetKTokens);
    budget->addWidget(m_budgetPeriod);
    auto *budgetLabel = new QLabel(tr("B&udget:"), this);
    budgetLabel->setBuddy(m_budgetUsd);
    form->addRow(budgetLabel, budget);
    form->addRow(tr("S&kills:"), m_skills);
    form->addRow(tr("Instruc&tions:"), m_instructions);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("C&reate"));
    connect(buttons, &QDialogButtonBox::accepted, this, &NewAgentDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &NewAgentDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    resize(480, sizeHint().height());
}

QJsonObject NewAgentDialog::fields() const {
    QJsonObject o{{QStringLiteral("name"), m_name->text().trimmed()},
                  {QStringLiteral("cwd"), m_cwd->text().trimmed()},
                  {QStringLiteral("provider"), m_provider->currentData().toString()},
                  {QStringLiteral("permissionMode"), m_permission->currentData().toString()}};
    if (host() != host::Local) // absent: this machine, as an older service expects
        o.insert(host::key::Host, host());
    const QString cls = m_class->currentText().trimmed();
    if (!cls.isEmpty())
        o.insert(QStringLiteral("class"), cls);
    const QString model = m_model->currentText().trimmed();
    if (!model.isEmpty())
        o.insert(QStringLiteral("model"), model);
    if (m_worktree->isChecked()) {
        QJsonObject wt;
        if (!m_branch->text().trimmed().isEmpty())
            wt.insert(QStringLiteral("branch"), m_branch->text().trimmed());
        if (!m_baseRef->text().trimmed().isEmpty())
            wt.insert(QStringLiteral("baseRef"), m_baseRef->text().trimmed());
        o.insert(QStringLiteral("worktree"), wt.isEmpty() ? QJsonValue(true) : QJsonValue(wt));
    }
    if (m_idleMinutes->value() >= 0)
        o.insert(QStringLiteral("idleTimeoutSeconds"), m_idleMinutes->value() * 60);
    if (m_budgetUsd->value() > 0 || m_budgetKTokens->value() > 0) {
        QJsonObject b{{QStringLiteral("period"), m_budgetPeriod->currentData().toString()}};
        if (m_budgetUsd->value() > 0)
            b.insert(QStringLiteral("costUsd"), m_budgetUsd->value());
        if (m_budgetKTokens->value() > 0)
            b.insert(QStringLiteral("tokens"), qint64(m_budgetKTokens->value()) * 1000);
        o.insert(QStringLiteral("budget"), b);
    }
    QStringList skills;
    for (int i = 0; i < m_skills->count(); ++i) {
        if (m_skills->item(i)->checkState() == Qt::Checked)
            skills << m_skills->item(i)->data(Qt::UserRole).toString();
    }
    // Left out when empty: the class's skills and no instructions of its own are the default.
    if (!skills.isEmpty())
        o.insert(sk::Skills, QJsonArray::fromStringList(skills));
    const QString instructions = m_instructions->toPlainText().trimmed();
    if (!instructions.isEmpty())
        o.insert(sk::CustomInstructions, instructions);
    return o;
}

void NewAgentDialog::setAreas(const QList<QPair<QString, QString>> &areas) {
    const QString keep = areaId();
    m_area->clear();
    m_area->addItem(tr("(no area)"), QString());
    for (const auto &a : areas)
        m_area->addItem(a.second, a.first);
    const int at = m_area->findData(keep);
    m_area->setCurrentIndex(at < 0 ? 0 : at);
}

void NewAgentDialog::setHosts(const QList<QPair<QString, QString>> &hosts) {
    const QString keep = host();
    const QSignalBlocker quiet(m_host); // the same host stays chosen: its cwd is kept as typed
    m_host->clear();
    m_host->addItem(QString(host::Local), QString(host::Local));
    for (const auto &[name, label] : hosts) {
        if (name != host::Local)
            m_host->addItem(label, name);
    }
    const int at = m_host->findData(keep);
    m_host->setCurrentIndex(at < 0 ? 0 : at);
    if (host() != m_shownHost)
        hostChosen(); // the chosen one is gone
}

QString NewAgentDialog::host() const {
    const QString name = m_host->currentData().toString();
    return name.isEmpty() ? QString(host::Local) : name;
}

void NewAgentDialog::hostChosen() {
    const QString name = host();
    if (name == m_shownHost)
        return;
    m_cwdOf.insert(m_shownHost, m_cwd->text());
    m_shownHost = name;
    const bool local = name == host::Local;
    const QString fallback = local ? QDir::homePath() : QString();
    m_cwd->setText(m_cwdOf.contains(name)
                       ? m_cwdOf.value(name)
                       : QSettings().value(lastCwdKey(name), fallback).toString());
    // The directory is that machine's: this one's file dialog cannot pick it, and the service
    // checks it there (the first turn fails when it is missing).
    m_cwd->setPlaceholderText(local ? QString() : tr("an absolute directory on %1").arg(name));
    m_browse->setEnabled(local);
    // A worktree is made on this machine only (docs/api.md "Hosts").
    if (!local)
        m_worktree->setChecked(false);
    m_worktree->setEnabled(local);
}

void NewAgentDialog::setClasses(const QList<ClassChoice> &classes) {
    const QString keep = m_class->currentText();
    m_class->clear();
    for (const ClassChoice &c : classes) {
        m_class->addItem(c.icon, c.slug, c.defaults);
        m_class->setItemData(m_class->count() - 1, c.tooltip, Qt::ToolTipRole);
    }
    const int at = m_class->findText(keep);
    if (at >= 0)
        m_class->setCurrentIndex(at);
    else
        m_class->setCurrentText(keep); // a plain label typed before the list came
}

void NewAgentDialog::setSkills(const QList<QPair<QString, QString>> &skills) {
    QStringList checked;
    for (int i = 0; i < m_skills->count(); ++i) {
        if (m_skills->item(i)->checkState() == Qt::Checked)
            checked << m_skills->item(i)->data(Qt::UserRole).toString();
    }
    m_skills->clear();
    for (const auto &[slug, description] : skills) {
        auto *item = new QListWidgetItem(slug, m_skills);
        item->setData(Qt::UserRole, slug);
        item->setToolTip(description);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(slug) ? Qt::Checked : Qt::Unchecked);
    }
}

void NewAgentDialog::applyClassDefaults(int index) {
    const QJsonObject d = m_class->itemData(index).toJsonObject();
    const int p = m_provider->findData(d.value(k::Provider).toString());
    if (p >= 0)
        m_provider->setCurrentIndex(p);
    if (d.contains(k::Model))
        m_model->setCurrentText(d.value(k::Model).toString());
    const int mode = m_permission->findData(d.value(sk::PermissionMode).toString());
    if (mode >= 0)
        m_permission->setCurrentIndex(mode);
}

QString NewAgentDialog::areaId() const {
    return m_area->currentData().toString();
}

void NewAgentDialog::showError(const QString &error) {
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    setEnabled(true);
}

void NewAgentDialog::accept() {
    // The dialog stays open until the service answers: a refused name (409) or directory (422)
    // is shown here, where it can be corrected.
    if (m_name->text().trimmed().isEmpty()) {
        showError(tr("Enter a name."));
        m_name->setFocus();
        return;
    }
    QSettings().setValue(lastCwdKey(host()), m_cwd->text().trimmed());
    m_error->hide();
    Q_EMIT createRequested(fields());
}

} // namespace flotilla::monitor::ui
