// Baseline for bench/http_bench.sh: the bare Qt 6.4.2 QHttpServer serving pre-serialised bytes,
// no guard, no auth, no routing of our own. Whatever flotillad costs above this is ours.

#include <QCoreApplication>
#include <QHttpServer>
#include <QHttpServerResponse>
#include <QTcpServer>

#include <cstdio>

int main(int argc, char *argv[]) {
    QCoreApplication app(argc, argv);
    const quint16 port = argc > 1 ? quint16(QByteArray(argv[1]).toUInt()) : 0;
    const QByteArray body = QByteArray(argc > 2 ? QByteArray(argv[2]).toInt() : 13893, 'x');
    QHttpServer server;
    server.route(QStringLiteral("/api/agents/status"), [body] {
        return QHttpServerResponse(QByteArrayLiteral("application/json"), body);
    });
    server.route(QStringLiteral("/api/health"), [] {
        return QHttpServerResponse(QByteArrayLiteral("application/json"),
                                   QByteArrayLiteral("{\"status\":\"ok\"}"));
    });
    auto *tcp = new QTcpServer();
    if (!tcp->listen(QHostAddress::LocalHost, port))
        return 1;
    server.bind(tcp);
    std::fprintf(stderr, "bare listening on %u\n", unsigned(tcp->serverPort()));
    return app.exec();
}
