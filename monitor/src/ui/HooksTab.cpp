#include "ui/HooksTab.h"

#include "core/ArgvText.h"
#include "core/MonitorSession.h"
#include "protocol/NotifyNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "ui/LibraryCommon.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;
namespace he = ::flotilla::wire::shaping::hookevent;
namespace ne = ::flotilla::wire::notify::event;

namespace {
enum RunColumn { Started, Event, Agent, Outcome, RunColumns };
constexpr int kRunRole = Qt::UserRole + 1;
const QColor kFailed(0xb0, 0x00, 0x20);
} // namespace

HooksTab::HooksTab(MonitorSession &session, QWidget *parent)
    : LibraryTab(session.shaping(), ShapingKind::Hooks, QStringLiteral("hooks"), nullptr, parent)
    , m_session(session)
    , m_name(new QLineEdit(this))
    , m_event(new QComboBox(this))
    , m_agent(new QComboBox(this))
    , m_class(new QComboBox(this))
    , m_area(new QComboBox(this))
    , m_command(new QPlainTextEdit(this))
    , m_perLine(new QCheckBox(tr("One argument per &line"), this))
    , m_cwd(new QComboBox(this))
    , m_timeout(new QSpinBox(this))
    , m_enabled(new QCheckBox(tr("&Enabled"), this))
    , m_delete(makeButton(this, tr("&Delete"), QStringLiteral("deleteHookButton"),
                          [this] { deleteCurrent(); }))
    , m_runs(new QTableWidget(0, RunColumns, this))
    , m_runOutput(new QPlainTextEdit(this)) {
    followCurrent([this](const QJsonObject &hook) { load(hook); });
    m_runs->setObjectName(QStringLiteral("hookRuns"));
    m_runs->setHorizontalHeaderLabels({tr("Started"), tr("Event"), tr("Agent"), tr("Outcome")});
    m_runs->horizontalHeader()->setStretchLastSection(true);
    m_runs->verticalHeader()->hide();
    m_runs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_runs->setSelectionMode(QAbstractItemView::SingleSelection);
    m_runs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(m_runs, &QTableWidget::currentCellChanged, this, &HooksTab::showRunOutput);
    m_runOutput->setObjectName(QStringLiteral("hookRunOutput"));
    m_runOutput->setReadOnly(true);
    m_runOutput->setPlaceholderText(tr("The selected run's output"));
    connect(&catalog(), &ShapingCatalog::hookRunFinished, this, [this](const QJsonObject &run) {
        if (!m_idShown.isEmpty() && run.value(sk::HookId).toString() == m_idShown)
            addRun(run, true);
    });

    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(buildEditor());
    right->addWidget(column(
        this, {new QLabel(tr("Runs (newest first):"), this), {m_runs, 2}, {m_runOutput, 1}}));
    placeBeside(right, 2, 330);

    catalog().ensureLoaded(ShapingKind::Classes);
    // GET /api/areas -> 200 [area]: the areas a filter may name.
    const QPointer<HooksTab> self(this);
    session.client().get(QStringLiteral("/api/areas"), [self](const client::RestReply &r) {
        if (!self || !r.ok())
            return;
        for (const QJsonValue &v : r.body.array())
            self->m_area->addItem(v.toObject().value(k::Name_).toString(),
                                  v.toObject().value(k::Id).toString());
    });
    newHook();
}

