#pragma once
// The organization module's logging category: areas, bulk delete/move-area, focus,
// activity, config export/import. Enable with QT_LOGGING_RULES="flotilla.org.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcOrg)
