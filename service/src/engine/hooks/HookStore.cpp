#include "hooks/HookStore.h"

#include "domain/AgentRegistry.h"
#include "domain/AgentValidation.h"
#include "domain/DisplayText.h"
#include "hooks/HooksLogging.h"
#include "protocol/NotifyNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "storage/Database.h"
#include "storage/Transaction.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QUuid>

#include <cmath>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace he = wire::shaping::hookevent;
namespace ne = wire::notify::event;

namespace {

const QString kKind = QStringLiteral("hooks");

QString joined(const QList<QLatin1String> &names) {
    QStringList out;
    for (QLatin1String n : names)
        out.append(n);
    return out.join(QStringLiteral(", "));
}

Error wrongType(const QString &field, const char *what) {
    return Error::badRequest(
        c::WrongType, QStringLiteral("field '%1' must be %2").arg(field, QLatin1String(what)));
}

Error badValue(const QString &field, const QString &why) {
    return Error::invalid(c::InvalidValue, QStringLiteral("field '%1' %2").arg(field, why));
}

Status rejectUnknown(const QJsonObject &o, const QList<QLatin1String> &allowed,
                     const QString &prefix) {
    QStringList unknown;
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            unknown.append(prefix + it.key().left(60));
    }
    if (unknown.isEmpty())
        return std::nullopt;
    return Error::invalid(c::UnknownField,
                          QStringLiteral("unknown or read-only field(s): %1; "
                                         "allowed: %2")
                              .arg(unknown.join(QStringLiteral(", ")), prefix + joined(allowed)));
}

Result<QString> parseName(const QJsonValue &v) {
    if (!v.isString())
        return wrongType(k::Name_, "a string");
    const QString name = v.toString();
    if (name.trimmed().isEmpty())
        return badValue(k::Name_, QStringLiteral("must not be empty"));
    if (name.size() > HookStore::kNameMax)
        return badValue(k::Name_,
                        QStringLiteral("is longer than %1 characters").arg(HookStore::kNameMax));
    if (Status e = validateNameText(k::Name_, name))
        return *e;
    return name;
}

Result<QString> parseEvent(const QJsonValue &v) {
    if (!v.isString())
        return wrongType(sk::Event, "a string");
    const QString event = v.toString();
    if (!HookStore::events().contains(event))
        return badValue(sk::Event, QStringLiteral("must be one of %1, got '%2'")
                                       .arg(joined(HookStore::events()), event.left(60)));
    return event;
}

// {agentId?, class?, areaId?}: every key given must match the event's agent. null or {}: none.
Result<QJsonObject> parseFilter(const QJsonValue &v, const AgentRegistry &agents) {
    if (v.isNull())
        return QJsonObject();
    if (!v.isObject())
        return wrongType(sk::Filter, "an object or null");
    const QJsonObject in = v.toObject();
    if (Status e = rejectUnknown(in, {k::AgentId, k::Class, k::AreaId}, QStringLiteral("filter.")))
        return *e;
    QJsonObject out;
    for (auto it = in.constBegin(); it != in.constEnd(); ++it) {
        const QString field = QStringLiteral("filter.") + it.key();
        if (it->isNull())
            continue; // as if absent
        if (!it->isString())
            return wrongType(field, "a string or null");
        const QString text = it->toString();
        if (text.isEmpty() || text.size() > HookStore::kMaxFilterText)
            return badValue(
                field, QStringLiteral("must be 1 to %1 characters").arg(HookStore::kMaxFilterText));
        if (it.key() == k::AgentId && !agents.find(text))
            return badValue(field, QStringLiteral("names no agent ('%1')").arg(text.left(60)));
        if (it.key() == k::Class && !isSlug(text))
            return badValue(
                field,
                QStringLiteral("must match [a-z][a-z0-9-]{0,39}, got '%1'").arg(text.left(60)));
        out.insert(it.key(), text);
    }
    return out;
}

