#include "base/Logging.h"

Q_LOGGING_CATEGORY(lcApp, "flotilla.app", QtInfoMsg)
Q_LOGGING_CATEGORY(lcHttp, "flotilla.http", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWs, "flotilla.ws", QtInfoMsg)
Q_LOGGING_CATEGORY(lcAgents, "flotilla.agents", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStorage, "flotilla.storage", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSandbox, "flotilla.sandbox", QtInfoMsg)

namespace flotilla {
namespace {
QLoggingCategory::CategoryFilter g_previousFilter = nullptr;
QtMessageHandler g_previousHandler = nullptr;

void escapingHandler(QtMsgType type, const QMessageLogContext &context, const QString &message) {
    if (g_previousHandler)
        g_previousHandler(type, context, escapeForLog(message));
}

void secretSafeFilter(QLoggingCategory *category) {
    if (g_previousFilter)
        g_previousFilter(category);
    if (qstrcmp(category->categoryName(), "qt.httpserver") == 0)
        category->setEnabled(QtDebugMsg, false);
}
} // namespace

void installSecretSafeLogging() {
    g_previousFilter = QLoggingCategory::installFilter(secretSafeFilter);
    // Qt 6 hands back its default handler (never null), which formats and prints as before.
    g_previousHandler = qInstallMessageHandler(escapingHandler);
}

QString escapeForLog(const QString &text) {
    qsizetype i = 0;
    auto special = [](char16_t u) { return u < 0x20 || (u >= 0x7f && u <= 0x9f); };
    while (i < text.size() && !special(text.at(i).unicode()))
        ++i;
    if (i == text.size())
        return text; // the common case: nothing to escape, no copy
    QString out = text.left(i);
    for (; i < text.size(); ++i) {
        const char16_t u = text.at(i).unicode();
        if (!special(u))
            out += text.at(i);
        else if (u == '\n')
            out += QLatin1String("\\n");
        else if (u == '\r')
            out += QLatin1String("\\r");
        else if (u == '\t')
            out += QLatin1String("\\t");
        else
            out += QStringLiteral("\\x%1").arg(uint(u), 2, 16, QLatin1Char('0'));
    }
    return out;
}
} // namespace flotilla
