#pragma once

#include <QJsonObject>
#include <QString>

namespace flotilla {

struct Notification {
    QString id;
    QString agentId;
    QString agentName;
    QString agentClass;
    QString title;
    QString message;
    qint64 timestamp = 0; // epoch milliseconds
    QString iconUrl;      // optional, omitted when empty
    QString imageUrl;     // optional, omitted when empty

    QJsonObject toJson() const;
    static bool fromJson(const QJsonObject &json, Notification *out);
};

} // namespace flotilla
