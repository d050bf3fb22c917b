#pragma once
// The loopback HTTP/1.1 server under both model API mocks (MockAnthropic, MockOpenAI): it accepts
// connections, reads their requests one after the other (keep-alive, pipelined, or closed after
// "Connection: close"), records them, and writes what the mock plans for each: a whole response,
// a Server-Sent Events stream in chunked encoding (paced when asked), or nothing at all (a hang).
// Which requests are the API's and how they are answered is the mock's (answer(), otherAnswer()).
// The server lives in the test's thread: wait with QSignalSpy::wait / QTRY_* / QTest::qWaitFor.

#include "support/MockHttp.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QTimer>

#include <initializer_list>
#include <utility>

class QTcpSocket;

namespace flotilla::test {

// The JSON and text helpers the mocks build their answers with.
namespace mockjson {
QByteArray compact(const QJsonObject &o);
// A JSON object from (key, value) pairs with plain ASCII keys.
QJsonObject obj(std::initializer_list<std::pair<const char *, QJsonValue>> fields);
QJsonValue lit(const char *s);
// `text` in `n` non-empty pieces of about equal length, never splitting a surrogate pair.
QStringList splitText(const QString &text, int n);
} // namespace mockjson

class MockHttpServer : public QObject {
    Q_OBJECT

public:
    // One request the mock received, as it came.
    struct Request {
        QByteArray method;
        QByteArray target;                     // path and query, e.g. "/v1/messages?beta=true"
        QHash<QByteArray, QByteArray> headers; // lower-cased names
        QByteArray body;
        QJsonObject json; // body parsed, empty when it is not a JSON object
    };

    ~MockHttpServer() override;

    // Listens on 127.0.0.1, port chosen by the system.
    bool start();
    quint16 port() const { return m_server.serverPort(); }

    // --- Recorded API requests (POSTs to the mock's API path) ---
    QList<QJsonObject> requests() const; // parsed bodies, in order
    int requestCount() const { return int(m_requests.size()); }
    QJsonObject request(int i) const { return m_requests.value(i).json; }
    Request rawRequest(int i) const { return m_requests.value(i); } // with method, target, headers
    // Requests answered with the fallback text because the queue was empty.
    int unscriptedRequests() const { return m_unscripted; }
    // Responses whose client closed the connection before the answer was complete.
    int abandonedResponses() const { return m_abandoned; }

    // Anything else got a harmless JSON answer (otherAnswer()) and is recorded here.
    QList<Request> otherRequests() const { return m_others; }

    static QString fallbackText() { return QStringLiteral("(mock: no scripted turn)"); }

Q_SIGNALS:
    // An API request was recorded at `index` (before it is answered).
    void requestReceived(int index);
    // The answer to request `index` was completely written.
    void responseFinished(int index);
    void otherRequestReceived(int index);

protected:
    // How a stream with a delay spaces its groups of events.
    enum class Pacing {
        // One group per timer tick, `delayMs` after the previous one was written: a timer that
        // fires late stretches the stream.
        Gap,
        // Group k is due k * delayMs after the first, on a precise timer, and every group already
        // due is written (and flushed) at once: a timer that fires late on a loaded machine must
        // not lower the paced rate (the streaming benchmark's "1,000 deltas/s" delivered ~520/s
        // with gaps).
        Schedule,
    };
    // What differs between the APIs on the wire.
    struct Style {
        QByteArray apiPath;         // POSTs to it are the API's requests, e.g. "/v1/messages"
        QByteArray requestIdHeader; // sent as "<name>: req_mock" with every answer
        Pacing pacing = Pacing::Gap;
        // Replaced in every chunk, at the moment it is written to the socket, by the steady
        // (CLOCK_MONOTONIC, shared by all processes of the machine) time in microseconds, for
        // benchmarks measuring model-to-client latency. Empty: chunks go as they are.
        QByteArray stampToken;
    };

    class Connection;

    MockHttpServer(Style style, QObject *parent);

    // Answers API request `index` (recorded, requestReceived emitted) through `conn`.
    virtual void answer(Connection *conn, int index) = 0;
    // The JSON body of the 200 answer to anything else (GET, other paths).
    virtual QJsonObject otherAnswer(const QByteArray &path) const = 0;

    // The next scripted turn, or, when none is queued, the fallback text in one delta (counted in
    // unscriptedRequests()).
    template <typename Turn> Turn nextTurn(QList<Turn> &queue) {
        if (!queue.isEmpty())
            return queue.takeFirst();
        ++m_unscripted;
        Turn turn;
        turn.text = fallbackText();
        turn.deltas = 1;
        return turn;
    }

private:
    void onNewConnection();
    // Records one complete request and has it answered through `conn`.
    void dispatch(Connection *conn, Request req);

    Style m_style;
    QTcpServer m_server;
    QList<Request> m_requests;
    QList<Request> m_others;
    int m_unscripted = 0;
    int m_abandoned = 0;
};

// One client connection: reads HTTP/1.1 requests one after the other (keep-alive) and writes the
// answers the mock plans, progressively when they are paced. While an answer is being written (or
// hanging), further requests wait in the buffer.
class MockHttpServer::Connection final : public QObject {
public:
    Connection(MockHttpServer *server, QTcpSocket *socket);

    // A complete response at once.
    void respond(int status, const QByteArray &contentType, const QByteArray &body,
                 const QByteArray &extraHeaders = {});
    // An SSE answer to request `index` in chunked encoding; groups after the first follow
    // `delayMs` apart (see Pacing); responseFinished(index) when the last one is written.
    void stream(const QList<QByteArray> &groups, int delayMs, int index);
    // Never answers; the connection is counted as abandoned when the client drops it.
    void hang() { m_busy = true; }

private:
    QByteArray requestIdHeader() const;
    QByteArray connectionHeader() const;
    void writeNextGroup();
    void writeChunk(QByteArray data);
    void finish();
    void readRequests();

    MockHttpServer *m_server;
    QTcpSocket *m_socket;
    QByteArray m_buffer;
    QTimer m_timer;
    QList<QByteArray> m_groups;
    int m_delayMs = 0;
    int m_sentGroups = 0;
    QElapsedTimer m_clock;
    int m_index = -1;
    bool m_busy = false;
    bool m_closeAfter = false;
};

} // namespace flotilla::test
