#include "permissions/RuleMatcher.h"

#include "protocol/PermissionNames.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace pk = wire::permission::key;
namespace dec = wire::permission::decision;
namespace rem = wire::permission::remember;

namespace {
constexpr qsizetype kMaxTool = 100;
constexpr qsizetype kMaxPattern = 4096;

QString str(const QJsonObject &o, QLatin1String key) {
    return o.value(key).toString();
}

// --- Paths -------------------------------------------------------------------------------------

// `path` absolute (relative ones against `base`), symlinks resolved as far as the path exists;
// empty when it cannot be normalised (a "." or ".." below a part that does not exist yet, whose
// meaning depends on links not made yet).
QString normalisedPath(const QString &path, const QString &base) {
    if (path.isEmpty())
        return {};
    const QString absolute = QDir::isAbsolutePath(path) ? path : base + QLatin1Char('/') + path;
    QStringList parts = absolute.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QStringList missing;
    while (true) {
        const QString prefix = QLatin1Char('/') + parts.join(QLatin1Char('/'));
        const QFileInfo fi(prefix);
        if (fi.exists()) {
            QString canonical = fi.canonicalFilePath();
            if (canonical.isEmpty())
                return {};
            for (const QString &m : std::as_const(missing)) {
                if (m == QLatin1String(".") || m == QLatin1String(".."))
                    return {};
                canonical +=
                    (canonical.endsWith(QLatin1Char('/')) ? QString() : QStringLiteral("/")) + m;
            }
            return canonical;
        }
        if (parts.isEmpty())
            return {};
        missing.prepend(parts.takeLast());
    }
}

bool isUnder(const QString &path, const QString &prefix) {
    if (prefix == QLatin1String("/"))
        return path.startsWith(QLatin1Char('/'));
    return path == prefix || path.startsWith(prefix + QLatin1Char('/'));
}

// Every path a file-editing tool use names: Claude's file_path / notebook_path, Codex's changes.
QStringList editedPaths(const QJsonObject &input) {
    QStringList out;
    for (QLatin1String key : {QLatin1String("file_path"), QLatin1String("notebook_path")}) {
        if (input.value(key).isString())
            out << input.value(key).toString();
    }
    for (const QJsonValue &v : input.value(QLatin1String("changes")).toArray()) {
        const QJsonObject change = v.toObject();
        if (change.value(QLatin1String("path")).isString())
            out << str(change, QLatin1String("path"));
        if (change.value(QLatin1String("movePath")).isString())
            out << str(change, QLatin1String("movePath"));
    }
    return out;
}

bool coversPaths(const PermissionRule &rule, const RuleSubject &subject, const QJsonObject &input) {
    const QStringList paths = editedPaths(input);
    if (paths.isEmpty())
        return false;
    const QString cwd = normalisedPath(subject.cwd, QStringLiteral("/"));
    const QString prefix = rule.pattern.isEmpty() ? cwd : normalisedPath(rule.pattern, subject.cwd);
    if (prefix.isEmpty())
        return false;
    if (!rule.allow) { // a deny rule covers the use when any of its paths is under it
        return std::any_of(paths.cbegin(), paths.cend(), [&](const QString &p) {
            const QString n = normalisedPath(p, subject.cwd);
            return !n.isEmpty() && isUnder(n, prefix);
        });
    }
    // Inside the working directory only, unless the rule's own pattern is elsewhere.
    const bool ruleNamesOutside = !cwd.isEmpty() && !isUnder(prefix, cwd);
    return std::all_of(paths.cbegin(), paths.cend(), [&](const QString &p) {
        const QString n = normalisedPath(p, subject.cwd);
        return !n.isEmpty() && isUnder(n, prefix) && (ruleNamesOutside || isUnder(n, cwd));
    });
}

// --- Commands ----------------------------------------------------------------------------------

QString commandOf(const QJsonObject &input) {
    const QJsonValue v = input.value(QLatin1String("command"));
    if (v.isArray()) { // an argv, as some Codex versions send it
        QStringList words;
        for (const QJsonValue &w : v.toArray())
            words << w.toString();
        return words.join(QLatin1Char(' '));
    }
    return v.toString();
}

bool startsWithWords(const QStringList &words, const QStringList &prefix) {
    if (prefix.size() > words.size())
        return false;
    for (qsizetype i = 0; i < prefix.size(); ++i) {
        if (words.at(i) != prefix.at(i))
            return false;
    }
    return true;
}

const QRegularExpression &controlSplitter() {
    static const QRegularExpression re(QStringLiteral("\\|\\||&&|[;&|\\n\\r`<>()]|\\$\\("));
    return re;
}

bool coversCommand(const PermissionRule &rule, const QJsonObject &input) {
    const QString script = rules::unwrapShell(commandOf(input));
    const std::optional<QStringList> prefix = rules::shellWords(rule.pattern);
    if (!prefix)
        return false;
    if (rule.allow) {
        if (rules::hasShellControl(script))
            return false; // never allowed by a prefix rule
        const std::optional<QStringList> words = rules::shellWords(script);
        return words && !words->isEmpty() && startsWithWords(*words, *prefix);
    }
    // A deny rule covers the command when any of its parts starts with the prefix.
    const QStringList parts = script.split(controlSplitter(), Qt::SkipEmptyParts);
    return std::any_of(parts.cbegin(), parts.cend(), [&](const QString &part) {
        const std::optional<QStringList> words = rules::shellWords(part);
        const QStringList w = words ? *words : part.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        return !w.isEmpty() && startsWithWords(w, *prefix);
    });
}

// One shell word, quoted when it needs to be so that shellWords() reads it back as it was.
QString quoted(const QString &word) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./=:,+@%^-]+$"));
    if (plain.match(word).hasMatch())
        return word;
    QString w = word;
    return QLatin1Char('\'') + w.replace(QLatin1Char('\''), QStringLiteral("'\\''")) +
           QLatin1Char('\'');
}

