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
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollBar>
#include <QTextCharFormat>

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
    : LibraryTab(session.shaping(), ShapingKind::Buildings, QStringLiteral("buildings"), nullptr,
                 parent)
    , m_session(session)
    , m_state(detailLabel(this, QStringLiteral("buildingState")))
    , m_pid(detailLabel(this, QStringLiteral("buildingPid")))
    , m_restarts(detailLabel(this, QStringLiteral("buildingRestarts")))
    , m_url(detailLabel(this, QStringLiteral("buildingUrl")))
    , m_command(detailLabel(this, QStringLiteral("buildingCommand")))
    , m_start(makeButton(this, tr("&Start"), QStringLiteral("startBuildingButton"),
                         [this] { act(QStringLiteral("start")); }))
    , m_stop(makeButton(this, tr("St&op"), QStringLiteral("stopBuildingButton"),
                        [this] { act(QStringLiteral("stop")); }))
    , m_restart(makeButton(this, tr("&Restart"), QStringLiteral("restartBuildingButton"),
                           [this] { act(QStringLiteral("restart")); }))
    , m_edit(makeButton(this, tr("&Edit..."), QStringLiteral("editBuildingButton"),
                        [this] { openEditor(false); }))
    , m_delete(makeButton(this, tr("&Delete"), QStringLiteral("deleteBuildingButton"),
                          [this] { deleteCurrent(); }))
    , m_log(new QPlainTextEdit(this)) {
    followCurrent(
        [this](const QJsonObject &building) { showBuilding(building.value(k::Id).toString()); });
    connect(&items(), &QAbstractItemModel::dataChanged, this, &BuildingsTab::updateDetails);
    connect(&items(), &QAbstractItemModel::modelReset, this, &BuildingsTab::updateDetails);
    connect(&items(), &QAbstractItemModel::rowsRemoved, this, &BuildingsTab::updateDetails);
    connect(&catalog(), &ShapingCatalog::buildingOutput, this,
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
    auto *create = makeButton(this, tr("&New..."), QStringLiteral("newBuildingButton"),
                              [this] { openEditor(true); });

    auto *details = new QFormLayout;
    details->addRow(tr("State:"), m_state);
    details->addRow(tr("Pid:"), m_pid);
    details->addRow(tr("Restarts:"), m_restarts);
    details->addRow(tr("URL:"), m_url);
    details->addRow(tr("Command:"), m_command);
    QHBoxLayout *buttons =
        buttonRow({m_start, m_stop, m_restart, nullptr, create, m_edit, m_delete});
    auto *logLabel = new QLabel(tr("Log (newest %1 lines, then live):").arg(kTailLines), this);
    placeBeside(column(this, {details, buttons, errorLabel(), logLabel, {m_log, 1}}), 3, 280);
    updateDetails();
}

void BuildingsTab::showBuilding(const QString &id) {
    if (id == m_idShown)
        return;
    m_idShown = id;
    showError(errorLabel(), {});
    updateDetails();
    loadLog();
}

void BuildingsTab::updateDetails() {
    const QJsonObject b = items().itemById(m_idShown);
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
    const QStringList argv = b.value(sk::Command).toVariant().toStringList();
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
    catalog().fetchBuildingLogs(
        m_idShown, kTailLines, [self, generation](const client::RestReply &r) {
            if (!self || generation != self->m_logGeneration)
                return;
            self->m_logLoading = false;
            const QString tail = r.ok() ? logText(r.body) : QString();
            if (!r.ok())
                showReply(self->errorLabel(), r);
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
    if (!m_idShown.isEmpty())
        catalog().buildingAction(m_idShown, action, answer());
}

BuildingDialog *BuildingsTab::openEditor(bool create) {
    const QJsonObject existing = create ? QJsonObject() : items().itemById(m_idShown);
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
    const QString name = items().itemById(m_idShown).value(k::Name_).toString();
    deleteItem(m_idShown, tr("building %1 (it is stopped first)").arg(name));
}

} // namespace flotilla::monitor::ui
