#include "ui/HistorySearchPanel.h"

#include "core/MonitorSession.h"

#include <QDateTime>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSplitter>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

HistorySearchPanel::HistorySearchPanel(MonitorSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_query(new QLineEdit(this))
    , m_summary(new QLabel(this))
    , m_results(new QListWidget(this))
    , m_detail(new QPlainTextEdit(this)) {
    m_query->setObjectName(QStringLiteral("historySearch"));
    m_results->setObjectName(QStringLiteral("historyResults"));
    m_query->setPlaceholderText(tr("Search this agent's history (Ctrl+Shift+F), Enter to search"));
    m_query->setClearButtonEnabled(true);
    m_detail->setReadOnly(true);
    m_results->setUniformItemSizes(true);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_results);
    split->addWidget(m_detail);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_query);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    connect(m_query, &QLineEdit::returnPressed, this, [this] { search(m_query->text()); });
    connect(m_results, &QListWidget::currentRowChanged, this, &HistorySearchPanel::showMatch);
}

void HistorySearchPanel::setAgent(const QString &agentId) {
    if (agentId == m_agentId)
        return;
    m_agentId = agentId;
    ++m_generation;
    m_results->clear();
    m_detail->clear();
    m_summary->clear();
}

void HistorySearchPanel::focusQuery() {
    m_query->setFocus(Qt::ShortcutFocusReason);
    m_query->selectAll();
}

void HistorySearchPanel::search(const QString &query) {
    const QString q = query.trimmed();
    if (m_agentId.isEmpty() || q.isEmpty())
        return;
    m_query->setText(q);
    const int generation = ++m_generation;
    m_summary->setText(tr("Searching..."));
    const QPointer<HistorySearchPanel> self(this);
    m_session.searchHistory(m_agentId, q, [self, generation](const client::RestReply &r) {
        if (!self || generation != self->m_generation)
            return;
        self->m_results->clear();
        self->m_detail->clear();
        if (!r.ok()) {
            self->m_summary->setText(tr("Search failed: %1").arg(r.error));
            return;
        }
        const QJsonObject body = r.body.object();
        const QJsonArray matches = body.value(QStringLiteral("matches")).toArray();
        self->m_summary->setText(
            tr("%n match(es)", nullptr,
               body.value(QStringLiteral("totalMatches")).toInt(int(matches.size()))));
        for (const QJsonValue &v : matches) {
            const QJsonObject m = v.toObject();
            const QString content = m.value(QStringLiteral("content")).toString();
            const qint64 ts = m.value(QStringLiteral("timestamp")).toInteger();
            const QString when =
                ts > 0 ? QDateTime::fromMSecsSinceEpoch(ts).toString(QStringLiteral("MM-dd hh:mm"))
                       : QString();
            auto *item =
                new QListWidgetItem(QStringLiteral("%1  %2  %3")
                                        .arg(when, m.value(QStringLiteral("type")).toString(),
                                             content.section(QLatin1Char('\n'), 0, 0).left(300)),
                                    self->m_results);
            item->setData(Qt::UserRole, content);
            item->setToolTip(content.left(2000));
        }
    });
}

void HistorySearchPanel::showMatch() {
    const QListWidgetItem *item = m_results->currentItem();
    m_detail->setPlainText(item ? item->data(Qt::UserRole).toString() : QString());
}

} // namespace flotilla::monitor::ui