bool scopeCovers(const PermissionRule &rule, const RuleSubject &subject) {
    if (!rule.scopeAgentId.isEmpty())
        return rule.scopeAgentId == subject.agentId;
    if (!rule.scopeCwd.isEmpty()) {
        const QString scope = normalisedPath(rule.scopeCwd, QStringLiteral("/"));
        const QString cwd = normalisedPath(subject.cwd, QStringLiteral("/"));
        return !scope.isEmpty() && !cwd.isEmpty() && isUnder(cwd, scope);
    }
    return true;
}

Error invalid(const QString &message) {
    return Error::invalid(c::InvalidValue, message);
}
} // namespace

// --- PermissionRule ----------------------------------------------------------------------------

QJsonObject PermissionRule::toJson() const {
    QJsonObject scope;
    if (!scopeAgentId.isEmpty())
        scope.insert(k::AgentId, scopeAgentId);
    if (!scopeCwd.isEmpty())
        scope.insert(k::Cwd, scopeCwd);
    return QJsonObject{{k::Id, id},
                       {pk::Tool, tool},
                       {pk::Pattern, pattern},
                       {pk::Scope, scope},
                       {pk::Decision, allow ? QString(dec::Allow) : QString(dec::Deny)},
                       {k::CreatedAt, createdAt},
                       {pk::Source, source}};
}

bool PermissionRule::fromJson(const QJsonObject &json, PermissionRule *out) {
    PermissionRule r;
    r.id = str(json, k::Id);
    r.tool = str(json, pk::Tool);
    r.pattern = str(json, pk::Pattern);
    const QJsonObject scope = json.value(pk::Scope).toObject();
    r.scopeAgentId = str(scope, k::AgentId);
    r.scopeCwd = str(scope, k::Cwd);
    const QString decision = str(json, pk::Decision);
    r.allow = decision == dec::Allow;
    r.createdAt = json.value(k::CreatedAt).toInteger();
    r.source = str(json, pk::Source);
    if (r.id.isEmpty() || r.tool.isEmpty() || (decision != dec::Allow && decision != dec::Deny))
        return false;
    *out = r;
    return true;
}

