#include "organization/AreaStore.h"

#include "domain/AgentValidation.h"
#include "domain/DisplayText.h"
#include "organization/OrgLogging.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "storage/Database.h"
#include "storage/Transaction.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace ok = wire::org::key;
namespace sk = wire::shaping::key;
namespace c = wire::code;

namespace {
QJsonValue nullable(const QString &s) {
    return s.isEmpty() ? QJsonValue() : QJsonValue(s);
}

Error unknownArea(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no area with id '%1'").arg(id));
}
} // namespace

QJsonObject Area::toJson() const {
    return QJsonObject{{k::Id, id},
                       {k::Name_, name},
                       {ok::Color, nullable(color)},
                       {sk::Instructions, instructions},
                       {k::CreatedAt, createdAt}};
}

bool Area::fromJson(const QJsonObject &json, Area *out) {
    Area a;
    a.id = json.value(k::Id).toString();
    a.name = json.value(k::Name_).toString();
    a.color = json.value(ok::Color).toString();
    a.instructions = json.value(sk::Instructions).toString();
    a.createdAt = json.value(k::CreatedAt).toInteger();
    if (a.id.isEmpty() || a.name.isEmpty())
        return false;
    *out = a;
    return true;
}

namespace {
// The rules of each field, for create and PATCH alike.
Result<QString> parseName(const QJsonValue &value) {
    if (!value.isString())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'name' must be a string"));
    const QString name = value.toString().trimmed();
    if (name.isEmpty())
        return Error::invalid(c::InvalidValue, QStringLiteral("field 'name' must not be empty"));
    if (Status e = validateNameText(k::Name_, name))
        return *e;
    if (name.size() > AreaStore::kNameMax)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'name' is longer than %1 characters").arg(AreaStore::kNameMax));
    return name;
}

Result<QString> parseColor(const QJsonValue &color) {
    if (color.isUndefined() || color.isNull())
        return QString();
    if (!color.isString())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field 'color' must be a string or null"));
    static const QRegularExpression colorRe(QStringLiteral("^#[0-9A-Fa-f]{6}$"));
    if (!colorRe.match(color.toString()).hasMatch())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'color' must look like #rrggbb, got '%1'")
                                  .arg(color.toString().left(40)));
    return color.toString().toLower();
}

Status rejectUnknownAreaFields(const QJsonObject &body) {
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (it.key() != k::Name_ && it.key() != ok::Color && it.key() != sk::Instructions)
            return Error::invalid(
                c::UnknownField,
                QStringLiteral("unknown field '%1'; allowed: name, color, instructions")
                    .arg(it.key()));
    }
    return std::nullopt;
}
} // namespace

Result<AreaDraft> parseAreaDraft(const QJsonObject &body) {
    if (Status e = rejectUnknownAreaFields(body))
        return *e;
    if (!body.contains(k::Name_))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'name' is required"));
    AreaDraft d;
    const auto name = parseName(body.value(k::Name_));
    if (!name)
        return name.error();
    d.name = *name;
    const auto color = parseColor(body.value(ok::Color));
    if (!color)
        return color.error();
    d.color = *color;
    const auto instructions = parseInstructions(body, sk::Instructions);
    if (!instructions)
        return instructions.error();
    d.instructions = instructions->value_or(QString());
    return d;
}

Result<AreaPatch> parseAreaPatch(const QJsonObject &body) {
    if (Status e = rejectUnknownAreaFields(body))
        return *e;
    AreaPatch p;
    if (body.contains(k::Name_)) {
        const auto name = parseName(body.value(k::Name_));
        if (!name)
            return name.error();
        p.name = *name;
    }
    if (body.contains(ok::Color)) {
        const auto color = parseColor(body.value(ok::Color));
        if (!color)
            return color.error();
        p.color = *color;
    }
    const auto instructions = parseInstructions(body, sk::Instructions);
    if (!instructions)
        return instructions.error();
    p.instructions = *instructions;
    return p;
}

AreaStore::AreaStore(Database &db, Clock clock, QObject *parent)
    : QObject(parent)
    , m_db(db)
    , m_clock(std::move(clock)) {
}

AreaStore::~AreaStore() = default;

Status AreaStore::load() {
    QList<Area> loaded;
    int unreadable = 0;
    Status e = m_db.query(
        QStringLiteral("SELECT data FROM areas ORDER BY rowid"), {}, [&](const QVariantList &row) {
            Area a;
            if (Area::fromJson(QJsonDocument::fromJson(row.value(0).toByteArray()).object(), &a))
                loaded.append(a);
            else
                ++unreadable;
        });
    if (e)
        return e;
    if (unreadable > 0)
        qCCritical(lcOrg) << unreadable
                          << "stored area record(s) could not be read and were skipped";
    for (const Area &a : std::as_const(loaded)) {
        m_areas.insert(a.id, a);
        m_order.append(a.id);
        m_idByFoldedName.insert(a.name.toCaseFolded(), a.id);
    }
    qCInfo(lcOrg) << "loaded" << m_order.size() << "area(s)";
    return std::nullopt;
}

