// The protocol drift check for `codex app-server`: runs `codex app-server generate-json-schema`
// of the pinned CLI and asserts that every method, field and value the product relies on is in
// it. A failure names what is missing and the installed version: read the new schema, adapt the
// product, then this table.

#include "support/MockOpenAI.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using flotilla::test::MockOpenAI;

namespace {

// What the product relies on. `where` is a method of a message table ("ClientRequest",
// "ClientNotification", "ServerNotification", "ServerRequest": the row checks its params type) or
// "type:Name" (a schema of its own: Name.json, v2/Name.json or v1/Name.json). `fields` are dotted
// paths into it, space separated; a segment `[type=x]` picks the variant of a union whose `type` is
// x. With `values`, the (single) field must allow each of these strings.
struct Expectation {
    const char *kind;
    const char *where;
    const char *fields;
    const char *values;
};

// clang-format off
constexpr Expectation kExpected[] = {
    // Client -> server requests and notification.
    {"ClientRequest", "initialize", "clientInfo.name clientInfo.version", ""},
    {"ClientNotification", "initialized", "", ""},
    {"ClientRequest", "thread/start", "cwd model approvalPolicy sandbox developerInstructions baseInstructions config", ""},
    {"ClientRequest", "thread/resume", "threadId cwd model approvalPolicy sandbox developerInstructions baseInstructions", ""},
    {"ClientRequest", "turn/start", "threadId input approvalPolicy sandboxPolicy model effort cwd", ""},
    {"ClientRequest", "turn/start", "input[type=text].text", ""},
    {"ClientRequest", "turn/start", "input.type", "text"},
    {"ClientRequest", "turn/interrupt", "threadId turnId", ""},
    {"ClientRequest", "thread/inject_items", "threadId items", ""},
    {"ClientRequest", "thread/start", "approvalPolicy", "untrusted on-request never"},
    {"ClientRequest", "turn/start", "approvalPolicy", "untrusted on-request never"},
    {"ClientRequest", "thread/start", "sandbox", "read-only workspace-write danger-full-access"},
    // Server -> client notifications.
    {"ServerNotification", "turn/started", "threadId turn.id", ""},
    {"ServerNotification", "turn/completed", "threadId turn.id turn.status turn.error.message turn.error.codexErrorInfo", ""},
    {"ServerNotification", "turn/completed", "turn.status", "completed interrupted failed inProgress"},
    {"ServerNotification", "item/started", "threadId turnId item.id item.type", ""},
    {"ServerNotification", "item/completed", "threadId turnId item.id item.type", ""},
    {"ServerNotification", "item/completed", "item.type", "userMessage agentMessage commandExecution fileChange reasoning"},
    {"ServerNotification", "item/completed", "item[type=agentMessage].text item[type=commandExecution].command item[type=commandExecution].cwd item[type=commandExecution].status item[type=commandExecution].exitCode item[type=commandExecution].aggregatedOutput item[type=fileChange].changes item[type=fileChange].status", ""},
    {"ServerNotification", "item/completed", "item[type=commandExecution].status", "inProgress completed failed declined"},
    // Flotilla's MCP server (thread/start config.mcp_servers): its calls as tool rows, its start-up.
    {"ServerNotification", "item/completed", "item.type", "mcpToolCall"},
    {"ServerNotification", "item/completed", "item[type=mcpToolCall].server item[type=mcpToolCall].tool item[type=mcpToolCall].arguments item[type=mcpToolCall].status item[type=mcpToolCall].result.content item[type=mcpToolCall].result.structuredContent item[type=mcpToolCall].error.message", ""},
    {"ServerNotification", "item/completed", "item[type=mcpToolCall].status", "inProgress completed failed"},
    {"ServerNotification", "mcpServer/startupStatus/updated", "name status error", ""},
    {"ServerNotification", "mcpServer/startupStatus/updated", "status", "starting ready failed"},
    {"ServerNotification", "item/agentMessage/delta", "threadId turnId itemId delta", ""},
    {"ServerNotification", "item/commandExecution/outputDelta", "threadId turnId itemId delta", ""},
    {"ServerNotification", "thread/tokenUsage/updated", "threadId turnId tokenUsage.total.inputTokens tokenUsage.total.cachedInputTokens tokenUsage.total.outputTokens tokenUsage.total.totalTokens tokenUsage.last.inputTokens tokenUsage.modelContextWindow", ""},
    {"ServerNotification", "thread/status/changed", "threadId status.type", ""},
    {"ServerNotification", "thread/status/changed", "status.type", "active idle systemError"},
    {"ServerNotification", "serverRequest/resolved", "threadId requestId", ""},
    {"ServerNotification", "error", "threadId turnId willRetry error.message error.codexErrorInfo", ""},
    {"ServerNotification", "error", "error.codexErrorInfo", "internalServerError other"},
    // Server -> client requests (approvals) and their answers.
    {"ServerRequest", "item/commandExecution/requestApproval", "threadId turnId itemId command cwd reason", ""},
    {"ServerRequest", "item/fileChange/requestApproval", "threadId turnId itemId reason", ""},
    {"type:CommandExecutionRequestApprovalResponse", "", "decision", "accept acceptForSession decline cancel"},
    {"type:FileChangeRequestApprovalResponse", "", "decision", "accept acceptForSession decline cancel"},
    // Results.
    {"type:InitializeResponse", "", "userAgent", ""},
    {"type:ThreadStartResponse", "", "thread.id", ""},
    {"type:ThreadResumeResponse", "", "thread.id", ""},
    {"type:TurnStartResponse", "", "turn.id", ""},
    {"type:TurnInterruptResponse", "", "", ""},
};
// clang-format on

// One schema file: its root and its definitions (every generated file is self-contained;
// "#/definitions/Name" and "#/definitions/v2/Name" both name a definition by its last segment).
struct SchemaFile {
    QJsonObject root;
    QHash<QString, QJsonObject> definitions;

