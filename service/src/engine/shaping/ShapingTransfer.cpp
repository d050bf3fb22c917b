#include "shaping/ShapingTransfer.h"

#include "domain/AgentValidation.h"
#include "organization/TransferSupport.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "shaping/ClassCatalog.h"
#include "shaping/SkillCatalog.h"

#include <QHash>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace cat = wire::org::category;

using transfer::arrayOf;
using transfer::at;
using transfer::conflict;

namespace {

class PendingShaping final : public PendingImport {
public:
    PendingShaping(ClassCatalog &classCatalog, SkillCatalog &skillCatalog)
        : m_classes(classCatalog)
        , m_skills(skillCatalog) {}

    QList<Skill> skills;
    QList<AgentClass> classes;         // new ones and changed existing ones, complete
    QHash<QString, AgentClass> before; // existing classes this import changes, as they were
    int instructions = 0;
    int icons = 0;

    QJsonObject counts() const override {
        int custom = 0;
        for (const AgentClass &cls : classes)
            custom += before.contains(cls.slug) ? 0 : 1;
        return QJsonObject{{cat::Skills, skills.size()},
                           {cat::CustomClasses, custom},
                           {cat::ClassInstructions, instructions},
                           {cat::CustomClassIcons, icons}};
    }

    Status apply(const ImportIds &) override {
        if (Status e = m_skills.storeAll(skills))
            return e;
        if (Status e = m_classes.storeAll(classes)) {
            undoSkills();
            return e;
        }
        return std::nullopt;
    }

    void undo() override {
        QStringList added;
        QList<AgentClass> restore;
        for (const AgentClass &cls : std::as_const(classes)) {
            if (before.contains(cls.slug))
                restore.append(before.value(cls.slug));
            else
                added.append(cls.slug);
        }
        m_classes.undo(added);
        m_classes.storeAll(restore);
        undoSkills();
    }

private:
    void undoSkills() {
        QStringList slugs;
        for (const Skill &s : std::as_const(skills))
            slugs.append(s.slug);
        m_skills.undo(slugs);
    }

    ClassCatalog &m_classes;
    SkillCatalog &m_skills;
};

} // namespace

ShapingTransfer::ShapingTransfer(ClassCatalog &classes, SkillCatalog &skills)
    : m_classes(classes)
    , m_skills(skills) {
}

ShapingTransfer::~ShapingTransfer() = default;

QStringList ShapingTransfer::categories() const {
    return {cat::Skills, cat::CustomClasses, cat::ClassInstructions, cat::CustomClassIcons};
}

QJsonValue ShapingTransfer::exportCategory(const QString &category, const ExportRefs &) const {
    QJsonArray out;
    if (category == cat::Skills) {
        const QList<Skill> all = m_skills.skills();
        for (const Skill &s : all) {
            QJsonObject o = s.toJson();
            o.remove(k::CreatedAt);
            o.remove(sk::UpdatedAt);
            out.append(o);
        }
        return out;
    }
    const QList<AgentClass> all = m_classes.classes();
    for (const AgentClass &cls : all) {
        if (category == cat::CustomClasses) {
            // A built-in class only when the user changed it.
            if (cls.builtin && !m_classes.isStored(cls.slug))
                continue;
            out.append(QJsonObject{{sk::Slug, cls.slug},
                                   {k::Name_, cls.name},
                                   {sk::Description, cls.description},
                                   {sk::Defaults, cls.defaults},
                                   {sk::Skills, QJsonArray::fromStringList(cls.skills)},
                                   {sk::AllowedTools, cls.toJson().value(sk::AllowedTools)},
                                   {sk::DisallowedTools, cls.toJson().value(sk::DisallowedTools)}});
        } else if (category == cat::ClassInstructions && !cls.instructions.isEmpty()) {
            out.append(QJsonObject{{k::Class, cls.slug}, {sk::Instructions, cls.instructions}});
        } else if (category == cat::CustomClassIcons && !cls.icon.isEmpty()) {
            out.append(QJsonObject{{k::Class, cls.slug},
                                   {sk::MediaType, cls.iconType},
                                   {sk::DataBase64, QString::fromLatin1(cls.icon.toBase64())}});
        }
    }
    return out;
}

