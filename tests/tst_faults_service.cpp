// Faults around the service itself: the data directory's file system full (a small tmpfs the
// test mounts; root only), while running and at start-up, and a client holding 1,000 connections
// that send nothing. The service refuses what it cannot store with a clear error, loses nothing it
// acknowledged, keeps serving reads and other clients, and recovers by itself.

#include "support/HttpClient.h"
#include "support/ReliabilityKit.h"
#include "support/TestService.h"
#include "support/WsClient.h"

#include <QDir>
#include <QFile>
#include <QScopeGuard>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstring>

#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace flotilla;
using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// A 2 MiB tmpfs of the test's own (needs root or CAP_SYS_ADMIN), unmounted on scope exit.
struct SmallTmpfs {
    QTemporaryDir tmp;
    QString path = tmp.path() + QStringLiteral("/small");
    bool mounted = false;
    QString error;
    SmallTmpfs() {
        if (!tmp.isValid() || !QDir().mkpath(path)) {
            error = QStringLiteral("cannot create %1").arg(path);
            return;
        }
        mounted = ::mount("tmpfs", QFile::encodeName(path).constData(), "tmpfs", 0,
                          "size=2m,mode=0700") == 0;
        if (!mounted)
            error = QString::fromLocal8Bit(std::strerror(errno));
    }
    ~SmallTmpfs() {
        if (mounted)
            ::umount2(QFile::encodeName(path).constData(), MNT_DETACH);
    }
    QString skipReason() const {
        return QStringLiteral("cannot mount a tmpfs for the full-disk test (needs root or "
                              "CAP_SYS_ADMIN): %1")
            .arg(error);
    }
    Q_DISABLE_COPY_MOVE(SmallTmpfs)
};

// Writes until the file system refuses; returns the bytes written.
qint64 fill(const QString &path) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
        return -1;
    const QByteArray chunk(64 * 1024, 'f');
    qint64 total = 0;
    for (int size = int(chunk.size()); size > 0; size /= 2) {
        for (;;) {
            const qint64 n = f.write(chunk.constData(), size);
            if (n <= 0)
                break;
            total += n;
        }
    }
    return total;
}

} // namespace

class TestFaultsService final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void diskFull();
    void diskFullAtStartup();
    void thousandSilentConnections();
    void connectionsAreCountedOut();
};

// Every connection the service accepted is released when it closes, whoever closes it: the
// connection limit counts live sockets, and a leaked one would lock clients out in the end.
void TestFaultsService::connectionsAreCountedOut() {
    TestService svc;
    QVERIFY2(svc.start(), qPrintable(svc.lastError()));
    for (int i = 0; i < 20; ++i) {
        WsClient ws;
        QVERIFY(ws.open(svc.wsUrl()));
        QVERIFY(ws.waitFor(QStringLiteral("work_plans_update")));
        if (i % 2)
            ws.socket().close();
        else
            ws.socket().abort();
        QTest::qWait(20);
    }
    QTRY_COMPARE_WITH_TIMEOUT(svc.app().http().openConnections(), 0, scaled(5000));
    for (int i = 0; i < 20; ++i) {
        HttpClient http;
        QCOMPARE(http.get(svc.url(QStringLiteral("/api/health"))).status, 200);
    }
    QTRY_COMPARE_WITH_TIMEOUT(svc.app().http().openConnections(), 0, scaled(5000));
}

