#include "ui/BuildingsTab.h"

#include "core/ArgvText.h"
#include "core/MonitorSession.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "ui/BuildingDialog.h"
#include "ui/LibraryCommon.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QLabel>
#include <QListView>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTextCharFormat>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;
namespace st = ::flotilla::wire::shaping::state;
namespace ss = ::flotilla::wire::shaping::stream;

namespace {
QLabel *detailLabel(QWidget *parent, const QString &name) {
    auto *label = new QLabel(parent);
    label->setObjectName(name);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QString orDash(const QJsonValue &v) {
    return v.isDouble() ? QString::number(v.toInteger()) : QStringLiteral("-");
}
} // namespace

BuildingsTab::BuildingsTab(MonitorSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_list(new QListView(this))
    , m_state(detailLabel(this, QStringLiteral("buildingState")))
    , m_pid(detailLabel(this, QStringLiteral("buildingPid")))
    , m_restarts(detailLabel(this, QStringLiteral("buildingRestarts")))
    , m_url(detailLabel(this, QStringLiteral("buildingUrl")))
    , m_command(detailLabel(this, QStringLiteral("buildingCommand")))
    , m_start(new QPushButton(tr("&Start"), this))
    , m_stop(new QPushButton(tr("St&op"), this))
    , m_restart(new QPushButton(tr("&Restart"), this))
    , m_edit(new QPushButton(tr("&Edit..."), this))
    , m_delete(new QPushButton(tr("&Delete"), this))
    , m_error(makeErrorLabel(this, QStringLiteral("buildingsError")))
    , m_log(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("buildingsTab"));
    ShapingCatalog &catalog = session.shaping();
    m_list->setObjectName(QStringLiteral("buildingsList"));
    m_list->setModel(&catalog.buildings());
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showBuilding(current.data(JsonListModel::IdRole).toString());
            });
    connect(&catalog.buildings(), &QAbstractItemModel::dataChanged, this,
            &BuildingsTab::updateDetails);
    connect(&catalog.buildings(), &QAbstractItemModel::modelReset, this,
            &BuildingsTab::updateDetails);
    connect(&catalog.buildings(), &QAbstractItemModel::rowsRemoved, this,
            &BuildingsTab::updateDetails);
    connect(&catalog, &ShapingCatalog::buildingOutput, this,
            [this](const QString &id, const QString &text, const QString &stream) {
                if (id != m_idShown || m_idShown.isEmpty())
                    return;
                const bool err = stream == ss::Stderr;
                if (m_logLoading)
                    m_early.append({text, err});
                else
                    appendOutput(text, err);
            });
    m_url->setOpenExternalLinks(true);
    m_url->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_command->setWordWrap(true);
    m_log->setObjectName(QStringLiteral("buildingLog"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(20000);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    m_start->setObjectName(QStringLiteral("startBuildingButton"));
    m_stop->setObjectName(QStringLiteral("stopBuildingButton"));
    m_restart->setObjectName(QStringLiteral("restartBuildingButton"));
    m_edit->setObjectName(QStringLiteral("editBuildingButton"));
    m_delete->setObjectName(QStringLiteral("deleteBuildingButton"));
    auto *create = new QPushButton(tr("&New..."), this);
    create->setObjectName(QStringLiteral("newBuildingButton"));
    connect(m_start, &QPushButton::clicked, this, [this] { act(QStringLiteral("start")); });
    connect(m_stop, &QPushButton::clicked, this, [this] { act(QStringLiteral("stop")); });
    connect(m_restart, &QPushButton::clicked, this, [this] { act(QStringLiteral("restart")); });
    connect(create, &QPushButton::clicked, this, [this] { openEditor(true); });
    connect(m_edit, &QPushButton::clicked, this, [this] { openEditor(false); });
    connect(m_delete, &QPushButton::clicked, this, &BuildingsTab::deleteCurrent);

    auto *details = new QFormLayout;
    details->addRow(tr("State:"), m_state);
    details->addRow(tr("Pid:"), m_pid);
    details->addRow(tr("Restarts:"), m_restarts);
    details->addRow(tr("URL:"), m_url);
    details->addRow(tr("Command:"), m_command);
    auto *buttons = new QHBoxLayout;
    for (QPushButton *b : {m_start, m_stop, m_restart})
        buttons->addWidget(b);
    buttons->addStretch(1);
    for (QPushButton *b : {create, m_edit, m_delete})
        buttons->addWidget(b);
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addLayout(details);
    rightLayout->addLayout(buttons);
    rightLayout->addWidget(m_error);
    rightLayout->addWidget(
        new QLabel(tr("Log (newest %1 lines, then live):").arg(kTailLines), right));
    rightLayout->addWidget(m_log, 1);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_list);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({280, 720}); // the list wide enough for its summaries
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split);
    updateDetails();
}

void BuildingsTab::selectBuilding(const QString &id) {
    const int row = m_session.shaping().buildings().rowOf(id);
    if (row >= 0)
        m_list->setCurrentIndex(m_session.shaping().buildings().index(row));
}

void BuildingsTab::showBuilding(const QString &id) {
    if (id == m_idShown)
        return;
    m_idShown = id;
    showError(m_error, {});
    updateDetails();
    loadLog();
}

