#include "domain/AgentValidation.h"

#include "domain/BudgetValidation.h"
#include "domain/DisplayText.h"
#include "domain/SandboxValidation.h"
#include "protocol/HostNames.h"
#include "protocol/PermissionNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringList>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace perm = wire::permission;
namespace wk = wire::worktree::key;
namespace uk = wire::usage::key;
namespace sk = wire::shaping::key;

namespace {

Error unknownProvider(const QString &provider, const ProviderCatalog &providers) {
    return Error::invalid(
        c::InvalidValue,
        QStringLiteral("field 'provider' must be one of %1, got '%2'")
            .arg(providers.providerNames().join(QStringLiteral(", ")), provider.left(60)));
}

const QStringList &trackingStatuses() {
    static const QStringList list{QStringLiteral("thinking"),
                                  QStringLiteral("working"),
                                  QStringLiteral("waiting-subordinates"),
                                  QStringLiteral("need-review"),
                                  QStringLiteral("blocked"),
                                  QStringLiteral("can-clear-context")};
    return list;
}

Status rejectUnknownFields(const QJsonObject &body, const QStringList &allowed) {
    QStringList unknown;
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            unknown.append(it.key());
    }
    if (unknown.isEmpty())
        return std::nullopt;
    return Error::invalid(
        c::UnknownField,
        QStringLiteral("unknown or read-only field(s): %1; allowed: %2")
            .arg(unknown.join(QStringLiteral(", ")), allowed.join(QStringLiteral(", "))));
}

// Reads an optional string field: absent -> nullopt without error; present but not a string
// (and not null when nullable) -> 400.
Result<std::optional<QString>> optionalString(const QJsonObject &body, QLatin1String key,
                                              bool nullable) {
    const QJsonValue v = body.value(key);
    if (v.isUndefined())
        return std::optional<QString>();
    if (v.isNull() && nullable)
        return std::optional<QString>(QString());
    if (!v.isString()) {
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1' must be a string%2")
                                     .arg(key, nullable ? QStringLiteral(" or null") : QString()));
    }
    return std::optional<QString>(v.toString());
}

// `worktree`: absent, null or false -> none; true -> defaults; {baseRef?, branch?} -> those. Only
// the shape is checked here; whether git can honour it is the worktree service's question.
Result<std::optional<WorktreeRequest>> parseWorktreeRequest(const QJsonObject &body) {
    const QJsonValue v = body.value(wk::Worktree);
    if (v.isUndefined() || v.isNull() || (v.isBool() && !v.toBool()))
        return std::optional<WorktreeRequest>();
    if (v.isBool())
        return std::optional<WorktreeRequest>(WorktreeRequest{});
    if (!v.isObject())
        return Error::badRequest(
            c::WrongType,
            QStringLiteral("field 'worktree' must be true, false or {baseRef?, branch?}"));
    const QJsonObject o = v.toObject();
    if (Status st = rejectUnknownFields(o, {wk::BaseRef, wk::Branch}))
        return Error::invalid(st->code, QStringLiteral("worktree: ") + st->message);
    WorktreeRequest request;
    for (QLatin1String key : {wk::BaseRef, wk::Branch}) {
        auto value = optionalString(o, key, true);
        if (!value)
            return Error::badRequest(
                c::WrongType, QStringLiteral("field 'worktree.%1' must be a string").arg(key));
        const QString text = value->value_or(QString()).trimmed();
        // A leading '-' would read as an option to git, whatever argument list carries it.
        if (text.size() > limits::kRefMax || text.startsWith(QLatin1Char('-')))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field 'worktree.%1' must be at most %2 "
                                                 "characters and not start with '-'")
                                      .arg(key)
                                      .arg(limits::kRefMax));
        (key == wk::BaseRef ? request.baseRef : request.branch) = text;
    }
    return std::optional<WorktreeRequest>(request);
}

} // namespace

Status validateProviderModel(const QString &provider, const QString &model,
                             const ProviderCatalog &providers) {
    if (!providers.providerNames().contains(provider))
        return unknownProvider(provider, providers);
    static const QRegularExpression modelRe(
        QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._:\\[\\]-]{0,99}$"));
    if (!modelRe.match(model).hasMatch()) {
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'model' must be 1-100 characters of [A-Za-z0-9._:[]-], got '%1'")
                .arg(model.left(60)));
    }
    return std::nullopt;
}