void TestFaultsService::diskFull() {
    SmallTmpfs fs;
    if (!fs.mounted)
        QSKIP(qPrintable(fs.skipReason()));
    const QString mountPoint = fs.path;
    const QString data = mountPoint + QStringLiteral("/data");
    TestService svc([&](ServerConfig &c) { c.dataDir = data; });
    QVERIFY2(svc.start(), qPrintable(svc.lastError()));
    HttpClient http;
    auto createAgent = [&](const QString &name) {
        return http.post(svc.url(QStringLiteral("/api/agents")),
                         {{QStringLiteral("name"), name}, {QStringLiteral("cwd"), svc.workDir()}});
    };
    auto putSecret = [&](const QString &name, const QString &value) {
        return http.send("PUT", svc.url(QStringLiteral("/api/secrets/") + name),
                         QJsonDocument(QJsonObject{{QStringLiteral("value"), value}})
                             .toJson(QJsonDocument::Compact));
    };
    auto notify = [&](const QString &agentId, const QString &message) {
        return http.post(svc.url(QStringLiteral("/api/notify")),
                         {{QStringLiteral("agentId"), agentId},
                          {QStringLiteral("title"), QStringLiteral("disk")},
                          {QStringLiteral("message"), message}});
    };
    auto storageFull = [](const HttpResponse &r) {
        return r.status == 503 && str(r.object(), "code") == QLatin1String("storage_full") &&
               str(r.object(), "error").contains(QLatin1String("storage full"));
    };

    QStringList agents; // acknowledged
    QSet<QString> notes;
    QStringList secrets;
    HttpResponse r = createAgent(QStringLiteral("before"));
    QCOMPARE(r.status, 201);
    agents << str(r.object(), "id");
    QCOMPARE(putSecret(QStringLiteral("BEFORE"), QStringLiteral("v1")).status, 201);
    secrets << QStringLiteral("BEFORE");

    const qint64 filled = fill(mountPoint + QStringLiteral("/filler"));
    QVERIFY(filled > 0);

    // Secrets and the prompt are whole-file atomic writes: refused at once.
    r = putSecret(QStringLiteral("DURING"), QStringLiteral("v2"));
    QVERIFY2(storageFull(r), r.body.constData());
    qInfo("disk full, PUT secret: %d %s", r.status, r.body.constData());
    { // The refused write left the stored file whole (Qt 6.4's buffered QSaveFile did not).
        QFile f(data + QStringLiteral("/secrets.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject stored = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(
            stored.value(QLatin1String("secrets")).toObject().contains(QLatin1String("BEFORE")));
    }
    r = http.post(svc.url(QStringLiteral("/api/agents/system-settings/prompt")),
                  {{QStringLiteral("prompt"), QStringLiteral("no room")}});
    QVERIFY2(storageFull(r), r.body.constData());
    // SQLite may still fit a few rows in pages it holds; sooner or later it must refuse.
    HttpResponse refused;
    for (int i = 0; i < 500 && refused.status == 0; ++i) {
        r = createAgent(QStringLiteral("during-%1").arg(i));
        if (r.status == 201)
            agents << str(r.object(), "id");
        else
            refused = r;
        r = notify(agents.constFirst(), QStringLiteral("during %1 ").arg(i).repeated(40));
        if (r.status == 201)
            notes.insert(str(r.object().value(QLatin1String("notification")).toObject(), "id"));
        else if (refused.status == 0)
            refused = r;
    }
    QVERIFY2(storageFull(refused), refused.body.constData());
    qInfo("disk full, SQLite write: %d %s (after %lld agents acknowledged)", refused.status,
          refused.body.constData(), qlonglong(agents.size()));
    r = http.patch(svc.url(QStringLiteral("/api/agents/") + agents.constFirst()),
                   {{QStringLiteral("taskLabel"), QStringLiteral("x").repeated(200)}});
    QVERIFY2(r.status == 200 || r.status == 503, r.body.constData());
    const bool patched = r.status == 200;

    // Reads keep working and show exactly what was acknowledged.
    r = http.get(svc.url(QStringLiteral("/api/agents")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.array().size(), agents.size());
    QCOMPARE(http.get(svc.url(QStringLiteral("/api/health"))).status, 200);
    QCOMPARE(http.get(svc.url(QStringLiteral("/api/secrets"))).status, 200);

    // Space comes back: so do writes, without a restart.
    QVERIFY(QFile::remove(mountPoint + QStringLiteral("/filler")));
    r = createAgent(QStringLiteral("after"));
    QCOMPARE(r.status, 201);
    agents << str(r.object(), "id");
    QCOMPARE(putSecret(QStringLiteral("AFTER"), QStringLiteral("v3")).status, 201);
    secrets << QStringLiteral("AFTER");
    r = notify(agents.constFirst(), QStringLiteral("after"));
    QCOMPARE(r.status, 201);
    notes.insert(str(r.object().value(QLatin1String("notification")).toObject(), "id"));

    // And everything acknowledged survives a restart.
    svc.stop();
    QVERIFY2(svc.start(), qPrintable(svc.lastError()));
    r = http.get(svc.url(QStringLiteral("/api/agents")));
    QStringList ids;
    for (const QJsonValue &v : r.array())
        ids << str(v.toObject(), "id");
    QCOMPARE(ids, agents);
    if (patched)
        QCOMPARE(str(r.array().at(0).toObject(), "taskLabel"), QStringLiteral("x").repeated(200));
    QStringList names;
    for (const QJsonValue &v : http.get(svc.url(QStringLiteral("/api/secrets")))
                                   .object()
                                   .value(QLatin1String("secrets"))
                                   .toArray())
        names << str(v.toObject(), "name");
    names.sort();
    secrets.sort();
    QCOMPARE(names, secrets);
    QSet<QString> stored;
    for (const QJsonValue &v :
         http.get(svc.url(QStringLiteral("/api/notifications?limit=1000"))).array())
        stored.insert(str(v.toObject(), "id"));
    QVERIFY(stored.contains(notes));
    const HttpResponse health = http.get(svc.url(QStringLiteral("/api/health")));
    QCOMPARE(str(health.object(), "status"), QStringLiteral("ok"));
    qInfo("disk full: %lld bytes filled, %lld agents, %lld notifications acknowledged, all kept",
          filled, qlonglong(agents.size()), qlonglong(notes.size()));
    svc.stop();
}

// A service started on a full file system refuses to start with the reason (it could not even
// take its lock file: before, that read "in use by another flotillad (pid 0)"), touches nothing,
// and starts normally with everything kept once there is space again.
void TestFaultsService::diskFullAtStartup() {
    SmallTmpfs fs;
    if (!fs.mounted)
        QSKIP(qPrintable(fs.skipReason()));
    const QString mountPoint = fs.path;
    const QString data = mountPoint + QStringLiteral("/data");
    TestService svc([&](ServerConfig &c) { c.dataDir = data; });
    QVERIFY2(svc.start(), qPrintable(svc.lastError()));
    HttpClient http;
    HttpResponse r = http.post(
        svc.url(QStringLiteral("/api/agents")),
        {{QStringLiteral("name"), QStringLiteral("kept")}, {QStringLiteral("cwd"), svc.workDir()}});
    QCOMPARE(r.status, 201);
    const QString id = str(r.object(), "id");
    svc.stop();

    QVERIFY(fill(mountPoint + QStringLiteral("/filler")) > 0);
    const QStringList before = QDir(data).entryList(QDir::Files | QDir::Hidden);
    QVERIFY(!svc.start());
    qInfo("full disk at start-up: %s", qPrintable(svc.lastError()));
    QVERIFY2(svc.lastError().contains(QLatin1String("is not writable: No space left on device")),
             qPrintable(svc.lastError()));
    QCOMPARE(QDir(data).entryList(QDir::Files | QDir::Hidden), before);

    QVERIFY(QFile::remove(mountPoint + QStringLiteral("/filler")));
    QVERIFY2(svc.start(), qPrintable(svc.lastError()));
    r = http.get(svc.url(QStringLiteral("/api/agents/") + id));
    QCOMPARE(r.status, 200);
    QCOMPARE(str(r.object(), "name"), QStringLiteral("kept"));
    QCOMPARE(str(http.get(svc.url(QStringLiteral("/api/health"))).object(), "status"),
             QStringLiteral("ok"));
    svc.stop();
}

void TestFaultsService::thousandSilentConnections() {
    constexpr int kSilent = 1000;
    if (raiseFdLimit() < 2 * kSilent + 200)
        QSKIP("RLIMIT_NOFILE hard limit too low for 1,000 client and 1,000 server sockets");
    const int headerTimeoutMs = scaled(6000);
    TestService svc([&](ServerConfig &c) { c.http.limits.headerTimeoutMs = headerTimeoutMs; });
    QVERIFY2(svc.start(), qPrintable(svc.lastError()));

    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(svc.port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QList<int> fds;
    auto closeAll = qScopeGuard([&] {
        for (int fd : std::as_const(fds))
            ::close(fd);
    });
    for (int i = 0; i < kSilent; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        QVERIFY(fd >= 0);
        fds << fd;
        const int rc = ::connect(fd, reinterpret_cast<const sockaddr *>(&addr), sizeof addr);
        QVERIFY2(rc == 0 || errno == EINPROGRESS, std::strerror(errno));
        if (i % 100 == 99) // let the service accept (its backlog is 256)
            QTRY_VERIFY_WITH_TIMEOUT(svc.app().http().openConnections() >= i - 50, scaled(10000));
    }
    QTRY_COMPARE_WITH_TIMEOUT(svc.app().http().openConnections(), kSilent, scaled(10000));
    // A connection is only made room for once it has been silent for two seconds.
    QTest::qWait(2100);

    // Others are still served: plain requests, a write, a WebSocket.
    HttpClient http;
    QCOMPARE(http.get(svc.url(QStringLiteral("/api/health"))).status, 200);
    const HttpResponse created = http.post(svc.url(QStringLiteral("/api/agents")),
                                           {{QStringLiteral("name"), QStringLiteral("served")},
                                            {QStringLiteral("cwd"), svc.workDir()}});
    QCOMPARE(created.status, 201);
    WsClient ws;
    QVERIFY(ws.open(svc.wsUrl()));
    QVERIFY(ws.waitFor(QStringLiteral("agents_update")));
    QVERIFY(svc.app().http().openConnections() <= kSilent + 1);

    // The silent ones are cut after the header timeout; the served ones stay.
    QTRY_VERIFY_WITH_TIMEOUT(svc.app().http().openConnections() <= 2,
                             headerTimeoutMs + scaled(5000));
    int closed = 0;
    for (int fd : std::as_const(fds)) {
        char byte = 0;
        const ssize_t n = ::recv(fd, &byte, 1, MSG_DONTWAIT);
        closed += n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
    }
    QCOMPARE(closed, kSilent);
    QVERIFY(ws.isConnected());
    QCOMPARE(http.get(svc.url(QStringLiteral("/api/agents"))).array().size(), 1);
    qInfo("1,000 silent connections: others served while they were open, all %d cut within "
          "the %d ms header timeout",
          closed, headerTimeoutMs);
}

QTEST_GUILESS_MAIN(TestFaultsService)
#include "tst_faults_service.moc"