QWidget *HooksTab::buildEditor() {
    m_name->setObjectName(QStringLiteral("hookName"));
    m_event->setObjectName(QStringLiteral("hookEvent"));
    for (const QLatin1String e : {he::TurnFinished, ne::AgentFinished, ne::AgentError,
                                  ne::AgentNotification, ne::PermissionRequest, he::AgentCreated,
                                  he::ExecFinished, he::BudgetExceeded, he::WorktreeMerged})
        m_event->addItem(QString(e), QString(e));
    m_agent->setObjectName(QStringLiteral("hookAgent"));
    m_class->setObjectName(QStringLiteral("hookClass"));
    m_class->setEditable(true);
    m_area->setObjectName(QStringLiteral("hookArea"));
    m_area->addItem(tr("(any area)"), QString());
    m_command->setObjectName(QStringLiteral("hookCommand"));
    m_command->setPlaceholderText(
        tr("notify-send 'Flotilla' \"turn finished\"  (run without a shell; the event is on "
           "stdin, FLOTILLA_EVENT and FLOTILLA_AGENT_ID in the environment)"));
    m_command->setMaximumHeight(m_command->fontMetrics().height() * 5 + 12);
    m_perLine->setObjectName(QStringLiteral("hookPerLine"));
    // Switching the form keeps the argv: split the old way, join the new way.
    connect(m_perLine, &QCheckBox::toggled, this, [this](bool perLine) {
        const std::optional<QStringList> argv =
            perLine ? splitCommandLine(m_command->toPlainText())
                    : std::optional<QStringList>(splitArgumentLines(m_command->toPlainText()));
        if (!argv) {
            showError(errorLabel(), tr("Unbalanced quotes in the command."));
            return;
        }
        m_command->setPlainText(perLine ? argv->join(QLatin1Char('\n')) : joinCommandLine(*argv));
    });
    m_cwd->setObjectName(QStringLiteral("hookCwd"));
    m_cwd->setEditable(true);
    m_cwd->addItem(tr("(the service's directory)"), QString());
    m_cwd->addItem(QString(::flotilla::wire::shaping::hookcwd::Agent),
                   QString(::flotilla::wire::shaping::hookcwd::Agent));
    m_cwd->setToolTip(tr("\"agent\": the agent's working directory; or an absolute path"));
    m_timeout->setObjectName(QStringLiteral("hookTimeout"));
    m_timeout->setRange(1, 300);
    m_timeout->setSuffix(tr(" s"));
    m_enabled->setObjectName(QStringLiteral("hookEnabled"));

    auto *filter = new QHBoxLayout;
    filter->addWidget(m_agent);
    filter->addWidget(m_class);
    filter->addWidget(m_area);
    auto *command = new QVBoxLayout;
    command->addWidget(m_command);
    command->addWidget(m_perLine);
    auto *form = new QFormLayout;
    form->addRow(tr("Na&me:"), m_name);
    form->addRow(tr("E&vent:"), m_event);
    form->addRow(buddyLabel(tr("&Filter:"), m_agent), filter);
    form->addRow(buddyLabel(tr("Comm&and:"), m_command), command);
    form->addRow(tr("&Working directory:"), m_cwd);
    form->addRow(tr("&Timeout:"), m_timeout);
    form->addRow(QString(), m_enabled);
    return column(
        this,
        {form, errorLabel(),
         buttonRow(
             {makeButton(this, tr("&New"), QStringLiteral("newHookButton"), [this] { newHook(); }),
              makeButton(this, tr("&Save"), QStringLiteral("saveHookButton"), [this] { save(); }),
              m_delete})});
}

void HooksTab::fillAgents() {
    m_agent->clear();
    m_agent->addItem(tr("(any agent)"), QString());
    addAgentItems(m_agent, m_session.agents());
    m_class->clear();
    m_class->addItem(QString());
    const ShapingListModel &classes = catalog().classes();
    for (int row = 0; row < classes.rowCount(); ++row)
        m_class->addItem(classes.item(row).value(sk::Slug).toString());
    m_class->lineEdit()->setPlaceholderText(tr("(any class)"));
}

void HooksTab::load(const QJsonObject &hook) {
    m_idShown = hook.value(k::Id).toString();
    fillAgents();
    m_name->setText(hook.value(k::Name_).toString());
    selectData(m_event, hook.value(sk::Event).toString());
    const QJsonObject filter = hook.value(sk::Filter).toObject();
    const QString agentId = filter.value(k::AgentId).toString();
    if (!agentId.isEmpty() && m_agent->findData(agentId) < 0)
        m_agent->addItem(agentId, agentId);
    selectData(m_agent, agentId);
    m_class->setCurrentText(filter.value(k::Class).toString());
    selectData(m_area, filter.value(k::AreaId).toString());
    {
        const QSignalBlocker block(m_perLine);
        m_perLine->setChecked(false);
    }
    m_command->setPlainText(joinCommandLine(hook.value(sk::Command).toVariant().toStringList()));
    const QString cwd = hook.value(k::Cwd).toString();
    const int cwdAt = m_cwd->findData(cwd);
    if (cwdAt >= 0)
        m_cwd->setCurrentIndex(cwdAt);
    else
        m_cwd->setCurrentText(cwd);
    m_timeout->setValue(hook.value(sk::TimeoutSeconds).toInt(30));
    m_enabled->setChecked(hook.value(sk::Enabled).toBool(true));
    m_delete->setEnabled(!m_idShown.isEmpty());
    showError(errorLabel(), {});
    loadRuns();
}

