#include "protocol/OutputChunk.h"

#include "protocol/HistoryNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"

namespace flotilla {

namespace k = wire::key;

QJsonObject OutputChunk::toJson() const {
    QJsonObject o{{k::AgentId, agentId},
                  {k::Text, text},
                  {k::IsStreaming, isStreaming},
                  {k::Timestamp, timestamp}};
    if (!toolName.isEmpty())
        o.insert(k::ToolName, toolName);
    if (hasToolInput)
        o.insert(k::ToolInput, toolInput);
    if (hasToolOutput)
        o.insert(k::ToolOutput, toolOutput);
    if (hasToolOutput && isError)
        o.insert(wire::history::key::IsError, true); // the key history entries use
    if (!skill.isEmpty())
        o.insert(wire::shaping::key::Skill, skill);
    return o;
}

bool OutputChunk::fromJson(const QJsonObject &json, OutputChunk *out) {
    if (!json.value(k::AgentId).isString())
        return false;
    OutputChunk c;
    c.agentId = json.value(k::AgentId).toString();
    c.text = json.value(k::Text).toString();
    c.isStreaming = json.value(k::IsStreaming).toBool(true);
    c.timestamp = json.value(k::Timestamp).toInteger();
    c.toolName = json.value(k::ToolName).toString();
    c.hasToolInput = json.value(k::ToolInput).isObject();
    c.toolInput = json.value(k::ToolInput).toObject();
    c.hasToolOutput = json.value(k::ToolOutput).isString();
    c.toolOutput = json.value(k::ToolOutput).toString();
    c.isError = c.hasToolOutput && json.value(wire::history::key::IsError).toBool();
    c.skill = json.value(wire::shaping::key::Skill).toString();
    *out = std::move(c);
    return true;
}

} // namespace flotilla