    bool load(const QString &path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return false;
        root = QJsonDocument::fromJson(f.readAll()).object();
        addDefinitions(root.value(QLatin1String("definitions")).toObject());
        return !root.isEmpty();
    }
    void addDefinitions(const QJsonObject &defs) {
        for (auto it = defs.begin(); it != defs.end(); ++it) {
            const QJsonObject d = it.value().toObject();
            // A nested namespace ("v2": {Name: schema...}) holds no schema keywords itself.
            if (it.key() == QLatin1String("v2") && !d.contains(QLatin1String("type")))
                addDefinitions(d);
            else if (!definitions.contains(it.key()))
                definitions.insert(it.key(), d);
        }
    }
    QJsonObject deref(QJsonObject s, int depth = 0) const {
        while (s.contains(QLatin1String("$ref")) && depth++ < 32)
            s = definitions.value(
                s.value(QLatin1String("$ref")).toString().section(QLatin1Char('/'), -1));
        return s;
    }
    // The concrete alternatives of a schema: $ref resolved, anyOf/oneOf/allOf flattened, arrays
    // replaced by their items.
    QList<QJsonObject> variants(const QJsonObject &schema, int depth = 0) const {
        const QJsonObject s = deref(schema);
        QList<QJsonObject> out;
        bool combined = false;
        for (const char *key : {"anyOf", "oneOf", "allOf"}) {
            const QJsonArray alternatives = s.value(QLatin1String(key)).toArray();
            for (const QJsonValue &a : alternatives) {
                combined = true;
                if (depth < 16)
                    out << variants(a.toObject(), depth + 1);
            }
        }
        if (s.contains(QLatin1String("items")) && depth < 16)
            out << variants(s.value(QLatin1String("items")).toObject(), depth + 1);
        if (!combined && !s.contains(QLatin1String("items")))
            out << s;
        else if (s.contains(QLatin1String("properties")))
            out << s; // properties beside a combinator
        return out;
    }
    // Every string a schema allows through enum / const.
    QSet<QString> values(const QJsonObject &schema) const {
        QSet<QString> out;
        for (const QJsonObject &v : variants(schema)) {
            const QJsonArray e = v.value(QLatin1String("enum")).toArray();
            for (const QJsonValue &x : e)
                out.insert(x.toString());
            if (v.value(QLatin1String("const")).isString())
                out.insert(v.value(QLatin1String("const")).toString());
        }
        return out;
    }
    // The schemas a dotted path leads to from `schema` (empty: the path does not exist).
    QList<QJsonObject> resolve(const QJsonObject &schema, const QString &path) const {
        QList<QJsonObject> current{schema};
        for (QString segment : path.split(QLatin1Char('.'), Qt::SkipEmptyParts)) {
            QString selector;
            if (segment.endsWith(QLatin1Char(']')) && segment.contains(QLatin1String("[type="))) {
                selector = segment.section(QLatin1String("[type="), 1).chopped(1);
                segment = segment.section(QLatin1Char('['), 0, 0);
            }
            QList<QJsonObject> next;
            for (const QJsonObject &c : std::as_const(current)) {
                for (const QJsonObject &v : variants(c)) {
                    const QJsonObject props = v.value(QLatin1String("properties")).toObject();
                    if (props.contains(segment))
                        next << props.value(segment).toObject();
                }
            }
            if (!selector.isEmpty()) {
                QList<QJsonObject> picked;
                for (const QJsonObject &n : std::as_const(next))
                    for (const QJsonObject &v : variants(n)) {
                        const QJsonObject type = v.value(QLatin1String("properties"))
                                                     .toObject()
                                                     .value(QLatin1String("type"))
                                                     .toObject();
                        if (values(type).contains(selector))
                            picked << v;
                    }
                next = picked;
            }
            current = next;
            if (current.isEmpty())
                return {};
        }
        return current;
    }
    // method -> its params schema ({} for a method without params), from a message table.
    QHash<QString, QJsonObject> methods() const {
        QHash<QString, QJsonObject> out;
        const QJsonArray alternatives = root.value(QLatin1String("oneOf")).toArray();
        for (const QJsonValue &a : alternatives) {
            const QJsonObject props = a.toObject().value(QLatin1String("properties")).toObject();
            const QJsonArray names = props.value(QLatin1String("method"))
                                         .toObject()
                                         .value(QLatin1String("enum"))
                                         .toArray();
            for (const QJsonValue &n : names)
                out.insert(n.toString(), props.value(QLatin1String("params")).toObject());
        }
        return out;
    }
};

} // namespace

