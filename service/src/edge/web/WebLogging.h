#pragma once
// The web page's logging category: loading the page's assets at start.
// Enable with QT_LOGGING_RULES="flotilla.web.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcWeb)
