#pragma once
// Skills: named pieces of know-how (a SKILL.md body) that agents and classes are given by slug.
// Each CLI receives them through its own skill mechanism (SkillMaterializer), so only a skill's
// name and description sit in the model's context until the model decides to use it.
//
// Stored in the catalog (kind "skills"); every change is written before it is acknowledged and
// announced by a signal that the skills controller turns into events.

#include "base/Clock.h"
#include "base/Error.h"
#include "storage/CatalogStore.h"

#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <optional>

namespace flotilla {

struct Skill {
    QString slug;
    QString name; // what the CLI lists: [a-z0-9-], 1..64; defaults to the slug
    QString description;
    QString content; // the SKILL.md body, without front matter
    std::optional<QStringList> allowedTools;
    bool enabled = true;
    qint64 createdAt = 0;
    qint64 updatedAt = 0;

    QJsonObject toJson() const;
    static std::optional<Skill> fromJson(const QJsonObject &json);
};

class SkillCatalog final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SkillCatalog)
public:
    static constexpr int kContentMaxBytes = 256 * 1024;
    static constexpr int kDescriptionMax = 1024;
    static constexpr int kNameMax = 64;
    static constexpr int kMaxSkills = 500;

    SkillCatalog(Database &db, Clock clock, QObject *parent = nullptr);
    ~SkillCatalog() override;

    Status load() { return m_store.load(); }
    QList<Skill> skills() const;
    std::optional<Skill> find(const QString &slug) const;
    bool contains(const QString &slug) const { return m_store.find(slug) != nullptr; }
    // What identifies a skill's version without reading its content: changes whenever a store
    // changes it (updatedAt only ever grows), for the per-turn check of an agent's skill files.
    // Empty for a skill that does not exist or is disabled.
    QString stamp(const QString &slug) const;
    // The slugs of `slugs` that name no skill.
    QStringList unknown(const QStringList &slugs) const;

    // POST body -> a new skill (not stored): 400/422 on bad input, 409 when the slug is taken.
    Result<Skill> parseNew(const QJsonObject &body) const;
    Result<Skill> create(const QJsonObject &body);
    Result<Skill> update(const QString &slug, const QJsonObject &body);
    Status remove(const QString &slug);
    // Config import: all or nothing, announced afterwards; undo() removes them again.
    Status storeAll(const QList<Skill> &skills);
    Status undo(const QStringList &slugs) { return m_store.removeAll(slugs); }

Q_SIGNALS:
    void skillStored(const flotilla::Skill &skill, bool created);
    void skillRemoved(const flotilla::Skill &skill);

private:
    Status applyFields(const QJsonObject &body, Skill &skill) const;

    CatalogStore m_store;
    Clock m_clock;
};

} // namespace flotilla