Result<PermissionRule> parseRuleDraft(const QJsonObject &body, const rules::ToolKinds &kinds) {
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (it.key() != pk::Tool && it.key() != pk::Pattern && it.key() != pk::Scope &&
            it.key() != pk::Decision)
            return Error::invalid(c::UnknownField,
                                  QStringLiteral("unknown field '%1'; allowed: tool, pattern, "
                                                 "scope, decision")
                                      .arg(it.key().left(60)));
    }
    for (QLatin1String required : {pk::Tool, pk::Decision}) {
        if (!body.contains(required))
            return Error::badRequest(c::MissingField,
                                     QStringLiteral("field '%1' is required").arg(required));
    }
    for (QLatin1String key : {pk::Tool, pk::Pattern, pk::Decision}) {
        if (body.contains(key) && !body.value(key).isString())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("field '%1' must be a string").arg(key));
    }
    PermissionRule r;
    r.tool = body.value(pk::Tool).toString().trimmed();
    if (r.tool.isEmpty() || r.tool.size() > kMaxTool)
        return invalid(QStringLiteral("field 'tool' must be 1 to %1 characters").arg(kMaxTool));
    r.pattern = body.value(pk::Pattern).toString().trimmed();
    if (r.pattern.size() > kMaxPattern)
        return invalid(
            QStringLiteral("field 'pattern' is longer than %1 characters").arg(kMaxPattern));
    const QString decision = body.value(pk::Decision).toString();
    if (decision != dec::Allow && decision != dec::Deny)
        return invalid(QStringLiteral("field 'decision' must be 'allow' or 'deny'"));
    r.allow = decision == dec::Allow;
    const rules::ToolKind kind = kinds.kindOf(r.tool);
    if (kind == rules::ToolKind::Command) {
        if (!rules::shellWords(r.pattern))
            return invalid(QStringLiteral("field 'pattern': a quote is not closed"));
        if (rules::hasShellControl(r.pattern))
            return invalid(QStringLiteral("field 'pattern' must be a command-word prefix, "
                                          "without shell control (; & | ` $( < > newline)"));
    } else if (kind == rules::ToolKind::Other && !r.pattern.isEmpty() &&
               r.pattern != QLatin1String("*")) {
        return invalid(QStringLiteral("field 'pattern': tool '%1' is matched by name only; "
                                      "leave the pattern empty")
                           .arg(r.tool));
    }
    if (kind == rules::ToolKind::Other)
        r.pattern.clear();
    if (body.contains(pk::Scope)) {
        const QJsonValue scope = body.value(pk::Scope);
        if (!scope.isObject())
            return Error::badRequest(c::WrongType, QStringLiteral("field 'scope' must be an "
                                                                  "object: {}, {agentId} or "
                                                                  "{cwd}"));
        const QJsonObject s = scope.toObject();
        for (auto it = s.constBegin(); it != s.constEnd(); ++it) {
            if (it.key() != k::AgentId && it.key() != k::Cwd)
                return Error::invalid(
                    c::UnknownField,
                    QStringLiteral("unknown field 'scope.%1'; a scope is {}, {agentId} or {cwd}")
                        .arg(it.key().left(60)));
            if (!it.value().isString() || it.value().toString().isEmpty())
                return Error::badRequest(
                    c::WrongType,
                    QStringLiteral("field 'scope.%1' must be a non-empty string").arg(it.key()));
        }
        if (s.size() > 1)
            return invalid(QStringLiteral("field 'scope' takes one of agentId or cwd, not both"));
        r.scopeAgentId = str(s, k::AgentId);
        r.scopeCwd = str(s, k::Cwd);
        if (!r.scopeCwd.isEmpty()) {
            if (!QDir::isAbsolutePath(r.scopeCwd))
                return invalid(QStringLiteral("field 'scope.cwd' must be an absolute path"));
            r.scopeCwd = QDir::cleanPath(r.scopeCwd);
        }
    }
    return r;
}

// --- Matching ----------------------------------------------------------------------------------

namespace rules {

std::optional<QStringList> shellWords(const QString &text) {
    QStringList words;
    QString word;
    bool inWord = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar ch = text.at(i);
        if (ch == QLatin1Char('\'')) {
            const qsizetype end = text.indexOf(QLatin1Char('\''), i + 1);
            if (end < 0)
                return std::nullopt;
            word += text.mid(i + 1, end - i - 1);
            inWord = true;
            i = end;
        } else if (ch == QLatin1Char('"')) {
            qsizetype j = i + 1;
            for (; j < text.size() && text.at(j) != QLatin1Char('"'); ++j) {
                if (text.at(j) == QLatin1Char('\\') && j + 1 < text.size() &&
                    QStringLiteral("\"\\$`").contains(text.at(j + 1)))
                    ++j;
                word += text.at(j);
            }
            if (j >= text.size())
                return std::nullopt;
            inWord = true;
            i = j;
        } else if (ch == QLatin1Char('\\')) {
            if (i + 1 < text.size())
                word += text.at(++i);
            inWord = true;
        } else if (ch.isSpace()) {
            if (inWord)
                words << std::exchange(word, QString());
            inWord = false;
        } else {
            word += ch;
            inWord = true;
        }
    }
    if (inWord)
        words << word;
    return words;
}

