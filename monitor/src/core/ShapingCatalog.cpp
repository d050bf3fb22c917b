#include "core/ShapingCatalog.h"

#include "core/MonitorLog.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"

#include <QPointer>
#include <QUrl>

#include <utility>

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;
namespace sm = ::flotilla::wire::shaping::msg;
namespace sp = ::flotilla::wire::shaping::param;

using client::RestReply;

namespace {
QString pathId(const QString &id) {
    return QString::fromLatin1(QUrl::toPercentEncoding(id));
}

enum class Op { Upsert, Delete };
struct Route {
    ShapingKind kind;
    Op op;
};

// Item events of the five lists, by message type.
const QHash<QString, Route> &itemEvents() {
    static const QHash<QString, Route> table{
        {QString(sm::ClassCreated), {ShapingKind::Classes, Op::Upsert}},
        {QString(sm::ClassUpdated), {ShapingKind::Classes, Op::Upsert}},
        {QString(sm::ClassDeleted), {ShapingKind::Classes, Op::Delete}},
        {QString(sm::SkillCreated), {ShapingKind::Skills, Op::Upsert}},
        {QString(sm::SkillUpdated), {ShapingKind::Skills, Op::Upsert}},
        {QString(sm::SkillDeleted), {ShapingKind::Skills, Op::Delete}},
        {QString(sm::PromptCreated), {ShapingKind::Prompts, Op::Upsert}},
        {QString(sm::PromptUpdated), {ShapingKind::Prompts, Op::Upsert}},
        {QString(sm::PromptDeleted), {ShapingKind::Prompts, Op::Delete}},
        {QString(sm::HookCreated), {ShapingKind::Hooks, Op::Upsert}},
        {QString(sm::HookUpdated), {ShapingKind::Hooks, Op::Upsert}},
        {QString(sm::HookDeleted), {ShapingKind::Hooks, Op::Delete}},
        {QString(sm::BuildingCreated), {ShapingKind::Buildings, Op::Upsert}},
        {QString(sm::BuildingUpdated), {ShapingKind::Buildings, Op::Upsert}},
        {QString(sm::BuildingDeleted), {ShapingKind::Buildings, Op::Delete}},
    };
    return table;
}
} // namespace

