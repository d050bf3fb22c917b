#include "ui/ExtraServices.h"

#include "core/InboxModel.h"
#include "core/MonitorSession.h"
#include "ui/AgentPane.h"
#include "ui/AgentsView.h"
#include "ui/ConnectionStatusLabel.h"
#include "ui/CredentialStore.h"
#include "ui/TrayNotifier.h"
#include "ui/UiLog.h"

#include <QPointer>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>

namespace flotilla::monitor::ui {

namespace {
const QString kList = QStringLiteral("window/extraServices");
const QString kUrl = QStringLiteral("url");
const QString kName = QStringLiteral("name");

QString keyOf(const QUrl &url) {
    return url.toString(QUrl::StripTrailingSlash);
}
} // namespace

struct ExtraServices::Service {
    client::Endpoint endpoint; // as given (the token stays in the credential store)
    QString name;
    std::unique_ptr<MonitorSession> session;
    AgentPane *pane = nullptr;
    ConnectionStatusLabel *label = nullptr;
};

ExtraServices::ExtraServices(Deps deps, QObject *parent)
    : QObject(parent)
    , m_deps(deps) {
}

ExtraServices::~ExtraServices() {
    // Widgets that refer to a session go before it (the window may outlive us by a moment).
    for (const auto &s : m_services) {
        m_deps.inbox.removeSession(s->session.get());
        m_deps.agents.removeModel(s->session->agents());
        delete s->pane;
        delete s->label;
    }
}

bool ExtraServices::add(const client::Endpoint &endpoint, const QString &name) {
    for (const auto &s : m_services)
        if (keyOf(s->endpoint.baseUrl) == keyOf(endpoint.baseUrl))
            return false;
    auto s = std::make_unique<Service>();
    s->endpoint = endpoint;
    s->name = name.isEmpty() ? endpoint.baseUrl.authority() : name;
    s->session = std::make_unique<MonitorSession>();
    MonitorSession *session = s->session.get();
    session->agents().setServiceName(s->name);
    s->pane = new AgentPane(*session);
    m_deps.panes.addWidget(s->pane);
    s->label = new ConnectionStatusLabel(session->client(), session->tunnel());
    s->label->setObjectName(QStringLiteral("connection:") + s->name);
    s->label->setToolTip(tr("Service %1").arg(s->name));
    m_deps.statusBar.addPermanentWidget(s->label);
    m_deps.agents.addModel(session->agents());
    m_deps.inbox.addSession(session, s->name);
    connect(session, &MonitorSession::permissionRequested, &m_deps.tray,
            &TrayNotifier::notifyPermission);
    connect(session, &MonitorSession::notificationArrived, &m_deps.tray, &TrayNotifier::notify);
    AgentsModel &agents = session->agents();
    connect(&agents, &QAbstractItemModel::rowsInserted, this, &ExtraServices::changed);
    connect(&agents, &QAbstractItemModel::rowsRemoved, this, &ExtraServices::changed);
    connect(&agents, &QAbstractItemModel::dataChanged, this, &ExtraServices::changed);
    qCInfo(lcUi) << "showing service" << s->name << endpoint.baseUrl.toDisplayString();
    session->open(endpoint);
    m_services.push_back(std::move(s));
    save();
    Q_EMIT changed();
    return true;
}

void ExtraServices::remove(MonitorSession *session) {
    const auto it = std::find_if(m_services.begin(), m_services.end(),
                                 [session](const auto &s) { return s->session.get() == session; });
    if (it == m_services.end())
        return;
    std::unique_ptr<Service> s = std::move(*it);
    m_services.erase(it);
    m_deps.inbox.removeSession(session);
    m_deps.agents.removeModel(session->agents());
    m_deps.statusBar.removeWidget(s->label);
    delete s->label;
    delete s->pane;
    session->close();
    save();
    Q_EMIT changed();
}

void ExtraServices::restore() {
    QSettings settings;
    const int n = settings.beginReadArray(kList);
    QList<QPair<QUrl, QString>> saved;
    for (int i = 0; i < n; ++i) {
        settings.setArrayIndex(i);
        saved.append({settings.value(kUrl).toUrl(), settings.value(kName).toString()});
    }
    settings.endArray();
    const QPointer<ExtraServices> self(this);
    for (const auto &[url, name] : saved) {
        if (!url.isValid())
            continue;
        m_deps.credentials.readToken(
            keyOf(url), [self, url = url, name = name](bool found, const QByteArray &token) {
                if (self)
                    self->add({url, found ? token : QByteArray()}, name);
            });
    }
}

void ExtraServices::save() const {
    QSettings settings;
    settings.beginWriteArray(kList, int(m_services.size()));
    for (int i = 0; i < int(m_services.size()); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(kUrl, m_services[i]->endpoint.baseUrl);
        settings.setValue(kName, m_services[i]->name);
    }
    settings.endArray();
}

QList<MonitorSession *> ExtraServices::sessions() const {
    QList<MonitorSession *> out;
    for (const auto &s : m_services)
        out << s->session.get();
    return out;
}

MonitorSession *ExtraServices::sessionOf(const QString &agentId) const {
    for (const auto &s : m_services)
        if (s->session->agents().rowOf(agentId) >= 0)
            return s->session.get();
    return nullptr;
}

AgentPane *ExtraServices::paneOf(const MonitorSession *session) const {
    for (const auto &s : m_services)
        if (s->session.get() == session)
            return s->pane;
    return nullptr;
}

QString ExtraServices::nameOf(const MonitorSession *session) const {
    for (const auto &s : m_services)
        if (s->session.get() == session)
            return s->name;
    return {};
}

} // namespace flotilla::monitor::ui
