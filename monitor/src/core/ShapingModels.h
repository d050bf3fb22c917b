#pragma once
// The lists of what shapes agents, as the Library window and the agent pane show them: classes,
// skills, saved prompts, hooks and buildings. One JsonListModel per kind, its one-line summary
// made for that kind; hooks whose last run failed and crashed buildings are red (ForegroundRole).

#include "core/ListModels.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <functional>

namespace flotilla::monitor {

enum class ShapingKind { Classes, Skills, Prompts, Hooks, Buildings };

class ShapingListModel final : public JsonListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ShapingListModel)
public:
    explicit ShapingListModel(ShapingKind kind, QObject *parent = nullptr);
    ShapingKind kind() const { return m_kind; }
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // How an agent id reads in a summary (a prompt's scope): its name, from the agents model.
    void setAgentNames(std::function<QString(const QString &agentId)> nameOf) {
        m_agentName = std::move(nameOf);
    }

protected:
    QString summary(const QJsonObject &o) const override;

private:
    ShapingKind m_kind;
    std::function<QString(const QString &)> m_agentName;
};

// The key that identifies an item of `kind`: slug for classes and skills, id for the others.
QString idKeyOf(ShapingKind kind);
// The REST collection of `kind`: /api/classes ...
QString collectionPath(ShapingKind kind);
// The items of a list answer: a JSON array, or the first array member of an object
// ({runs: [...]}), so both shapes read the same.
QList<QJsonObject> itemsOf(const QJsonDocument &body);
// A hook run that did not end well: the service's `failed` when present, else a non-zero exit,
// a signal, a timeout or an error.
bool runFailed(const QJsonObject &run);
// "exit 0 in 120 ms", "timed out after 30000 ms", "failed to start: ...".
QString runOutcome(const QJsonObject &run);
// The lines of GET /api/buildings/:id/logs as one text: {lines: ["..."] | [{text}]} or {text}.
QString logText(const QJsonDocument &body);

} // namespace flotilla::monitor
