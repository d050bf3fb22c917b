#pragma once
// What shapes the agents of one service, for the monitor: its classes, skills, saved prompts,
// hooks and buildings as live lists, the class icons, and the calls that change them. A list is
// loaded the first time something asks for it (ensureLoaded), then kept in step by the service's
// events (class_*, skill_*, prompt_*, hook_*, building_*) and loaded again after each
// reconnect. MonitorSession owns one and hands it the events it does not handle itself.
// Widgets-free, like the rest of the core.

#include "client/ServiceClient.h"
#include "core/ClassIcons.h"
#include "core/ShapingModels.h"

#include <QHash>
#include <QObject>
#include <array>
#include <functional>

namespace flotilla::monitor {

class ShapingCatalog final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ShapingCatalog)
public:
    using Done = client::ServiceClient::Callback;
    explicit ShapingCatalog(client::ServiceClient &client, QObject *parent = nullptr);

    ShapingListModel &model(ShapingKind kind) { return *m_models[index(kind)]; }
    ShapingListModel &classes() { return model(ShapingKind::Classes); }
    ShapingListModel &skills() { return model(ShapingKind::Skills); }
    ShapingListModel &prompts() { return model(ShapingKind::Prompts); }
    ShapingListModel &hooks() { return model(ShapingKind::Hooks); }
    ShapingListModel &buildings() { return model(ShapingKind::Buildings); }
    ClassIcons &icons() { return m_icons; }

    void ensureLoaded(ShapingKind kind); // loads once; events keep it
    bool isLoaded(ShapingKind kind) const { return m_state[index(kind)] == State::Loaded; }
    void reload(ShapingKind kind, Done done = {});

    // The icon of a class the service defines with one; empty for a plain label, a class without
    // an icon, or while the classes or the icon are on their way (classChanged follows).
    ClassIcon classIcon(const QString &slug);

    // POST <collection> | PATCH/DELETE <collection>/:id. The answer's item is put in the list at
    // once (the event brings it too), so a caller may select it in its `done`.
    void create(ShapingKind kind, const QJsonObject &body, Done done = {});
    void update(ShapingKind kind, const QString &id, const QJsonObject &changes, Done done = {});
    void remove(ShapingKind kind, const QString &id, Done done = {});
    // POST /api/buildings/:id/start|stop|restart
    void buildingAction(const QString &buildingId, const QString &action, Done done = {});
    void fetchBuildingLogs(const QString &buildingId, int tail, Done done);
    void fetchHookRuns(const QString &hookId, Done done);
    // GET /api/prompts?agentId=: the global prompts, those of the agent's class, its own.
    void fetchPromptsFor(const QString &agentId, Done done);

    // The session's event channel: true when `type` is one of these lists' events.
    bool handleEvent(const QString &type, const QJsonValue &payload);
    void onConnected(); // reloads what was loaded, forgets the icons

Q_SIGNALS:
    void loaded(flotilla::monitor::ShapingKind kind);
    // A class was created, changed or deleted, or its icon arrived (empty slug: all of them).
    void classChanged(const QString &slug);
    void promptsChanged(); // a prompt_* event: lists made for one agent are stale
    void hookRunFinished(const QJsonObject &run);
    void buildingOutput(const QString &buildingId, const QString &text, const QString &stream);

private:
    enum class State { Unloaded, Loading, Loaded };
    static constexpr int kKinds = 5;
    static int index(ShapingKind kind) { return static_cast<int>(kind); }
    QString itemPath(ShapingKind kind, const QString &id) const;
    void upsert(ShapingKind kind, const QJsonObject &item);
    // `done`, after the answer's item (on success) is put in the list of `kind`.
    Done upserting(ShapingKind kind, Done done);
    void removeItem(ShapingKind kind, const QString &id);
    void applyEvent(ShapingKind kind, bool deleted, const QJsonObject &payload);
    void onHookRun(const QJsonObject &run);

    client::ServiceClient &m_client;
    std::array<ShapingListModel *, kKinds> m_models{}; // children of this
    std::array<State, kKinds> m_state{};
    std::array<quint64, kKinds> m_generation{};
    // Item events that came while a list was being (re)loaded: applied again over the answer,
    // which may have been read before them. {deleted, payload}
    std::array<QList<QPair<bool, QJsonObject>>, kKinds> m_pending;
    std::array<bool, kKinds> m_inFlight{};
    ClassIcons m_icons;
};

} // namespace flotilla::monitor