// A non-empty argv of strings, run without a shell. argv[0] is an absolute path or a bare name
// looked up in PATH when the hook runs; a relative path with a slash would depend on the cwd.
Result<QJsonArray> parseCommand(const QJsonValue &v) {
    if (!v.isArray())
        return wrongType(sk::Command, "an array of strings (argv)");
    const QJsonArray argv = v.toArray();
    if (argv.isEmpty())
        return badValue(sk::Command, QStringLiteral("must hold at least the program"));
    if (argv.size() > HookStore::kMaxArgs)
        return badValue(sk::Command,
                        QStringLiteral("holds more than %1 elements").arg(HookStore::kMaxArgs));
    qsizetype bytes = 0;
    for (const QJsonValue &arg : argv) {
        if (!arg.isString())
            return wrongType(sk::Command, "an array of strings (argv)");
        const QString text = arg.toString();
        if (text.contains(QChar(0)))
            return badValue(sk::Command, QStringLiteral("must not contain NUL characters"));
        bytes += text.toUtf8().size();
    }
    if (bytes > HookStore::kMaxCommandBytes)
        return badValue(sk::Command,
                        QStringLiteral("is longer than %1 bytes").arg(HookStore::kMaxCommandBytes));
    const QString program = argv.first().toString();
    if (program.isEmpty())
        return badValue(sk::Command, QStringLiteral("must name a program first"));
    if (!program.startsWith(QLatin1Char('/')) && program.contains(QLatin1Char('/')))
        return badValue(sk::Command,
                        QStringLiteral("must start with an absolute path or a name found in "
                                       "PATH, got '%1'")
                            .arg(program.left(100)));
    return argv;
}

// "agent", an absolute path of an existing directory, or null (the service's home directory).
Result<QJsonValue> parseCwd(const QJsonValue &v) {
    if (v.isNull())
        return QJsonValue();
    if (!v.isString())
        return wrongType(k::Cwd, "\"agent\", an absolute path or null");
    const QString text = v.toString();
    if (text == wire::shaping::hookcwd::Agent)
        return QJsonValue(text);
    if (!QDir::isAbsolutePath(text) || !QFileInfo(text).isDir())
        return badValue(k::Cwd, QStringLiteral("must be \"agent\" or the absolute path of an "
                                               "existing directory, got '%1'")
                                    .arg(text.left(200)));
    return QJsonValue(QDir::cleanPath(text));
}

Result<int> parseTimeout(const QJsonValue &v) {
    const double d = v.toDouble();
    if (!v.isDouble() || std::floor(d) != d)
        return wrongType(sk::TimeoutSeconds, "an integer");
    if (d < HookStore::kTimeoutMin || d > HookStore::kTimeoutMax)
        return badValue(sk::TimeoutSeconds, QStringLiteral("must be %1 to %2")
                                                .arg(HookStore::kTimeoutMin)
                                                .arg(HookStore::kTimeoutMax));
    return int(d);
}

} // namespace

HookStore::HookStore(Database &db, const AgentRegistry &agents, Clock clock, QObject *parent)
    : QObject(parent)
    , m_db(db)
    , m_agents(agents)
    , m_clock(std::move(clock))
    , m_catalog(db, kKind) {
    connect(&m_catalog, &CatalogStore::stored, this,
            [this](const QString &, const QJsonObject &hook, bool created) {
                Q_EMIT hookStored(withLastRun(hook), created);
            });
    connect(&m_catalog, &CatalogStore::removed, this, &HookStore::onRemoved);
}

HookStore::~HookStore() = default;

const QList<QLatin1String> &HookStore::events() {
    static const QList<QLatin1String> list{
        ne::AgentNotification, ne::PermissionRequest, ne::AgentFinished,
        ne::AgentError,        he::TurnFinished,      he::AgentCreated,
        he::ExecFinished,      he::BudgetExceeded,    he::WorktreeMerged};
    return list;
}