class TestCodexProtocol : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void expectations_data();
    void expectations();
    void everyRowChecked();

private:
    QString m_version;
    QTemporaryDir m_dir;
    // By file name (ClientRequest.json, v2/TurnStartResponse.json); std::map keeps pointers valid.
    std::map<QString, SchemaFile> m_files;
    int m_checked = 0;

    const SchemaFile *file(const QString &name) {
        auto it = m_files.find(name);
        if (it == m_files.end()) {
            SchemaFile f;
            if (!f.load(m_dir.filePath(name)))
                return nullptr;
            it = m_files.emplace(name, std::move(f)).first;
        }
        return &it->second;
    }
    QByteArray context(const QString &what) const {
        return QStringLiteral("codex-cli %1 (%2): %3")
            .arg(m_version, MockOpenAI::codexBinary(), what)
            .toUtf8();
    }
};

void TestCodexProtocol::initTestCase() {
    const QString bin = MockOpenAI::codexBinary();
    QVERIFY2(QFileInfo(bin).isExecutable(),
             qPrintable(QStringLiteral("The pinned Codex CLI is missing at %1: run "
                                       "scripts/install-codex.sh (or scripts/install-deps.sh)")
                            .arg(bin)));
    QVERIFY(m_dir.isValid());
    QProcess version;
    version.start(bin, {QStringLiteral("--version")});
    QVERIFY(version.waitForFinished(30000));
    m_version =
        QString::fromUtf8(version.readAllStandardOutput()).trimmed().section(QLatin1Char(' '), -1);

    QProcess gen;
    gen.start(bin, {QStringLiteral("app-server"), QStringLiteral("generate-json-schema"),
                    QStringLiteral("--out"), m_dir.path()});
    QVERIFY(gen.waitForFinished(60000));
    QVERIFY2(gen.exitStatus() == QProcess::NormalExit && gen.exitCode() == 0,
             context(QStringLiteral("generate-json-schema failed: ") +
                     QString::fromUtf8(gen.readAllStandardError()))
                 .constData());
    for (const char *name : {"ClientRequest.json", "ClientNotification.json",
                             "ServerNotification.json", "ServerRequest.json"})
        QVERIFY2(
            file(QLatin1String(name)),
            context(
                QStringLiteral("no schema file %1 in %2").arg(QLatin1String(name), m_dir.path()))
                .constData());
}