ShapingCatalog::ShapingCatalog(client::ServiceClient &client, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_icons(client) {
    for (const ShapingKind kind : {ShapingKind::Classes, ShapingKind::Skills, ShapingKind::Prompts,
                                   ShapingKind::Hooks, ShapingKind::Buildings})
        m_models[index(kind)] = new ShapingListModel(kind, this);
    connect(&m_icons, &ClassIcons::iconChanged, this, &ShapingCatalog::classChanged);
}

QString ShapingCatalog::itemPath(ShapingKind kind, const QString &id) const {
    return collectionPath(kind) + QLatin1Char('/') + pathId(id);
}

void ShapingCatalog::ensureLoaded(ShapingKind kind) {
    if (m_state[index(kind)] == State::Unloaded)
        reload(kind);
}

// GET <collection> -> 200 [item]
void ShapingCatalog::reload(ShapingKind kind, Done done) {
    const int i = index(kind);
    if (m_state[i] == State::Unloaded)
        m_state[i] = State::Loading;
    const quint64 generation = ++m_generation[i];
    m_inFlight[i] = true;
    const QPointer<ShapingCatalog> self(this);
    m_client.get(collectionPath(kind), [self, kind, i, generation,
                                        done = std::move(done)](const RestReply &r) {
        if (self && generation == self->m_generation[i]) {
            self->m_inFlight[i] = false;
            const auto pending = std::exchange(self->m_pending[i], {});
            if (r.ok()) {
                self->model(kind).reset(itemsOf(r.body));
                self->m_state[i] = State::Loaded;
                for (const auto &[deleted, payload] : pending)
                    self->applyEvent(kind, deleted, payload);
                if (kind == ShapingKind::Classes)
                    Q_EMIT self->classChanged({});
                Q_EMIT self->loaded(kind);
            } else {
                // Not there (an older service) or refused: asked again on the next use.
                qCInfo(lcMonitor) << "cannot load" << collectionPath(kind) << r.status << r.error;
                if (self->m_state[i] == State::Loading)
                    self->m_state[i] = State::Unloaded;
            }
        }
        if (done)
            done(r);
    });
}

ClassIcon ShapingCatalog::classIcon(const QString &slug) {
    ensureLoaded(ShapingKind::Classes);
    const QJsonObject cls = classes().itemById(slug);
    if (cls.isEmpty() || !cls.value(sk::HasIcon).toBool())
        return {};
    return m_icons.icon(slug);
}

void ShapingCatalog::upsert(ShapingKind kind, const QJsonObject &item) {
    const QString id = item.value(idKeyOf(kind)).toString();
    if (id.isEmpty() || !isLoaded(kind))
        return; // a list not loaded yet gets the whole picture when it is
    ShapingListModel &list = model(kind);
    const QJsonObject before = list.itemById(id);
    list.append(item); // merges into the existing row
    if (kind == ShapingKind::Classes &&
        (before.isEmpty() || before.value(sk::UpdatedAt) != item.value(sk::UpdatedAt))) {
        m_icons.forget(id); // its icon may have changed with it
        Q_EMIT classChanged(id);
    }
}

void ShapingCatalog::removeItem(ShapingKind kind, const QString &id) {
    model(kind).remove(id);
    if (kind == ShapingKind::Classes) {
        m_icons.forget(id);
        Q_EMIT classChanged(id);
    }
}

ShapingCatalog::Done ShapingCatalog::upserting(ShapingKind kind, Done done) {
    const QPointer<ShapingCatalog> self(this);
    return [self, kind, done = std::move(done)](const RestReply &r) {
        if (self && r.ok() && r.body.isObject())
            self->upsert(kind, r.body.object());
        if (done)
            done(r);
    };
}

// POST <collection> -> 201 item | 4xx {error, code}
void ShapingCatalog::create(ShapingKind kind, const QJsonObject &body, Done done) {
    m_client.post(collectionPath(kind), body, upserting(kind, std::move(done)));
}

// PATCH <collection>/:id -> 200 item | 4xx
void ShapingCatalog::update(ShapingKind kind, const QString &id, const QJsonObject &changes,
                            Done done) {
    m_client.patch(itemPath(kind, id), changes, upserting(kind, std::move(done)));
}

// DELETE <collection>/:id -> 204 | 404 | 409 class_in_use / skill_in_use / builtin_class
void ShapingCatalog::remove(ShapingKind kind, const QString &id, Done done) {
    const QPointer<ShapingCatalog> self(this);
    m_client.del(itemPath(kind, id), [self, kind, id, done = std::move(done)](const RestReply &r) {
        if (self && r.ok())
            self->removeItem(kind, id);
        if (done)
            done(r);
    });
}

// POST /api/buildings/:id/start|stop|restart -> 200 building | 404 | 409
void ShapingCatalog::buildingAction(const QString &buildingId, const QString &action, Done done) {
    m_client.post(itemPath(ShapingKind::Buildings, buildingId) + QLatin1Char('/') + action, {},
                  upserting(ShapingKind::Buildings, std::move(done)));
}

// GET /api/buildings/:id/logs?tail=N -> 200 {lines}
void ShapingCatalog::fetchBuildingLogs(const QString &buildingId, int tail, Done done) {
    m_client.get(itemPath(ShapingKind::Buildings, buildingId) +
                     QStringLiteral("/logs?%1=%2").arg(QString(sp::Tail)).arg(tail),
                 std::move(done));
}

// GET /api/hooks/:id/runs -> 200 [run] newest first
void ShapingCatalog::fetchHookRuns(const QString &hookId, Done done) {
    m_client.get(itemPath(ShapingKind::Hooks, hookId) + QStringLiteral("/runs"), std::move(done));
}

void ShapingCatalog::fetchPromptsFor(const QString &agentId, Done done) {
    m_client.get(collectionPath(ShapingKind::Prompts) +
                     QStringLiteral("?%1=%2").arg(QString(sp::AgentId), pathId(agentId)),
                 std::move(done));
}

bool ShapingCatalog::handleEvent(const QString &type, const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    const auto route = itemEvents().constFind(type);
    if (route != itemEvents().constEnd()) {
        const int i = index(route->kind);
        if (m_inFlight[i])
            m_pending[i].append({route->op == Op::Delete, o});
        applyEvent(route->kind, route->op == Op::Delete, o);
        if (route->kind == ShapingKind::Prompts)
            Q_EMIT promptsChanged();
        return true;
    }
    if (type == sm::HookRun) {
        onHookRun(o);
        return true;
    }
    if (type == sm::BuildingOutput) {
        QString text = o.value(sk::Text).toString();
        // Output the service dropped for this client while it lagged.
        const qint64 skipped = o.value(sk::SkippedBytes).toInteger();
        if (skipped > 0)
            text.prepend(tr("[%1 bytes skipped]\n").arg(skipped));
        Q_EMIT buildingOutput(o.value(sk::BuildingId).toString(), text,
                              o.value(sk::Stream).toString());
        return true;
    }
    // Known, nothing to show: the monitor has no area editor and no 3D view.
    return type == sm::AreaUpdated || type == sm::ModelCreated || type == sm::ModelDeleted;
}

void ShapingCatalog::applyEvent(ShapingKind kind, bool deleted, const QJsonObject &payload) {
    if (deleted)
        removeItem(kind, payload.value(idKeyOf(kind)).toString());
    else
        upsert(kind, payload);
}

void ShapingCatalog::onHookRun(const QJsonObject &run) {
    const QString hookId = run.value(sk::HookId).toString();
    if (isLoaded(ShapingKind::Hooks) && hooks().rowOf(hookId) >= 0)
        hooks().update(hookId, {{sk::LastRun, run}});
    Q_EMIT hookRunFinished(run);
}

void ShapingCatalog::onConnected() {
    m_icons.clear();
    for (int i = 0; i < kKinds; ++i) {
        if (m_state[i] != State::Unloaded)
            reload(static_cast<ShapingKind>(i));
    }
}

} // namespace flotilla::monitor