void BuildingsTab::updateDetails() {
    const QJsonObject b = m_session.shaping().buildings().itemById(m_idShown);
    const bool known = !b.isEmpty();
    const QString state = b.value(sk::State).toString();
    QString stateText = known ? state : QString();
    if (b.value(sk::ExitCode).isDouble() && state != st::Running)
        stateText += tr(" (exit %1)").arg(b.value(sk::ExitCode).toInt());
    // The start time rather than the uptime: that is a snapshot of when the event left.
    if (b.value(sk::StartedAt).isDouble() && state == st::Running)
        stateText += tr(" since %1")
                         .arg(QDateTime::fromMSecsSinceEpoch(b.value(sk::StartedAt).toInteger())
                                  .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    m_state->setText(stateText);
    m_state->setStyleSheet(state == st::Crashed ? QStringLiteral("color: #b00020;") : QString());
    m_pid->setText(known ? orDash(b.value(sk::Pid)) : QString());
    m_restarts->setText(known ? QString::number(b.value(sk::Restarts).toInt()) : QString());
    const QString url = b.value(sk::Url).toString();
    m_url->setText(url.isEmpty()
                       ? QString()
                       : QStringLiteral("<a href=\"%1\">%1</a>").arg(url.toHtmlEscaped()));
    QStringList argv;
    for (const QJsonValue &v : b.value(sk::Command).toArray())
        argv << v.toString();
    m_command->setText(known
                           ? joinCommandLine(argv) + tr("  (in %1)").arg(b.value(k::Cwd).toString())
                           : QString());
    const bool live = state == st::Running || state == st::Starting;
    m_start->setEnabled(known && !live);
    m_stop->setEnabled(known && live);
    m_restart->setEnabled(known);
    m_edit->setEnabled(known);
    m_delete->setEnabled(known);
}

// GET /api/buildings/:id/logs?tail=500 -> 200 {lines}
void BuildingsTab::loadLog() {
    m_log->clear();
    m_early.clear();
    const quint64 generation = ++m_logGeneration;
    m_logLoading = !m_idShown.isEmpty();
    if (!m_logLoading)
        return;
    const QPointer<BuildingsTab> self(this);
    m_session.shaping().fetchBuildingLogs(
        m_idShown, kTailLines, [self, generation](const client::RestReply &r) {
            if (!self || generation != self->m_logGeneration)
                return;
            self->m_logLoading = false;
            const QString tail = r.ok() ? logText(r.body) : QString();
            if (!r.ok())
                showReply(self->m_error, r);
            // {lines: [{text, stream}]}, oldest first, each without its newline.
            for (const QJsonValue &v : r.body.object().value(sk::Lines).toArray()) {
                const QJsonObject line = v.toObject();
                self->appendOutput(line.value(sk::Text).toString() + QLatin1Char('\n'),
                                   line.value(sk::Stream) == ss::Stderr);
            }
            // Output that came while the tail was on its way is usually in the tail already
            // (both left the service in order, on two connections): only what the tail does
            // not end with is added.
            const QString end = tail.right(64 * 1024);
            for (const auto &[text, err] : std::exchange(self->m_early, {})) {
                if (!end.contains(text))
                    self->appendOutput(text, err);
            }
        });
}

void BuildingsTab::appendOutput(const QString &text, bool stderrStream) {
    if (text.isEmpty())
        return;
    QScrollBar *bar = m_log->verticalScrollBar();
    const bool follow = bar->value() >= bar->maximum() - 4;
    QTextCursor cursor(m_log->document());
    cursor.movePosition(QTextCursor::End);
    QTextCharFormat format;
    if (stderrStream)
        format.setForeground(QColor(0xb0, 0x00, 0x20));
    cursor.insertText(text, format);
    // Following the tail unless the user scrolled up to read.
    if (follow)
        bar->setValue(bar->maximum());
}

// POST /api/buildings/:id/start|stop|restart -> 200 building | 409
void BuildingsTab::act(const QString &action) {
    if (m_idShown.isEmpty())
        return;
    const QPointer<BuildingsTab> self(this);
    m_session.shaping().buildingAction(m_idShown, action, [self](const client::RestReply &r) {
        if (self)
            showReply(self->m_error, r);
    });
}

BuildingDialog *BuildingsTab::openEditor(bool create) {
    const QJsonObject existing =
        create ? QJsonObject() : m_session.shaping().buildings().itemById(m_idShown);
    if (!create && existing.isEmpty())
        return nullptr;
    auto *dialog = new BuildingDialog(m_session, existing, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &BuildingDialog::saved, this, &BuildingsTab::selectBuilding);
    dialog->open();
    return dialog;
}

// DELETE /api/buildings/:id -> 204 (stopped first) | 404
void BuildingsTab::deleteCurrent() {
    const QString id = m_idShown;
    if (id.isEmpty())
        return;
    const QString name = m_session.shaping().buildings().itemById(id).value(k::Name_).toString();
    confirmDelete(this, tr("building %1 (it is stopped first)").arg(name), [this, id] {
        const QPointer<BuildingsTab> self(this);
        m_session.shaping().remove(ShapingKind::Buildings, id, [self](const client::RestReply &r) {
            if (self)
                showReply(self->m_error, r);
        });
    });
}

} // namespace flotilla::monitor::ui