void TestCodexProtocol::expectations_data() {
    QTest::addColumn<int>("row");
    for (int i = 0; i < int(std::size(kExpected)); ++i) {
        const Expectation &e = kExpected[i];
        QTest::addRow("%d %s %s %s", i, e.kind, e.where, e.values[0] ? e.fields : "") << i;
    }
}

void TestCodexProtocol::expectations() {
    QFETCH(int, row);
    const Expectation &e = kExpected[row];
    const QString kind = QLatin1String(e.kind);
    const SchemaFile *f = nullptr;
    QJsonObject schema;
    QString what;
    if (kind.startsWith(QLatin1String("type:"))) {
        const QString name = kind.mid(5);
        for (const char *dir : {"", "v2/", "v1/"})
            f = f ? f : file(QLatin1String(dir) + name + QStringLiteral(".json"));
        QVERIFY2(f, context(QStringLiteral("type %1 is gone (no %1.json)").arg(name)).constData());
        schema = f->root;
        what = name;
    } else {
        f = file(kind + QStringLiteral(".json"));
        QVERIFY(f);
        const QHash<QString, QJsonObject> methods = f->methods();
        const QString method = QLatin1String(e.where);
        QVERIFY2(methods.contains(method),
                 context(QStringLiteral("%1 method \"%2\" is gone").arg(kind, method)).constData());
        schema = methods.value(method);
        what = QStringLiteral("%1 \"%2\" params").arg(kind, method);
    }
    const QStringList fields =
        QString::fromLatin1(e.fields).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QStringList missing;
    for (const QString &field : fields)
        if (f->resolve(schema, field).isEmpty())
            missing << field;
    QVERIFY2(
        missing.isEmpty(),
        context(QStringLiteral("%1 lack field(s) %2").arg(what, missing.join(QStringLiteral(", "))))
            .constData());
    if (e.values[0]) {
        QCOMPARE(fields.size(), 1);
        QSet<QString> allowed;
        for (const QJsonObject &s : f->resolve(schema, fields.first()))
            allowed.unite(f->values(s));
        QStringList absent;
        for (const QString &v : QString::fromLatin1(e.values).split(QLatin1Char(' ')))
            if (!allowed.contains(v))
                absent << v;
        QStringList known = allowed.values();
        known.sort();
        QVERIFY2(absent.isEmpty(),
                 context(QStringLiteral("%1.%2 no longer allows %3 (allowed: %4)")
                             .arg(what, fields.first(), absent.join(QStringLiteral(", ")),
                                  known.join(QStringLiteral(", "))))
                     .constData());
    }
    ++m_checked;
}

// A guard against a resolver that silently checks nothing: known-absent names must fail.
void TestCodexProtocol::everyRowChecked() {
    QCOMPARE(m_checked, int(std::size(kExpected)));
    const SchemaFile *requests = file(QStringLiteral("ClientRequest.json"));
    QVERIFY(requests);
    const QJsonObject turnStart = requests->methods().value(QStringLiteral("turn/start"));
    QVERIFY(!requests->resolve(turnStart, QStringLiteral("threadId")).isEmpty());
    QVERIFY(requests->resolve(turnStart, QStringLiteral("flotillaNoSuchField")).isEmpty());
    QVERIFY(requests->resolve(turnStart, QStringLiteral("input[type=noSuchKind].text")).isEmpty());
    QVERIFY(!requests->methods().contains(QStringLiteral("flotilla/noSuchMethod")));
    QVERIFY(
        !requests->values(requests->resolve(turnStart, QStringLiteral("approvalPolicy")).first())
             .contains(QStringLiteral("sometimes")));
}

QTEST_GUILESS_MAIN(TestCodexProtocol)
#include "tst_codex_protocol.moc"
