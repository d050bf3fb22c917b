#pragma once
// Session-file fixtures shared by the history suites: real CLI lines (tests/data/history),
// synthetic sessions built in memory, and small file helpers.

#include "agents/claude/ClaudeSessions.h"
#include "controllers/HistoryController.h"
#include "domain/AgentRegistry.h"
#include "history/HistoryEntries.h"
#include "history/IndexCache.h"
#include "history/LineScanner.h"
#include "history/SessionIndex.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

namespace flotilla::test {

using namespace flotilla::history;

inline const QString kMainSession = QStringLiteral("00e58ff5-3e47-4994-b023-221040dd2bc4");
inline const QString kBashSession = QStringLiteral("1e338c88-d394-419d-847a-430c5ccb9ad5");
inline const QString kTaskToolUse = QStringLiteral("toolu_task0002");

inline QString s(const char *utf8) {
    return QString::fromUtf8(utf8);
}

inline QByteArray jsonLine(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

inline QJsonObject convLine(const QString &type, const QString &uuid, const QJsonValue &content) {
    return {{s("type"), type},
            {s("uuid"), uuid},
            {s("timestamp"), s("2026-11-21T00:26:13.077Z")},
            {s("isSidechain"), false},
            {s("message"), QJsonObject{{s("role"), type}, {s("content"), content}}}};
}

// A session file built in memory, with the entries' contents in order, to check pages against.
struct Synthetic {
    QByteArray bytes;
    QStringList contents;
    void user() {
        const QString c = s("e%1").arg(contents.size());
        bytes += jsonLine(convLine(s("user"), c, c));
        contents.append(c);
    }
    // One line, two entries: text + tool_use.
    void assistantWithTool() {
        const QString text = s("e%1").arg(contents.size());
        const QJsonObject input{{s("n"), int(contents.size()) + 1}};
        const QJsonArray blocks{
            QJsonObject{{s("type"), s("thinking")}, {s("thinking"), s("hidden")}},
            QJsonObject{{s("type"), s("text")}, {s("text"), text}},
            QJsonObject{{s("type"), s("tool_use")},
                        {s("id"), s("t%1").arg(contents.size())},
                        {s("name"), s("Bash")},
                        {s("input"), input}}};
        bytes += jsonLine(convLine(s("assistant"), text, blocks));
        contents << text << QString::fromUtf8(QJsonDocument(input).toJson(QJsonDocument::Compact));
    }
    void noise() {
        bytes += jsonLine({{s("type"), s("attachment")},
                           {s("attachment"), QJsonObject{{s("content"), QString(3000, u'x')}}}});
        bytes += jsonLine({{s("type"), s("queue-operation")}, {s("operation"), s("enqueue")}});
    }
    void add(int lines) {
        for (int i = 0; i < lines; ++i) {
            if (i % 5 == 4)
                assistantWithTool();
            else
                user();
            if (i % 3 == 0)
                noise();
        }
    }
};

inline bool writeFile(const QString &path, const QByteArray &bytes, QIODevice::OpenMode mode) {
    QFile f(path);
    return f.open(mode) && f.write(bytes) == bytes.size();
}

inline QStringList contentsOf(const QList<QJsonObject> &entries) {
    QStringList out;
    for (const QJsonObject &e : entries)
        out.append(e.value(s("content")).toString());
    return out;
}

inline bool copyTree(const QString &from, const QString &to) {
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString src = it.next();
        const QString dst = to + src.mid(from.size());
        if (!QDir().mkpath(QFileInfo(dst).path()) || !QFile::copy(src, dst))
            return false;
    }
    return true;
}

inline bool setMtime(const QString &path, const QDateTime &t) {
    QFile f(path);
    return f.open(QIODevice::ReadWrite) && f.setFileTime(t, QFileDevice::FileModificationTime);
}

// The real service with a temp claudeHome and one agent whose cwd is the service's workDir.
struct Rest {
    QTemporaryDir home;
    std::unique_ptr<TestService> svc;
    std::unique_ptr<HttpClient> http;
    std::unique_ptr<HistoryController> attached;
    QString agentId;
    QString projectDir;

    bool start() {
        svc = std::make_unique<TestService>(
            [this](ServerConfig &c) { c.claudeHome = home.path() + s("/.claude"); });
        if (!svc->start())
            return false;
        http = std::make_unique<HttpClient>();
        const HttpResponse created =
            http->post(svc->url(s("/api/agents")),
                       QJsonObject{{s("name"), s("historian")}, {s("cwd"), svc->workDir()}});
        agentId = created.object().value(s("id")).toString();
        const QString cwd = created.object().value(s("cwd")).toString();
        projectDir = home.path() + s("/.claude/projects/") + claude::encodeProjectDirName(cwd);
        // The composition root may not construct the history controller yet: attach one.
        if (get(s("history")).object().value(s("code")).toString() == s("route_not_found")) {
            attached =
                std::make_unique<HistoryController>(svc->app().agents(), svc->app().providers());
            attached->registerRoutes(svc->app().http());
        }
        return !agentId.isEmpty() && QDir().mkpath(projectDir);
    }
    HttpResponse get(const QString &route, const QUrlQuery &q = {}, const QString &id = {}) {
        QUrl u = svc->url(s("/api/agents/%1/%2").arg(id.isEmpty() ? agentId : id, route));
        u.setQuery(q);
        return http->get(u);
    }
    bool installFixture() {
        const QString data = QFINDTESTDATA("data/history");
        const QDateTime now = QDateTime::currentDateTimeUtc();
        return !data.isEmpty() && copyTree(data, projectDir) &&
               setMtime(projectDir + s("/%1.jsonl").arg(kBashSession), now.addSecs(-60)) &&
               setMtime(projectDir + s("/%1.jsonl").arg(kMainSession), now);
    }
};

inline QUrlQuery query(std::initializer_list<std::pair<QString, QString>> items) {
    QUrlQuery q;
    for (const auto &[k, v] : items)
        q.addQueryItem(k, v);
    return q;
}

} // namespace flotilla::test