Status HookStore::load() {
    m_lastRun.clear();
    if (Status e = m_catalog.load())
        return e;
    // A hook removed while its runs could not be deleted (a full disk) leaves them behind.
    if (Status e = m_db.exec(QStringLiteral("DELETE FROM hook_runs WHERE hook_id NOT IN "
                                            "(SELECT key FROM catalog WHERE kind = ?)"),
                             {kKind}))
        qCWarning(lcHooks).noquote() << "runs of removed hooks not deleted:" << e->message;
    return m_db.query(QStringLiteral("SELECT hook_id, data FROM hook_runs WHERE seq IN "
                                     "(SELECT MAX(seq) FROM hook_runs GROUP BY hook_id)"),
                      {}, [this](const QVariantList &row) {
                          const QJsonObject run =
                              QJsonDocument::fromJson(row.value(1).toByteArray()).object();
                          if (!run.isEmpty())
                              m_lastRun.insert(row.value(0).toString(), run);
                      });
}

QJsonObject HookStore::withLastRun(const QJsonObject &stored) const {
    QJsonObject hook = stored;
    const auto run = m_lastRun.constFind(stored.value(k::Id).toString());
    hook.insert(sk::LastRun, run == m_lastRun.constEnd() ? QJsonValue() : QJsonValue(*run));
    return hook;
}

Error HookStore::unknown(const QString &id) const {
    return Error::notFound(c::NotFound, QStringLiteral("no hook with id '%1'").arg(id.left(60)));
}

QJsonArray HookStore::list() const {
    QJsonArray out;
    for (const QJsonObject &hook : m_catalog.items())
        out.append(withLastRun(hook));
    return out;
}

Result<QJsonObject> HookStore::get(const QString &id) const {
    const QJsonObject *hook = m_catalog.find(id);
    if (!hook)
        return unknown(id);
    return withLastRun(*hook);
}

QList<QJsonObject> HookStore::hooksFor(QLatin1String event) const {
    QList<QJsonObject> out;
    for (const QJsonObject &hook : m_catalog.items()) {
        if (hook.value(sk::Enabled).toBool() && hook.value(sk::Event).toString() == event)
            out.append(hook);
    }
    return out;
}

Result<QJsonObject> HookStore::parse(const QJsonObject &body, const QJsonObject *existing) const {
    if (Status e = rejectUnknown(
            body,
            {k::Name_, sk::Event, sk::Filter, sk::Command, k::Cwd, sk::TimeoutSeconds, sk::Enabled},
            QString()))
        return *e;
    if (!existing) {
        for (QLatin1String required : {k::Name_, sk::Event, sk::Command}) {
            if (!body.contains(required))
                return Error::badRequest(c::MissingField,
                                         QStringLiteral("field '%1' is required").arg(required));
        }
    }
    QJsonObject out = existing ? *existing
                               : QJsonObject{{sk::Filter, QJsonObject()},
                                             {k::Cwd, QJsonValue()},
                                             {sk::TimeoutSeconds, kTimeoutDefault},
                                             {sk::Enabled, true}};
    if (body.contains(k::Name_)) {
        const auto name = parseName(body.value(k::Name_));
        if (!name)
            return name.error();
        out.insert(k::Name_, *name);
    }
    if (body.contains(sk::Event)) {
        const auto event = parseEvent(body.value(sk::Event));
        if (!event)
            return event.error();
        out.insert(sk::Event, *event);
    }
    if (body.contains(sk::Filter)) {
        const auto filter = parseFilter(body.value(sk::Filter), m_agents);
        if (!filter)
            return filter.error();
        out.insert(sk::Filter, *filter);
    }
    if (body.contains(sk::Command)) {
        const auto command = parseCommand(body.value(sk::Command));
        if (!command)
            return command.error();
        out.insert(sk::Command, *command);
    }
    if (body.contains(k::Cwd)) {
        const auto cwd = parseCwd(body.value(k::Cwd));
        if (!cwd)
            return cwd.error();
        out.insert(k::Cwd, *cwd);
    }
    if (body.contains(sk::TimeoutSeconds)) {
        const auto timeout = parseTimeout(body.value(sk::TimeoutSeconds));
        if (!timeout)
            return timeout.error();
        out.insert(sk::TimeoutSeconds, *timeout);
    }
    if (body.contains(sk::Enabled)) {
        if (!body.value(sk::Enabled).isBool())
            return wrongType(sk::Enabled, "a boolean");
        out.insert(sk::Enabled, body.value(sk::Enabled).toBool());
    }
    return out;
}