Result<AgentDraft> parseAgentDraft(const QJsonObject &body, const ProviderCatalog &providers) {
    if (Status st = rejectUnknownFields(
            body, {k::Name_, k::Class, k::Cwd, k::Provider, k::Model, k::PermissionMode,
                   uk::IdleTimeoutSeconds, uk::Budget, wk::Worktree, sk::CustomInstructions,
                   sk::Skills, wire::sandbox::key::Sandbox, wire::host::key::Host}))
        return *st;
    AgentDraft d;
    auto host = optionalString(body, wire::host::key::Host, true);
    if (!host)
        return host.error();
    d.host = host->value_or(QString());
    if (d.host == wire::host::Local)
        d.host.clear();

    for (QLatin1String required : {k::Name_, k::Cwd}) {
        if (!body.contains(required))
            return Error::badRequest(c::MissingField,
                                     QStringLiteral("field '%1' is required").arg(required));
    }
    auto name = optionalString(body, k::Name_, false);
    if (!name)
        return name.error();
    d.name = name->value_or(QString()).trimmed();
    if (d.name.isEmpty())
        return Error::invalid(c::InvalidValue, QStringLiteral("field 'name' must not be empty"));
    if (Status e = validateNameText(k::Name_, d.name))
        return *e;
    if (d.name.size() > limits::kNameMax)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'name' is longer than %1 characters").arg(limits::kNameMax));

    auto cls = optionalString(body, k::Class, false);
    if (!cls)
        return cls.error();
    d.agentClass = cls->value_or(QStringLiteral("builder"));
    if (!isSlug(d.agentClass)) {
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'class' must match [a-z][a-z0-9-]{0,39}, got '%1'")
                .arg(d.agentClass.left(60)));
    }

    auto mode = optionalString(body, k::PermissionMode, false);
    if (!mode)
        return mode.error();
    d.permissionMode = mode->value_or(QString(perm::mode::Ask));
    if (d.permissionMode != perm::mode::Ask && d.permissionMode != perm::mode::Auto) {
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'permissionMode' must be 'ask' or 'auto', got '%1'")
                .arg(d.permissionMode.left(60)));
    }

    auto provider = optionalString(body, k::Provider, false);
    if (!provider)
        return provider.error();
    d.provider = provider->value_or(providers.defaultProvider());
    if (!providers.providerNames().contains(d.provider))
        return unknownProvider(d.provider, providers);

    auto model = optionalString(body, k::Model, false);
    if (!model)
        return model.error();
    d.model = model->value_or(providers.defaultModel(d.provider));
    static const QRegularExpression modelRe(
        QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._:\\[\\]-]{0,99}$"));
    if (!modelRe.match(d.model).hasMatch()) {
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'model' must be 1-100 characters of [A-Za-z0-9._:[]-], got '%1'")
                .arg(d.model.left(60)));
    }

    auto cwd = optionalString(body, k::Cwd, false);
    if (!cwd)
        return cwd.error();
    const QString rawCwd = cwd->value_or(QString());
    if (!QDir::isAbsolutePath(rawCwd))
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'cwd' must be an absolute path, got '%1'").arg(rawCwd.left(200)));
    if (!d.host.isEmpty()) {
        d.cwd = QDir::cleanPath(rawCwd); // another machine's directory: it is checked there
    } else if (const QFileInfo info(rawCwd); !info.isDir()) {
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'cwd' is not an existing directory: %1").arg(rawCwd.left(200)));
    } else {
        // The CLI sees the resolved path (getcwd), and its session files are keyed by it.
        d.cwd = info.canonicalFilePath();
    }

    const auto idle = parseIdleTimeout(body);
    if (!idle)
        return idle.error();
    d.idleTimeoutSeconds = idle->value_or(-1);
    const auto budget = parseBudget(body);
    if (!budget)
        return budget.error();
    d.budget = budget->value_or(Budget());

    auto worktree = parseWorktreeRequest(body);
    if (!worktree)
        return worktree.error();
    d.worktree = *worktree;

    const auto instructions = parseInstructions(body, sk::CustomInstructions);
    if (!instructions)
        return instructions.error();
    d.customInstructions = instructions->value_or(QString());
    const auto skills = parseSlugList(body, sk::Skills);
    if (!skills)
        return skills.error();
    d.skills = skills->value_or(QStringList());
    auto sandbox = parseSandbox(body);
    if (!sandbox)
        return sandbox.error();
    d.sandbox = *sandbox;
    return d;
}

