#include "ui/ChangesPanel.h"

#include "core/MonitorSession.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"
#include "ui/DiffStyle.h"
#include "ui/UiLog.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextEdit>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace wk = ::flotilla::wire::worktree::key;
namespace st = ::flotilla::wire::worktree::strategy;

namespace {

constexpr int kPathRole = Qt::UserRole + 1;

QString shortCommit(const QString &sha) {
    return sha.left(10);
}

QString statusLetter(const QString &status) {
    if (status == QLatin1String("added"))
        return QStringLiteral("A");
    if (status == QLatin1String("deleted"))
        return QStringLiteral("D");
    if (status == QLatin1String("renamed"))
        return QStringLiteral("R");
    if (status == QLatin1String("copied"))
        return QStringLiteral("C");
    if (status == QLatin1String("typechange"))
        return QStringLiteral("T");
    return QStringLiteral("M");
}

} // namespace

ChangesPanel::ChangesPanel(MonitorSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_confirm([this](const QString &question) {
        return QMessageBox::question(this, tr("Merge"), question) == QMessageBox::Yes;
    })
    , m_summary(new QLabel(this))
    , m_refresh(new QPushButton(tr("&Refresh"), this))
    , m_files(new QListWidget(this))
    , m_view(new QTextEdit(this))
    , m_commentTarget(new QLabel(this))
    , m_commentEdit(new QLineEdit(this))
    , m_comments(new QListWidget(this))
    , m_reviewMessage(new QLineEdit(this))
    , m_send(new QPushButton(tr("Send re&view"), this))
    , m_strategy(new QComboBox(this))
    , m_mergeMessage(new QLineEdit(this))
    , m_merge(new QPushButton(tr("&Merge"), this))
    , m_result(new QLabel(this)) {
    setObjectName(QStringLiteral("changesPanel"));
    m_summary->setObjectName(QStringLiteral("changesSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_files->setObjectName(QStringLiteral("changesFiles"));
    m_view->setObjectName(QStringLiteral("changesDiff"));
    m_view->setReadOnly(true);
    m_view->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_view->setLineWrapMode(QTextEdit::NoWrap);
    m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_commentTarget->setObjectName(QStringLiteral("commentTarget"));
    m_commentEdit->setObjectName(QStringLiteral("commentEdit"));
    m_commentEdit->setPlaceholderText(
        tr("Comment on the selected line (Enter adds it to the review)"));
    m_comments->setObjectName(QStringLiteral("pendingComments"));
    m_comments->setMaximumHeight(90);
    m_reviewMessage->setPlaceholderText(tr("Message with the review (optional)"));
    m_strategy->setObjectName(QStringLiteral("mergeStrategy"));
    m_strategy->addItem(tr("Merge commit"), QString(st::Merge));
    m_strategy->addItem(tr("Squash"), QString(st::Squash));
    m_strategy->addItem(tr("Rebase"), QString(st::Rebase));
    m_mergeMessage->setPlaceholderText(tr("Commit message (optional)"));
    m_result->setObjectName(QStringLiteral("mergeResult"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_refresh);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_files);
    split->addWidget(m_view);
    split->setStretchFactor(1, 3);
    auto *comment = new QHBoxLayout;
    comment->addWidget(m_commentTarget);
    comment->addWidget(m_commentEdit, 1);
    auto *review = new QHBoxLayout;
    review->addWidget(m_reviewMessage, 1);
    review->addWidget(m_send);
    auto *merge = new QHBoxLayout;
    merge->addWidget(m_strategy);
    merge->addWidget(m_mergeMessage, 1);
    merge->addWidget(m_merge);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addLayout(comment);
    layout->addWidget(m_comments);
    layout->addLayout(review);
    layout->addLayout(merge);
    layout->addWidget(m_result);

    connect(m_refresh, &QPushButton::clicked, this, &ChangesPanel::refresh);
    connect(m_files, &QListWidget::currentRowChanged, this, &ChangesPanel::showFile);
    connect(m_view, &QTextEdit::cursorPositionChanged, this, &ChangesPanel::updateCommentTarget);
    connect(m_commentEdit, &QLineEdit::returnPressed, this, [this] {
        if (addComment(m_commentEdit->text()))
            m_commentEdit->clear();
    });
    auto *remove = new QShortcut(QKeySequence::Delete, m_comments);
    remove->setContext(Qt::WidgetShortcut);
    connect(remove, &QShortcut::activated, this, [this] {
        const int row = m_comments->currentRow();
        if (row < 0)
            return;
        m_pending.removeAt(row);
        delete m_comments->takeItem(row);
        updateButtons();
    });
    connect(m_send, &QPushButton::clicked, this, &ChangesPanel::sendReview);
    connect(m_merge, &QPushButton::clicked, this, &ChangesPanel::merge);
    connect(&m_session, &MonitorSession::worktreeDiffChanged, this, [this](const QString &id) {
        if (id != m_agentId)
            return;
        m_dirty = true;
        if (isVisible())
            refresh();
    });
    setAgent({});
}

bool ChangesPanel::hasWorktree() const {
    return !m_agentId.isEmpty() &&
           m_session.agents().agent(m_agentId).value(wk::Worktree).isObject();
}

void ChangesPanel::setAgent(const QString &agentId) {
    if (agentId == m_agentId && !agentId.isEmpty())
        return;
    m_agentId = agentId;
    ++m_generation;
    m_busy = false;
    m_diff = {};
    m_pending = {};
    m_comments->clear();
    m_result->clear();
    m_files->clear();
    m_view->clear();
    m_shown.clear();
    m_dirty = true;
    if (agentId.isEmpty())
        m_summary->setText(tr("No agent selected."));
    else if (!hasWorktree())
        m_summary->setText(tr("This agent works in its directory, without a worktree of its own. "
                              "Create an agent with a worktree to review and merge its changes "
                              "(New agent, Ctrl+N)."));
    else
        m_summary->setText(tr("Loading changes..."));
    updateCommentTarget();
    updateButtons();
    if (isVisible())
        refresh();
}

void ChangesPanel::showEvent(QShowEvent *event) {
    QWidget::showEvent(event);
    if (m_dirty)
        refresh();
}

void ChangesPanel::refresh() {
    if (!hasWorktree())
        return;
    m_dirty = false;
    const quint64 generation = ++m_generation;
    const QPointer<ChangesPanel> self(this);
    m_session.fetchDiff(m_agentId, [self, generation](const client::RestReply &r) {
        if (!self || generation != self->m_generation)
            return;
        if (r.ok()) {
            self->applyDiff(WorktreeDiff::fromJson(r.body.object()));
        } else {
            self->m_summary->setText(tr("Changes not read: %1").arg(r.error));
            qCInfo(lcUi) << "diff refused" << r.status << r.error;
        }
        Q_EMIT self->diffLoaded();
    });
}

void ChangesPanel::applyDiff(const WorktreeDiff &diff) {
    const QListWidgetItem *current = m_files->currentItem();
    const QString keep = current ? current->data(kPathRole).toString() : QString();
    m_diff = diff;
    const QJsonObject wt = m_session.agents().agent(m_agentId).value(wk::Worktree).toObject();
    QString summary = m_diff.files.isEmpty() ? tr("%1: no changes against %2 (%3).")
                                             : tr("%1 against %2 (%3): %4 file(s), +%5 \u2212%6.");
    summary = summary.arg(m_diff.branch, wt.value(wk::BaseRef).toString(),
                          shortCommit(m_diff.baseCommit));
    if (!m_diff.files.isEmpty())
        summary = summary.arg(m_diff.files.size()).arg(m_diff.additions()).arg(m_diff.deletions());
    if (m_diff.truncated)
        summary += tr(" The patch is cut short (it is larger than the service sends).");
    m_summary->setText(summary);

    const QSignalBlocker block(m_files);
    m_files->clear();
    if (!m_diff.files.isEmpty()) {
        auto *all = new QListWidgetItem(tr("All files (%1)").arg(m_diff.files.size()), m_files);
        all->setData(kPathRole, QString());
    }
    int select = 0;
    for (const DiffFile &f : m_diff.files) {
        QString text = QStringLiteral("%1  %2").arg(statusLetter(f.status), f.path);
        if (!f.oldPath.isEmpty())
            text += QStringLiteral("  (\u2190 %1)").arg(f.oldPath);
        text += f.binary ? tr("  binary")
                         : QStringLiteral("  +%1 \u2212%2").arg(f.additions).arg(f.deletions);
        auto *item = new QListWidgetItem(text, m_files);
        item->setData(kPathRole, f.path);
        if (f.path == keep)
            select = m_files->count() - 1;
    }
    m_files->setCurrentRow(m_files->count() > 0 ? select : -1);
    showFile();
    updateButtons();
}

void ChangesPanel::showFile() {
    const QListWidgetItem *item = m_files->currentItem();
    m_shown = m_diff.linesOf(item ? item->data(kPathRole).toString() : QString());
    m_view->clear();
    QTextCursor cursor(m_view->document());
    QTextCharFormat text;
    text.setFont(m_view->font());
    bool first = true;
    cursor.beginEditBlock();
    for (const PatchLine &l : std::as_const(m_shown)) {
        const DiffStyle style = diffStyle(l.kind);
        QTextBlockFormat block;
        block.setBackground(style.background);
        text.setForeground(style.foreground);
        text.setFontWeight(style.bold ? QFont::Bold : QFont::Normal);
        if (first)
            cursor.setBlockFormat(block);
        else
            cursor.insertBlock(block);
        first = false;
        const QString number =
            l.line > 0 ? QString::number(l.line).rightJustified(5) : QString(5, QLatin1Char(' '));
        cursor.insertText(number + QStringLiteral(" ") + QLatin1String(style.marker) + l.text,
                          text);
    }
    cursor.endEditBlock();
    m_view->moveCursor(QTextCursor::Start);
    updateCommentTarget();
}

void ChangesPanel::updateCommentTarget() {
    const int block = m_view->textCursor().blockNumber();
    const bool ok = block >= 0 && block < m_shown.size() && m_shown.at(block).line > 0;
    m_commentTarget->setText(
        ok ? tr("Line %1 of %2:").arg(m_shown.at(block).line).arg(m_shown.at(block).path)
           : tr("Select a line to comment on:"));
    m_commentEdit->setEnabled(ok);
}

bool ChangesPanel::addComment(const QString &body) {
    const int block = m_view->textCursor().blockNumber();
    if (body.trimmed().isEmpty() || block < 0 || block >= m_shown.size() ||
        m_shown.at(block).line <= 0)
        return false;
    const PatchLine &l = m_shown.at(block);
    m_pending.append(QJsonObject{{wk::Path, l.path}, {wk::Line, l.line}, {wk::Body, body}});
    m_comments->addItem(QStringLiteral("%1:%2  %3").arg(l.path).arg(l.line).arg(body));
    updateButtons();
    return true;
}

void ChangesPanel::sendReview() {
    if (m_agentId.isEmpty() || m_busy ||
        (m_pending.isEmpty() && m_reviewMessage->text().trimmed().isEmpty()))
        return;
    m_busy = true;
    updateButtons();
    const QPointer<ChangesPanel> self(this);
    const QString id = m_agentId;
    m_session.sendReview(
        id, m_pending, m_reviewMessage->text(), [self, id](const client::RestReply &r) {
            if (!self || id != self->m_agentId)
                return;
            self->m_busy = false;
            if (r.ok()) {
                self->m_pending = {};
                self->m_comments->clear();
                self->m_reviewMessage->clear();
                self->showResult(r.body.object().value(QStringLiteral("message")).toString(),
                                 false);
            } else {
                self->showResult(tr("Review not sent: %1").arg(r.error), true);
            }
            self->updateButtons();
            Q_EMIT self->reviewSent(r.ok());
        });
}

void ChangesPanel::merge() {
    if (!hasWorktree() || m_busy)
        return;
    const QJsonObject wt = m_session.agents().agent(m_agentId).value(wk::Worktree).toObject();
    const QString strategy = m_strategy->currentData().toString();
    const QString question =
        tr("Merge %1 into %2 (%3)? Uncommitted work in the agent's worktree is committed first.")
            .arg(wt.value(wk::Branch).toString(), wt.value(wk::BaseRef).toString(),
                 m_strategy->currentText().toLower());
    if (m_confirm && !m_confirm(question))
        return;
    m_busy = true;
    updateButtons();
    showResult(tr("Merging..."), false);
    const QPointer<ChangesPanel> self(this);
    const QString id = m_agentId;
    m_session.mergeAgent(
        id, strategy, m_mergeMessage->text(), [self, id](const client::RestReply &r) {
            if (!self || id != self->m_agentId)
                return;
            self->m_busy = false;
            const QJsonObject b = r.body.object();
            if (r.ok() && b.value(wk::AlreadyUpToDate).toBool()) {
                self->showResult(
                    tr("Nothing to merge: %1 is up to date.").arg(b.value(wk::Target).toString()),
                    false);
            } else if (r.ok()) {
                self->m_mergeMessage->clear();
                self->showResult(tr("Merged %1 into %2 (%3): commit %4.")
                                     .arg(b.value(wk::Branch).toString(),
                                          b.value(wk::Target).toString(),
                                          b.value(wk::Strategy).toString(),
                                          shortCommit(b.value(wk::Commit).toString())),
                                 false);
            } else if (r.code == QLatin1String("merge_conflict")) {
                QStringList paths;
                for (const QJsonValue &p : b.value(wk::Conflicts).toArray())
                    paths << p.toString();
                self->showResult(tr("Not merged: conflicts in %1. Nothing was changed in "
                                    "either checkout; ask the agent to rebase or resolve "
                                    "them, then merge again.")
                                     .arg(paths.join(QStringLiteral(", "))),
                                 true);
            } else {
                self->showResult(tr("Not merged: %1").arg(r.error), true);
            }
            self->updateButtons();
            self->refresh();
            Q_EMIT self->mergeFinished(r.ok());
        });
}

void ChangesPanel::updateButtons() {
    const bool wt = hasWorktree();
    m_refresh->setEnabled(wt);
    m_send->setEnabled(!m_busy && !m_agentId.isEmpty() && !m_pending.isEmpty());
    m_send->setText(m_pending.isEmpty() ? tr("Send re&view")
                                        : tr("Send re&view (%1)").arg(m_pending.size()));
    m_strategy->setEnabled(wt);
    m_merge->setEnabled(wt && !m_busy && !m_diff.files.isEmpty());
}

void ChangesPanel::showResult(const QString &text, bool error) {
    m_result->setText(text);
    m_result->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

} // namespace flotilla::monitor::ui
