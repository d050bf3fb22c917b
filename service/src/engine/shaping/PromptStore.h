#pragma once
// Saved prompts: texts a user sends often, offered in both clients' message box (pick, edit,
// send). A prompt is global, for a class (`scope.class`) or for one agent (`scope.agentId`); one
// agent's list is the global ones, its class's and its own. Kept as JSON rows of kind "prompts"
// in the catalog (storage/CatalogStore.h); an agent's prompts go when the agent goes. The wire
// shape and the refusals are in docs/api.md, "Saved prompts".

#include "base/Clock.h"
#include "base/Error.h"
#include "storage/CatalogStore.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <functional>
#include <optional>

namespace flotilla {

class AgentRegistry;
class Database;
struct Agent;

// A prompt as a request (or an import entry) describes it, validated.
struct PromptDraft {
    QString name;       // trimmed, 1..kNameMax characters
    QString text;       // 1..kTextMaxBytes UTF-8 bytes, kept as sent
    QString agentClass; // scope.class; empty: none
    QString agentId;    // scope.agentId; empty: none
    QString agentName;  // import only: scope.agentName, resolved to agentId when applied
};

// The `agent-prompts` category of a config document, validated, nothing applied yet.
struct PromptImport {
    QList<PromptDraft> drafts;
    QJsonArray conflicts; // [{category, name}]: a prompt of that name and scope exists already
    QStringList warnings; // entries left out (their agent is nowhere)
};

class PromptStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PromptStore)
public:
    static constexpr int kNameMax = 100;
    static constexpr int kTextMaxBytes = 64 * 1024;
    // A picker lists them all; far more than this is a client's bug, not a habit.
    static constexpr int kMaxPrompts = 1000;

    PromptStore(Database &db, AgentRegistry &agents, Clock clock, QObject *parent = nullptr);
    ~PromptStore() override;

    // Reads the stored prompts and drops those of agents that are gone (deleted while a removal
    // could not be written).
    Status load();

    QList<QJsonObject> prompts() const { return m_store.items(); }
    // The global prompts, those of the agent's class and the agent's own, in creation order.
    QList<QJsonObject> promptsFor(const Agent &agent) const;
    const QJsonObject *find(const QString &id) const { return m_store.find(id); }

    // POST /api/prompts and PATCH /api/prompts/:id bodies: unknown fields, types, limits, the
    // scope's agent (404 when unknown); a name already used in the same scope is 409.
    Result<QJsonObject> create(const QJsonObject &body);
    Result<QJsonObject> patch(const QString &id, const QJsonObject &body);
    Status remove(const QString &id);

    // Config transfer (`agent-prompts`, organization/CategoryTransfer.h). Export: each prompt
    // without id and times, an agent's scope by the agent's name ({agentName}, from
    // `agentName`: empty when there is no such agent, and then the prompt is left out).
    QJsonArray exportItems(const std::function<QString(const QString &agentId)> &agentName) const;
    // Each entry as POST takes it, with scope.agentName in place of scope.agentId; `agentKnown`
    // says whether the document or this service has that agent (an entry for an agent in
    // neither is left out with a warning). Twice the same name and scope in the document: 422.
    Result<PromptImport>
    validateImport(const QJsonValue &value,
                   const std::function<bool(const QString &agentName)> &agentKnown) const;
    // After the document's agents were created: resolves agent names through `agentId`, stores
    // every prompt in one transaction (prompt_created each) and returns their ids for
    // undoImport.
    Result<QStringList>
    applyImport(const PromptImport &plan,
                const std::function<QString(const QString &agentName)> &agentId);
    // Removes what applyImport stored, when a later step of the import failed.
    Status undoImport(const QStringList &ids);

Q_SIGNALS:
    void promptCreated(const QJsonObject &prompt);
    void promptUpdated(const QJsonObject &prompt);
    void promptDeleted(const QJsonObject &prompt);

private:
    // Parses the body fields; `base` is the prompt a PATCH starts from (nullopt for POST).
    Result<PromptDraft> parseDraft(const QJsonObject &body,
                                   const std::optional<PromptDraft> &base) const;
    Status checkScopeAgent(const PromptDraft &draft) const;
    // The id of a prompt other than `exceptId` with the draft's name (case-insensitively) and
    // scope, or an empty string.
    QString sameNameAndScope(const PromptDraft &draft, const QString &exceptId) const;
    QJsonObject toJson(const QString &id, const PromptDraft &draft, qint64 createdAt,
                       qint64 updatedAt) const;
    void removeAgentPrompts(const QString &agentId);

    AgentRegistry &m_agents;
    Clock m_clock;
    CatalogStore m_store;
};

} // namespace flotilla
