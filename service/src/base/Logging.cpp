#include "base/Logging.h"

Q_LOGGING_CATEGORY(lcApp, "flotilla.app", QtInfoMsg)
Q_LOGGING_CATEGORY(lcHttp, "flotilla.http", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWs, "flotilla.ws", QtInfoMsg)
Q_LOGGING_CATEGORY(lcAgents, "flotilla.agents", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStorage, "flotilla.storage", QtInfoMsg)

namespace flotilla {
namespace {
QLoggingCategory::CategoryFilter g_previousFilter = nullptr;

void secretSafeFilter(QLoggingCategory *category) {
    if (g_previousFilter)
        g_previousFilter(category);
    if (qstrcmp(category->categoryName(), "qt.httpserver") == 0)
        category->setEnabled(QtDebugMsg, false);
}
} // namespace

void installSecretSafeLogging() {
    g_previousFilter = QLoggingCategory::installFilter(secretSafeFilter);
}
} // namespace flotilla
