#pragma once
// Agent classes: a role an agent is created with. A class carries instructions every agent of it
// reads, defaults for the agent's create fields, the skills its agents get, tool lists and an
// icon. `builder` and `boss` are built in: always listed (builtin: true), never deleted, their
// fields may be overridden (the override is stored like a custom class).
//
// An agent's `class` that names no defined class stays a plain label, as before classes had
// content: it gets no defaults and no instructions.
//
// Stored in the catalog (kind "classes"); changes are announced by signals the classes
// controller turns into events.

#include "base/Clock.h"
#include "base/Error.h"
#include "domain/ClassDefaults.h"
#include "storage/CatalogStore.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <optional>

namespace flotilla {

class ProviderCatalog;
class SkillCatalog;

struct AgentClass {
    QString slug;
    QString name;
    QString description;
    bool builtin = false;
    QString instructions;
    // The create fields an agent of this class gets when its body leaves them out: provider,
    // model, permissionMode, idleTimeoutSeconds, worktree, sandbox, host (as POST /api/agents
    // takes them).
    QJsonObject defaults;
    QStringList skills;
    std::optional<QStringList> allowedTools;
    std::optional<QStringList> disallowedTools;
    QString iconType; // "image/png" or "image/svg+xml"; empty: no icon
    QByteArray icon;
    qint64 createdAt = 0;
    qint64 updatedAt = 0;

    // The wire object, without the icon's bytes (iconUrl points at them).
    QJsonObject toJson() const;
    // The stored row: the wire object plus the icon.
    QJsonObject toStored() const;
    static std::optional<AgentClass> fromStored(const QJsonObject &json);
};

class ClassCatalog final : public QObject, public ClassDefaults {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ClassCatalog)
public:
    static constexpr int kIconMaxBytes = 64 * 1024;
    static constexpr int kDescriptionMax = 1024;
    static constexpr int kNameMax = 100;
    static constexpr int kMaxClasses = 200;

    ClassCatalog(Database &db, const ProviderCatalog &providers, const SkillCatalog &skills,
                 Clock clock, QObject *parent = nullptr);
    ~ClassCatalog() override;

    Status load() { return m_store.load(); }
    // Built-in classes first (with their overrides), then the custom ones in creation order.
    QList<AgentClass> classes() const;
    std::optional<AgentClass> find(const QString &slug) const;
    static bool isBuiltin(const QString &slug);

    // POST body -> a new class (not stored). 400/422 on bad input, 409 when the slug exists.
    Result<AgentClass> parseNew(const QJsonObject &body) const;
    Result<AgentClass> create(const QJsonObject &body);
    Result<AgentClass> update(const QString &slug, const QJsonObject &body);
    // 409 builtin_class for a built-in one; whether agents use it is the caller's check.
    Status remove(const QString &slug);
    // Config import: stored all or nothing (custom classes and overrides of built-in ones);
    // undo() removes them again.
    Status storeAll(const QList<AgentClass> &classes);
    Status undo(const QStringList &slugs) { return m_store.removeAll(slugs); }
    // Which built-in classes carry a stored override (config export).
    bool isStored(const QString &slug) const { return m_store.find(slug) != nullptr; }

    // An agent's create body with the class's defaults added where the body has no value;
    // the body as it is when the class is not defined.
    QJsonObject withDefaults(const QJsonObject &agentBody) const override;
    QStringList unknownSkills(const QStringList &slugs) const override;
    // Parses {mediaType, dataBase64} (422 invalid_icon for anything but a PNG or SVG of at most
    // kIconMaxBytes).
    static Status parseIcon(const QJsonValue &value, AgentClass &into);

Q_SIGNALS:
    void classStored(const flotilla::AgentClass &cls, bool created);
    void classRemoved(const flotilla::AgentClass &cls);

private:
    Status applyFields(const QJsonObject &body, AgentClass &cls) const;
    Status validateDefaults(const QJsonObject &defaults) const;
    static AgentClass builtinClass(const QString &slug);

    CatalogStore m_store;
    const ProviderCatalog &m_providers;
    const SkillCatalog &m_skills;
    Clock m_clock;
};

} // namespace flotilla