Result<std::shared_ptr<PendingImport>> ShapingTransfer::validate(const QJsonObject &given,
                                                                 const ImportRefs &refs,
                                                                 QJsonArray &conflicts,
                                                                 QStringList &) const {
    auto pending = std::make_shared<PendingShaping>(m_classes, m_skills);
    const auto skills = arrayOf(given, cat::Skills);
    if (!skills)
        return skills.error();
    QStringList seen;
    for (qsizetype i = 0; i < skills->size(); ++i) {
        const QString where = QStringLiteral("categories.skills[%1]").arg(i);
        QJsonObject o = skills->at(i).toObject();
        o.remove(k::CreatedAt);
        o.remove(sk::UpdatedAt);
        const QString slug = o.value(sk::Slug).toString();
        if (m_skills.contains(slug)) {
            conflicts.append(conflict(cat::Skills, slug));
            continue;
        }
        const auto skill = m_skills.parseNew(o);
        if (!skill)
            return at(where, skill.error());
        if (seen.contains(slug))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("%1: skill '%2' appears twice").arg(where, slug));
        seen.append(slug);
        pending->skills.append(*skill);
    }

    // Classes by slug: the document's, then instructions and icons laid over them.
    QHash<QString, AgentClass> bySlug;
    QStringList order;
    const auto classes = arrayOf(given, cat::CustomClasses);
    if (!classes)
        return classes.error();
    for (qsizetype i = 0; i < classes->size(); ++i) {
        const QString where = QStringLiteral("categories.custom-classes[%1]").arg(i);
        QJsonObject o = classes->at(i).toObject();
        const QString slug = o.value(sk::Slug).toString();
        o.remove(sk::Builtin);
        o.remove(k::CreatedAt);
        o.remove(sk::UpdatedAt);
        // Skills are checked against the document's too, below; the catalog knows only ours.
        const QJsonValue skillsValue = o.take(sk::Skills);
        Result<AgentClass> cls = Error::internal(c::Internal, QString());
        if (ClassCatalog::isBuiltin(slug)) {
            // An override of a built-in class: checked as a new class would be, then laid over
            // the class as it is here (its instructions and icon travel in their own categories).
            const AgentClass base = *m_classes.find(slug);
            o.insert(sk::Slug, QStringLiteral("import-probe"));
            cls = m_classes.parseNew(o);
            if (cls) {
                AgentClass merged = *cls;
                merged.slug = slug;
                merged.builtin = true;
                merged.instructions = base.instructions;
                merged.icon = base.icon;
                merged.iconType = base.iconType;
                merged.createdAt = base.createdAt;
                cls = merged;
                pending->before.insert(slug, base);
            }
        } else if (m_classes.find(slug)) {
            conflicts.append(conflict(cat::CustomClasses, slug));
            continue;
        } else {
            cls = m_classes.parseNew(o);
        }
        if (!cls)
            return at(where, cls.error());
        const auto skillList = parseSlugList(QJsonObject{{sk::Skills, skillsValue}}, sk::Skills);
        if (!skillList)
            return at(where, skillList.error());
        const QStringList classSkills = skillList->value_or(QStringList());
        for (const QString &skill : classSkills) {
            if (!refs.skillKnown(skill))
                return Error::invalid(wire::shaping::code::UnknownSkill,
                                      QStringLiteral("%1: no skill '%2' in the document or in "
                                                     "this service")
                                          .arg(where, skill));
        }
        cls.value().skills = classSkills;
        if (bySlug.contains(slug))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("%1: class '%2' appears twice").arg(where, slug));
        bySlug.insert(slug, *cls);
        order.append(slug);
    }
    // Instructions and icons: for a class of the document, or one this service has.
    const auto target = [&](const QString &slug, const QString &where) -> Result<AgentClass *> {
        if (!bySlug.contains(slug)) {
            const auto existing = m_classes.find(slug);
            if (!existing)
                return Error::invalid(c::InvalidValue,
                                      QStringLiteral("%1: no class '%2' in the document or in "
                                                     "this service")
                                          .arg(where, slug));
            pending->before.insert(slug, *existing);
            bySlug.insert(slug, *existing);
            order.append(slug);
        }
        return &bySlug[slug];
    };
    const auto instructions = arrayOf(given, cat::ClassInstructions);
    if (!instructions)
        return instructions.error();
    for (qsizetype i = 0; i < instructions->size(); ++i) {
        const QString where = QStringLiteral("categories.class-instructions[%1]").arg(i);
        const QJsonObject o = instructions->at(i).toObject();
        const auto cls = target(o.value(k::Class).toString(), where);
        if (!cls)
            return cls.error();
        const auto text = parseInstructions(o, sk::Instructions);
        if (!text)
            return at(where, text.error());
        (*cls)->instructions = text->value_or(QString());
        ++pending->instructions;
    }
    const auto icons = arrayOf(given, cat::CustomClassIcons);
    if (!icons)
        return icons.error();
    for (qsizetype i = 0; i < icons->size(); ++i) {
        const QString where = QStringLiteral("categories.custom-class-icons[%1]").arg(i);
        QJsonObject o = icons->at(i).toObject();
        const auto cls = target(o.take(k::Class).toString(), where);
        if (!cls)
            return cls.error();
        if (Status e = ClassCatalog::parseIcon(o, **cls))
            return at(where, *e);
        ++pending->icons;
    }
    for (const QString &slug : std::as_const(order))
        pending->classes.append(bySlug.value(slug));
    return std::shared_ptr<PendingImport>(pending);
}

} // namespace flotilla