void HooksTab::newHook() {
    list()->selectionModel()->clearCurrentIndex();
    load({});
}

std::optional<QStringList> HooksTab::command() const {
    if (m_perLine->isChecked())
        return splitArgumentLines(m_command->toPlainText());
    return splitCommandLine(m_command->toPlainText());
}

QJsonObject HooksTab::edited() const {
    QJsonObject filter;
    if (!m_agent->currentData().toString().isEmpty())
        filter.insert(k::AgentId, m_agent->currentData().toString());
    if (!m_class->currentText().trimmed().isEmpty())
        filter.insert(k::Class, m_class->currentText().trimmed());
    if (!m_area->currentData().toString().isEmpty())
        filter.insert(k::AreaId, m_area->currentData().toString());
    // The first entry stands for "none"; anything else typed is a path (or "agent").
    const QString cwd = m_cwd->currentIndex() == 0 && m_cwd->currentText() == m_cwd->itemText(0)
                            ? QString()
                            : m_cwd->currentText().trimmed();
    return {{k::Name_, m_name->text().trimmed()},
            {sk::Event, m_event->currentData().toString()},
            {sk::Filter, filter},
            {sk::Command, QJsonArray::fromStringList(command().value_or(QStringList()))},
            {k::Cwd, cwd.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(cwd)},
            {sk::TimeoutSeconds, m_timeout->value()},
            {sk::Enabled, m_enabled->isChecked()}};
}

// POST /api/hooks -> 201 | PATCH /api/hooks/:id -> 200 | 422 | 403 (an agent's token)
void HooksTab::save() {
    if (!command()) {
        showError(errorLabel(), tr("Unbalanced quotes in the command."));
        return;
    }
    saveItem(m_idShown, edited(),
             [this](const QJsonObject &hook) { selectHook(hook.value(k::Id).toString()); });
}

// DELETE /api/hooks/:id -> 204 | 404
void HooksTab::deleteCurrent() {
    deleteItem(m_idShown, tr("hook %1").arg(m_name->text()), [this] { newHook(); });
}

// GET /api/hooks/:id/runs -> 200 [run] newest first (200 kept)
void HooksTab::loadRuns() {
    m_runs->setRowCount(0);
    m_runOutput->clear();
    const quint64 generation = ++m_runsGeneration;
    if (m_idShown.isEmpty())
        return;
    const QPointer<HooksTab> self(this);
    catalog().fetchHookRuns(m_idShown, [self, generation](const client::RestReply &r) {
        if (!self || generation != self->m_runsGeneration || !r.ok())
            return;
        // Runs that came as events meanwhile are in the answer too.
        self->m_runs->setRowCount(0);
        for (const QJsonObject &run : itemsOf(r.body))
            self->addRun(run, false);
    });
}

void HooksTab::addRun(const QJsonObject &run, bool newest) {
    const int row = newest ? 0 : m_runs->rowCount();
    m_runs->insertRow(row);
    const QString agentId = run.value(k::AgentId).toString();
    const QString agent = m_session.agents().agent(agentId).value(k::Name_).toString();
    const QStringList cells{QDateTime::fromMSecsSinceEpoch(run.value(sk::StartedAt).toInteger())
                                .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                            run.value(sk::Event).toString(), agent.isEmpty() ? agentId : agent,
                            runOutcome(run)};
    const bool failed = runFailed(run);
    for (int column = 0; column < RunColumns; ++column) {
        auto *item = new QTableWidgetItem(cells.value(column));
        if (failed)
            item->setForeground(kFailed);
        if (column == 0)
            item->setData(kRunRole, run);
        m_runs->setItem(row, column, item);
    }
    m_runs->resizeColumnToContents(Started);
}

void HooksTab::showRunOutput() {
    const QTableWidgetItem *item = m_runs->item(m_runs->currentRow(), Started);
    const QJsonObject run = item ? item->data(kRunRole).toJsonObject() : QJsonObject();
    QString text = run.value(sk::Output).toString();
    if (run.value(sk::OutputTruncated).toBool())
        text += tr("\n[output truncated at 64 KiB]");
    m_runOutput->setPlainText(text);
}

} // namespace flotilla::monitor::ui
