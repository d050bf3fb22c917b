#include "ui/NotificationsPanel.h"

#include "core/MonitorSession.h"

#include <QHBoxLayout>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

NotificationsPanel::NotificationsPanel(MonitorSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_list(new QListView(this)) {
    m_list->setObjectName(QStringLiteral("notificationsList"));
    m_list->setModel(&m_session.notifications());
    m_list->setUniformItemSizes(true);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setAlternatingRowColors(true);
    auto *clear = new QPushButton(tr("C&lear list"), this);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(clear);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);
    // Clears the local list only: the service keeps its own history.
    connect(clear, &QPushButton::clicked, this, [this] { m_session.notifications().reset({}); });
    connect(m_list, &QListView::activated, this, [this](const QModelIndex &i) {
        const QString agentId = i.data(JsonListModel::JsonRole)
                                    .toJsonObject()
                                    .value(QStringLiteral("agentId"))
                                    .toString();
        if (!agentId.isEmpty())
            Q_EMIT agentActivated(agentId);
    });
}

} // namespace flotilla::monitor::ui
