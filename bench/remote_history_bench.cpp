// A history page of a remote agent's big session file against the same page of a local agent's
// copy of it (docs/api.md "Hosts", "History of a remote agent"). A real sshd on 127.0.0.2 serves a
// Unix account made here (tests/support/RemoteHost.h; needs root); the service runs in process.
// The session file is bench/make_session_file.py's synthetic Claude Code session (default 50 MB),
// the same bytes on both sides. Per run, in a fresh service (empty copy, empty index cache):
//
//   local cold:   first GET /api/agents/:id/history?limit=50 of the local agent (index built)
//   local warm:   the same page again
//   remote cold:  the remote agent's first page: the file is copied whole, then indexed
//   remote warm:  again, nothing changed: one listing over the link, no bytes copied
//   remote grown: after 64 KiB were appended there: the listing, the 64 KiB (and the 64-byte
//                 overlap) copied, the index brought up to date
//
//   bench_remote_history [--runs 5] [--size 50M]

#include "BenchSupport.h"
#include "agents/claude/ClaudeSessions.h"
#include "support/AgentRig.h"
#include "support/RemoteHost.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QProcess>
#include <QTest>

#include <cstdio>

using namespace flotilla;
using namespace flotilla::bench;
using namespace flotilla::test;

namespace {

const QString kSession = QStringLiteral("5e55105e-0000-4000-8000-000000000001");

double timedGet(AgentRig &rig, const QString &path, QByteArray *body = nullptr) {
    QElapsedTimer t;
    t.start();
    const HttpResponse r = rig.http.get(rig.svc->url(path));
    const double ms = double(t.nsecsElapsed()) / 1e6;
    if (r.status != 200)
        qFatal("GET %s -> %d %s", qPrintable(path), r.status, r.body.left(300).constData());
    if (body)
        *body = r.body;
    return ms;
}

qint64 treeBytes(const QString &dir) {
    qint64 total = 0;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        total += QFileInfo(it.next()).size();
    return total;
}

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser cli;
    cli.addOption(
        {QStringLiteral("runs"), QStringLiteral("runs"), QStringLiteral("n"), QStringLiteral("5")});
    cli.addOption({QStringLiteral("size"), QStringLiteral("session file size"),
                   QStringLiteral("size"), QStringLiteral("50M")});
    cli.process(app);
    const int runs = cli.value(QStringLiteral("runs")).toInt();

    RemoteHost remote;
    if (const QString e = remote.start(); !e.isEmpty())
        qFatal("%s", qPrintable(e));
    QTemporaryDir tmp;
    const QString file = tmp.filePath(QStringLiteral("session.jsonl"));
    QProcess make;
    make.start(QStringLiteral("python3"),
               {QStringLiteral(FLOTILLA_SOURCE_DIR "/bench/make_session_file.py"), file,
                cli.value(QStringLiteral("size")), QStringLiteral("--session"), kSession});
    if (!make.waitForFinished(300000) || make.exitCode() != 0)
        qFatal("make_session_file.py failed: %s", make.readAllStandardError().constData());
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file));
    const QByteArray content = f.readAll();
    const QByteArray extra = QByteArray(64 * 1024 - 1, 'x')
                                 .prepend("{\"type\":\"noise\",\"x\":\"")
                                 .append("\"}\n")
                                 .left(64 * 1024);
    const QString remoteCwd = remote.home() + QStringLiteral("/bench-project");
    const QString remoteFile = QStringLiteral(".claude/projects/%1/%2.jsonl")
                                   .arg(claude::encodeProjectDirName(remoteCwd), kSession);
    std::printf("session file %.1f MB; remote %s\n", content.size() / 1e6, qPrintable(remoteFile));

    QList<double> localCold, localWarm, remoteCold, remoteWarm, remoteGrown;
    qint64 copied = 0;
    for (int run = 0; run < runs; ++run) {
        if (!remote.writeHomeFile(QStringLiteral("bench-project/README"), "bench\n") ||
            !remote.writeHomeFile(remoteFile, content))
            qFatal("cannot write the remote session file");
        AgentRig rig([&](ServerConfig &c) { c.sshConfig = remote.sshConfig(); });
        if (!rig.start())
            qFatal("the service did not start");
        const QString localDir =
            rig.home + QStringLiteral("/.claude/projects/") + claude::encodeProjectDirName(rig.cwd);
        QDir().mkpath(localDir);
        QFile local(localDir + QLatin1Char('/') + kSession + QStringLiteral(".jsonl"));
        if (!local.open(QIODevice::WriteOnly) || local.write(content) != content.size())
            qFatal("cannot write the local session file");
        local.close();
        rig.http.post(rig.svc->url(QStringLiteral("/api/hosts")),
                      {{QStringLiteral("name"), QStringLiteral("box")},
                       {QStringLiteral("ssh"), remote.destination()}});
        if (!QTest::qWaitFor(
                [&] {
                    return rig.http.get(rig.svc->url(QStringLiteral("/api/hosts/box")))
                               .object()
                               .value(QStringLiteral("state"))
                               .toString() == QLatin1String("connected");
                },
                20000))
            qFatal("the host did not connect");
        const HttpResponse made = rig.createAgent(
            QStringLiteral("remote-reader"),
            {{QStringLiteral("host"), QStringLiteral("box")}, {QStringLiteral("cwd"), remoteCwd}});
        const QString remoteId = made.object().value(QStringLiteral("id")).toString();
        const QString page = QStringLiteral("history?limit=50&sessionId=") + kSession;
        const QString localPath = QStringLiteral("/api/agents/%1/%2").arg(rig.agentId, page);
        const QString remotePath = QStringLiteral("/api/agents/%1/%2").arg(remoteId, page);
        QByteArray localBody, remoteBody;
        localCold << timedGet(rig, localPath, &localBody);
        localWarm << timedGet(rig, localPath);
        remoteCold << timedGet(rig, remotePath, &remoteBody);
        copied = treeBytes(rig.svc->dataDir() + QStringLiteral("/data/hosts/box"));
        remoteWarm << timedGet(rig, remotePath);
        QProcess append;
        append.start(QStringLiteral("runuser"),
                     {QStringLiteral("-u"), remote.user(), QStringLiteral("--"),
                      QStringLiteral("sh"), QStringLiteral("-c"),
                      QStringLiteral("cat >> \"$HOME/%1\"").arg(remoteFile)});
        append.waitForStarted();
        append.write(extra);
        append.closeWriteChannel();
        append.waitForFinished();
        remoteGrown << timedGet(rig, remotePath);
        if (localBody.size() != remoteBody.size())
            std::printf("warning: pages differ (%lld vs %lld bytes)\n", qint64(localBody.size()),
                        qint64(remoteBody.size()));
        std::printf("run %d: local %.0f/%.1f ms, remote %.0f/%.1f/%.1f ms\n", run + 1,
                    localCold.last(), localWarm.last(), remoteCold.last(), remoteWarm.last(),
                    remoteGrown.last());
        std::fflush(stdout);
    }
    const auto row = [](const char *what, const QList<double> &v) {
        const Stats s = stats(v);
        std::printf("%-14s min %8.1f  median %8.1f  max %8.1f ms\n", what, s.min, s.median, s.max);
    };
    std::printf("\n%d runs, copy after the first page: %.1f MB\n", runs, copied / 1e6);
    row("local cold", localCold);
    row("local warm", localWarm);
    row("remote cold", remoteCold);
    row("remote warm", remoteWarm);
    row("remote grown", remoteGrown);
    return 0;
}