Result<QJsonObject> HookStore::create(const QJsonObject &body) {
    const auto parsed = parse(body, nullptr);
    if (!parsed)
        return parsed.error();
    QJsonObject hook = *parsed;
    const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const qint64 now = m_clock.nowMs();
    hook.insert(k::Id, id);
    hook.insert(k::CreatedAt, now);
    hook.insert(k::UpdatedAt, now);
    if (Status e = m_catalog.put(id, hook))
        return *e;
    qCInfo(lcHooks).noquote() << "hook" << id << "created for" << hook.value(sk::Event).toString();
    return withLastRun(hook);
}

Result<QJsonObject> HookStore::update(const QString &id, const QJsonObject &body) {
    const QJsonObject *existing = m_catalog.find(id);
    if (!existing)
        return unknown(id);
    const auto parsed = parse(body, existing);
    if (!parsed)
        return parsed.error();
    QJsonObject hook = *parsed;
    hook.insert(k::UpdatedAt, m_clock.nowMs());
    if (Status e = m_catalog.put(id, hook))
        return *e;
    return withLastRun(hook);
}

Status HookStore::remove(const QString &id) {
    if (!m_catalog.find(id))
        return unknown(id);
    return m_catalog.remove(id);
}

void HookStore::onRemoved(const QString &id, const QJsonObject &hook) {
    m_lastRun.remove(id);
    // The hook is gone whatever happens here; runs left behind are deleted at the next load().
    if (Status e = m_db.exec(QStringLiteral("DELETE FROM hook_runs WHERE hook_id = ?"), {id}))
        qCWarning(lcHooks).noquote()
            << "runs of removed hook" << id << "not deleted:" << e->message;
    qCInfo(lcHooks).noquote() << "hook" << id << "removed";
    Q_EMIT hookRemoved(id, hook.value(k::Name_).toString());
}

Result<QJsonArray> HookStore::runs(const QString &id) const {
    if (!m_catalog.find(id))
        return unknown(id);
    QJsonArray out;
    if (Status e =
            m_db.query(QStringLiteral("SELECT data FROM hook_runs WHERE hook_id = ? "
                                      "ORDER BY seq DESC LIMIT ?"),
                       {id, kMaxRuns}, [&out](const QVariantList &row) {
                           out.append(QJsonDocument::fromJson(row.value(0).toByteArray()).object());
                       }))
        return *e;
    return out;
}

Status HookStore::recordRun(const QJsonObject &run) {
    const QString hookId = run.value(sk::HookId).toString();
    if (!m_catalog.find(hookId))
        return unknown(hookId);
    {
        Transaction tx(m_db);
        if (!tx.isOpen())
            return Transaction::beginError();
        if (Status e =
                m_db.exec(QStringLiteral("INSERT INTO hook_runs (hook_id, data) VALUES (?, ?)"),
                          {hookId, QJsonDocument(run).toJson(QJsonDocument::Compact)}))
            return e;
        if (Status e = m_db.exec(QStringLiteral("DELETE FROM hook_runs WHERE hook_id = ? AND seq "
                                                "NOT IN (SELECT seq FROM hook_runs WHERE "
                                                "hook_id = ? ORDER BY seq DESC LIMIT ?)"),
                                 {hookId, hookId, kMaxRuns}))
            return e;
        if (!tx.commit())
            return m_db.commitError(QStringLiteral("cannot store the hook's run"));
    }
    m_lastRun.insert(hookId, run);
    return {};
}

int HookStore::runCount(const QString &id) const {
    int count = 0;
    if (Status e =
            m_db.query(QStringLiteral("SELECT COUNT(*) FROM hook_runs WHERE hook_id = ?"), {id},
                       [&count](const QVariantList &row) { count = row.value(0).toInt(); }))
        return -1;
    return count;
}

} // namespace flotilla