QString unwrapShell(const QString &command) {
    const std::optional<QStringList> words = shellWords(command);
    if (!words || words->size() != 3)
        return command;
    static const QRegularExpression shell(QStringLiteral("^(/usr)?(/bin/)?(ba|z|da)?sh$"));
    const QString flag = words->at(1);
    if (!shell.match(words->at(0)).hasMatch() ||
        (flag != QLatin1String("-c") && flag != QLatin1String("-lc")))
        return command;
    return words->at(2);
}

bool hasShellControl(const QString &command) {
    static const QRegularExpression control(QStringLiteral("[;&|`<>\\n\\r]|\\$\\("));
    return control.match(command).hasMatch();
}

bool covers(const PermissionRule &rule, const RuleSubject &subject, const QString &tool,
            const QJsonObject &toolInput, const ToolKinds &kinds) {
    const ToolKind kind = kinds.kindOf(tool);
    if (kind != kinds.kindOf(rule.tool) || !scopeCovers(rule, subject))
        return false;
    switch (kind) {
    case ToolKind::Command:
        return coversCommand(rule, toolInput);
    case ToolKind::FileEdit:
        return coversPaths(rule, subject, toolInput);
    case ToolKind::Other:
        return rule.tool == tool;
    }
    return false;
}

RuleVerdict evaluate(const QList<PermissionRule> &list, const RuleSubject &subject,
                     const QString &tool, const QJsonObject &toolInput, const ToolKinds &kinds) {
    RuleVerdict verdict;
    for (const PermissionRule &r : list) {
        if (!covers(r, subject, tool, toolInput, kinds))
            continue;
        if (!r.allow)
            return {RuleVerdict::Kind::Deny, r.id};
        if (verdict.kind == RuleVerdict::Kind::None)
            verdict = {RuleVerdict::Kind::Allow, r.id};
    }
    return verdict;
}

Result<PermissionRule> rememberedRule(const QString &scope, bool allow, const RuleSubject &subject,
                                      const QString &tool, const QJsonObject &toolInput,
                                      const std::optional<QString> &pattern,
                                      const ToolKinds &kinds) {
    PermissionRule r;
    r.tool = tool;
    r.allow = allow;
    if (scope == rem::Agent)
        r.scopeAgentId = subject.agentId;
    else if (scope == rem::Project)
        r.scopeCwd = QDir::cleanPath(subject.cwd);
    else if (scope != rem::Global)
        return invalid(QStringLiteral("field 'remember' must be 'agent', 'project' or 'global'"));
    switch (kinds.kindOf(tool)) {
    case ToolKind::Command: {
        const QString script = unwrapShell(commandOf(toolInput));
        if (pattern) {
            r.pattern = pattern->trimmed();
        } else {
            // The whole command (for a deny, its first part): what the user saw and answered.
            const QString first = script.split(controlSplitter(), Qt::SkipEmptyParts).value(0);
            const std::optional<QStringList> words = shellWords(allow ? script : first);
            if (!words || words->isEmpty())
                return invalid(QStringLiteral("cannot remember: the command could not be read"));
            QStringList q;
            for (const QString &w : *words)
                q << quoted(w);
            r.pattern = q.join(QLatin1Char(' '));
        }
        if (allow && hasShellControl(script))
            return invalid(QStringLiteral("cannot remember an allow rule for a command with shell "
                                          "control (; & | ` $( < > newline): no rule ever allows "
                                          "one; answer without 'remember'"));
        break;
    }
    case ToolKind::FileEdit: {
        if (pattern) {
            r.pattern = pattern->trimmed();
            break;
        }
        // The directory holding the edited files (their common one).
        QString common;
        for (const QString &p : editedPaths(toolInput)) {
            const QString dir = QFileInfo(normalisedPath(p, subject.cwd)).path();
            if (common.isEmpty()) {
                common = dir;
                continue;
            }
            while (!isUnder(dir, common) && common != QLatin1String("/"))
                common = QFileInfo(common).path();
        }
        if (common.isEmpty())
            return invalid(QStringLiteral("cannot remember: the tool use names no file"));
        r.pattern = common;
        break;
    }
    case ToolKind::Other:
        break;
    }
    if (!covers(r, subject, tool, toolInput, kinds))
        return invalid(QStringLiteral("cannot remember: the rule (pattern '%1') would not cover "
                                      "this request")
                           .arg(r.pattern.left(200)));
    return r;
}

} // namespace rules

} // namespace flotilla