Result<AgentPatch> parseAgentPatch(const QJsonObject &body) {
    if (Status st = rejectUnknownFields(
            body, {k::TaskLabel, k::TrackingStatus, k::TrackingStatusDetail, uk::IdleTimeoutSeconds,
                   uk::Budget, sk::CustomInstructions, sk::Skills, wire::sandbox::key::Sandbox}))
        return *st;
    AgentPatch p;
    auto label = optionalString(body, k::TaskLabel, true);
    if (!label)
        return label.error();
    if (*label && label->value().size() > limits::kTaskLabelMax)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'taskLabel' is longer than %1 characters")
                                  .arg(limits::kTaskLabelMax));
    p.taskLabel = *label;

    auto tracking = optionalString(body, k::TrackingStatus, true);
    if (!tracking)
        return tracking.error();
    if (*tracking && !tracking->value().isEmpty() &&
        !trackingStatuses().contains(tracking->value())) {
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'trackingStatus' must be one of %1 or null, got '%2'")
                .arg(trackingStatuses().join(QStringLiteral(", ")), tracking->value().left(60)));
    }
    p.trackingStatus = *tracking;

    auto detail = optionalString(body, k::TrackingStatusDetail, true);
    if (!detail)
        return detail.error();
    if (*detail && detail->value().size() > limits::kDetailMax)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'trackingStatusDetail' is longer than %1 characters")
                .arg(limits::kDetailMax));
    p.trackingStatusDetail = *detail;

    const auto idle = parseIdleTimeout(body);
    if (!idle)
        return idle.error();
    p.idleTimeoutSeconds = *idle;
    const auto budget = parseBudget(body);
    if (!budget)
        return budget.error();
    p.budget = *budget;
    const auto instructions = parseInstructions(body, sk::CustomInstructions);
    if (!instructions)
        return instructions.error();
    p.customInstructions = *instructions;
    const auto skills = parseSlugList(body, sk::Skills);
    if (!skills)
        return skills.error();
    p.skills = *skills;
    auto sandbox = parseSandbox(body);
    if (!sandbox)
        return sandbox.error();
    p.sandbox = *sandbox;
    return p;
}

bool isSlug(const QString &text) {
    static const QRegularExpression slugRe(QStringLiteral("^[a-z][a-z0-9-]{0,39}$"));
    return slugRe.match(text).hasMatch();
}

Result<std::optional<QString>> parseInstructions(const QJsonObject &body, QLatin1String key) {
    auto text = optionalString(body, key, true);
    if (!text)
        return text.error();
    if (*text && text->value().toUtf8().size() > limits::kInstructionsMaxBytes)
        return Error::invalid(c::InvalidValue, QStringLiteral("field '%1' is longer than %2 bytes")
                                                   .arg(key)
                                                   .arg(limits::kInstructionsMaxBytes));
    return *text;
}

Result<std::optional<QStringList>> parseSlugList(const QJsonObject &body, QLatin1String key) {
    if (!body.contains(key))
        return std::optional<QStringList>();
    const QJsonValue value = body.value(key);
    if (value.isNull())
        return std::optional<QStringList>(QStringList());
    if (!value.isArray())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1' must be an array of slugs").arg(key));
    const QJsonArray items = value.toArray();
    if (items.size() > limits::kSkillsMax)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field '%1' has more than %2 items").arg(key).arg(limits::kSkillsMax));
    QStringList out;
    for (const QJsonValue &item : items) {
        if (!item.isString())
            return Error::badRequest(
                c::WrongType, QStringLiteral("field '%1' must be an array of strings").arg(key));
        const QString slug = item.toString();
        if (!isSlug(slug))
            return Error::invalid(
                c::InvalidValue,
                QStringLiteral("field '%1' holds '%2', which does not match [a-z][a-z0-9-]{0,39}")
                    .arg(key, slug.left(60)));
        if (out.contains(slug))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field '%1' names '%2' twice").arg(key, slug));
        out.append(slug);
    }
    return std::optional<QStringList>(out);
}

} // namespace flotilla
