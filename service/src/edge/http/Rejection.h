#pragma once
// A request refused by the HTTP layer before it reaches a handler: status, error code, message,
// and any extra response headers.

#include <QByteArray>
#include <QLatin1String>
#include <QList>
#include <QPair>
#include <QString>

namespace flotilla {

struct Rejection {
    int status = 400;
    QLatin1String code;
    QString message;
    QList<QPair<QByteArray, QByteArray>> headers;
};

} // namespace flotilla
