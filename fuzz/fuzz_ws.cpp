// libFuzzer target: the WebSocket message dispatcher (EventHub's table of incoming types:
// permission responses, boss and work-plan messages...), through the real service graph, without
// sockets: EventHub::dispatchInProcess plays one client.
//
// The input is one text frame (UTF-8). Seeded agent and area ids are substituted for the
// placeholders AGENT0, AGENT1 and AREA, so the handlers' deeper paths are reachable.
//
// Invariants: everything the hub sends back is a JSON object with a string "type"; a frame that
// is not a JSON object with a string "type" gets exactly one "error" reply, with a message and
// a code; the dispatch leaves no client behind.

#include "FuzzSupport.h"
#include "ServiceGraph.h"

#include "ws/EventHub.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace flotilla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto &graph = fuzz::ServiceGraph::get();
    QString text = QString::fromUtf8(
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)));
    text.replace(QLatin1String("AGENT0"), graph.agentIds().value(0))
        .replace(QLatin1String("AGENT1"), graph.agentIds().value(1))
        .replace(QLatin1String("AREA"), graph.areaId());

    EventHub &hub = graph.app().hub();
    const int clientsBefore = hub.clientCount();
    QList<QJsonObject> replies;
    hub.dispatchInProcess(text, [&replies](const QString &reply) {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(reply.toUtf8(), &err);
        FUZZ_CHECK(err.error == QJsonParseError::NoError && doc.isObject(),
                   "the hub sent something that is not a JSON object");
        FUZZ_CHECK(doc.object().value(QLatin1String("type")).isString(), "reply without a type");
        replies.append(doc.object());
    });
    FUZZ_CHECK(hub.clientCount() == clientsBefore, "the in-process client was left behind");

    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &err);
    const QJsonValue type = doc.object().value(QLatin1String("type"));
    const QJsonValue payload = doc.object().value(QLatin1String("payload"));
    const bool wellFormed = err.error == QJsonParseError::NoError && doc.isObject() &&
                            type.isString() && !type.toString().isEmpty() &&
                            (payload.isUndefined() || payload.isNull() || payload.isObject());
    if (!wellFormed) {
        FUZZ_CHECK(replies.size() == 1, "a malformed frame did not get exactly one reply");
        const QJsonObject e = replies.first();
        FUZZ_CHECK(e.value(QLatin1String("type")).toString() == QLatin1String("error"),
                   "a malformed frame got something else than an error");
    }
    for (const QJsonObject &r : replies) {
        if (r.value(QLatin1String("type")).toString() != QLatin1String("error"))
            continue;
        const QJsonObject p = r.value(QLatin1String("payload")).toObject();
        FUZZ_CHECK(p.value(QLatin1String("message")).isString() &&
                       p.value(QLatin1String("code")).isString(),
                   "error without message and code");
    }
    fuzz::ServiceGraph::settle();
    return 0;
}