QList<Area> AreaStore::areas() const {
    QList<Area> list;
    list.reserve(m_order.size());
    for (const QString &id : m_order)
        list.append(m_areas.value(id));
    return list;
}

const Area *AreaStore::find(const QString &id) const {
    auto it = m_areas.constFind(id);
    return it == m_areas.constEnd() ? nullptr : &*it;
}

QStringList AreaStore::nameConflicts(const QList<AreaDraft> &drafts) const {
    QStringList conflicts;
    QSet<QString> seen;
    for (const AreaDraft &d : drafts) {
        const QString folded = d.name.toCaseFolded();
        if (m_idByFoldedName.contains(folded) || seen.contains(folded))
            conflicts.append(d.name);
        seen.insert(folded);
    }
    return conflicts;
}

Result<Area> AreaStore::create(const AreaDraft &draft) {
    auto created = createAll({draft});
    if (!created)
        return created.error();
    return created->first();
}

Result<QList<Area>> AreaStore::createAll(const QList<AreaDraft> &drafts) {
    if (const QStringList taken = nameConflicts(drafts); !taken.isEmpty())
        return Error::conflict(c::Conflict, QStringLiteral("an area named '%1' already exists")
                                                .arg(taken.join(QStringLiteral("', '"))));
    if (count() + drafts.size() > kMaxAreas)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("at most %1 areas may exist").arg(kMaxAreas));
    QList<Area> created;
    const qint64 now = m_clock.nowMs();
    for (const AreaDraft &d : drafts) {
        Area a;
        a.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        a.name = d.name;
        a.color = d.color;
        a.instructions = d.instructions;
        a.createdAt = now;
        created.append(a);
    }
    if (Status e = insertRows(created))
        return *e;
    for (const Area &a : std::as_const(created)) {
        m_areas.insert(a.id, a);
        m_order.append(a.id);
        m_idByFoldedName.insert(a.name.toCaseFolded(), a.id);
        qCInfo(lcOrg).noquote() << "created area" << a.id << a.name;
    }
    for (const Area &a : std::as_const(created))
        Q_EMIT areaCreated(a);
    return created;
}

Status AreaStore::insertRows(const QList<Area> &areas) {
    if (areas.isEmpty())
        return std::nullopt;
    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    for (const Area &a : areas) {
        if (Status e = m_db.exec(QStringLiteral("INSERT INTO areas (id, data) VALUES (?, ?)"),
                                 {a.id, QJsonDocument(a.toJson()).toJson(QJsonDocument::Compact)}))
            return e;
    }
    if (!tx.commit())
        return m_db.commitError(QStringLiteral("cannot commit area write"));
    return std::nullopt;
}

Result<Area> AreaStore::update(const QString &id, const AreaPatch &patch) {
    const Area *existing = find(id);
    if (!existing)
        return unknownArea(id);
    Area a = *existing;
    if (patch.name) {
        const QString owner = m_idByFoldedName.value(patch.name->toCaseFolded());
        if (!owner.isEmpty() && owner != id)
            return Error::conflict(
                c::Conflict, QStringLiteral("an area named '%1' already exists").arg(*patch.name));
        a.name = *patch.name;
    }
    if (patch.color)
        a.color = *patch.color;
    if (patch.instructions)
        a.instructions = *patch.instructions;
    if (Status e = m_db.exec(QStringLiteral("UPDATE areas SET data = ? WHERE id = ?"),
                             {QJsonDocument(a.toJson()).toJson(QJsonDocument::Compact), a.id}))
        return *e;
    m_idByFoldedName.remove(existing->name.toCaseFolded());
    m_idByFoldedName.insert(a.name.toCaseFolded(), a.id);
    m_areas.insert(a.id, a);
    qCInfo(lcOrg).noquote() << "updated area" << a.id << a.name;
    Q_EMIT areaUpdated(a);
    return a;
}

Status AreaStore::remove(const QString &id) {
    if (!find(id))
        return unknownArea(id);
    return removeAll({id});
}

Status AreaStore::removeAll(const QStringList &ids) {
    QList<Area> victims;
    for (const QString &id : ids) {
        if (const Area *a = find(id))
            victims.append(*a);
    }
    if (victims.isEmpty())
        return std::nullopt;
    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    for (const Area &a : std::as_const(victims)) {
        if (Status e = m_db.exec(QStringLiteral("DELETE FROM areas WHERE id = ?"), {a.id}))
            return e;
    }
    if (!tx.commit())
        return m_db.commitError(QStringLiteral("cannot commit area delete"));
    for (const Area &a : std::as_const(victims)) {
        forget(a.id);
        qCInfo(lcOrg).noquote() << "deleted area" << a.id << a.name;
    }
    for (const Area &a : std::as_const(victims))
        Q_EMIT areaDeleted(a);
    return std::nullopt;
}

void AreaStore::forget(const QString &id) {
    const Area a = m_areas.take(id);
    m_order.removeOne(id);
    m_idByFoldedName.remove(a.name.toCaseFolded());
}

} // namespace flotilla
