#pragma once
// Small builders for the JSON Schema of the MCP tools' arguments (AgentTools.cpp, UserTools.cpp).

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

namespace flotilla::mcp::schema {

inline QJsonObject typed(const char *type, const QString &description) {
    return QJsonObject{{QStringLiteral("type"), QLatin1String(type)},
                       {QStringLiteral("description"), description}};
}
inline QJsonObject string(const QString &description) {
    return typed("string", description);
}
inline QJsonObject nullableString(const QString &description) {
    return QJsonObject{
        {QStringLiteral("type"), QJsonArray{QStringLiteral("string"), QStringLiteral("null")}},
        {QStringLiteral("description"), description}};
}
inline QJsonObject oneOf(const QStringList &values, const QString &description) {
    QJsonObject o = string(description);
    o.insert(QStringLiteral("enum"), QJsonArray::fromStringList(values));
    return o;
}
inline QJsonObject integer(const QString &description, int min, int max) {
    QJsonObject o = typed("integer", description);
    o.insert(QStringLiteral("minimum"), min);
    o.insert(QStringLiteral("maximum"), max);
    return o;
}
inline QJsonObject boolean(const QString &description) {
    return typed("boolean", description);
}
inline QJsonObject stringArray(const QString &description) {
    QJsonObject o = typed("array", description);
    o.insert(QStringLiteral("items"),
             QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}});
    return o;
}

} // namespace flotilla::mcp::schema
