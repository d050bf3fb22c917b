#pragma once

#include <QJsonObject>
#include <QString>

namespace flotilla {

// Payload of the `output` event: one streamed piece of an agent's turn.
struct OutputChunk {
    QString agentId;
    QString text;
    bool isStreaming = true; // false marks the final chunk of a turn
    qint64 timestamp = 0;    // epoch milliseconds
    QString toolName;        // optional
    QJsonObject toolInput;   // optional
    QString toolOutput;      // optional
    bool isError = false;    // a tool result: the call failed (written only when true)
    QString skill;           // optional: the skill a tool use (or its result) invokes
    bool hasToolInput = false;
    bool hasToolOutput = false;

    QJsonObject toJson() const;
    static bool fromJson(const QJsonObject &json, OutputChunk *out);
};

} // namespace flotilla
