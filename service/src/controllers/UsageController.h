#pragma once

#include <QObject>

namespace flotilla {

class HttpServer;
class UsageService;

// GET /api/usage: usage totals grouped by agent, boss team or day (usage/UsageService.h).
class UsageController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UsageController)
public:
    UsageController(HttpServer &http, UsageService &usage, QObject *parent = nullptr);
};

} // namespace flotilla
