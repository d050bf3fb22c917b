#pragma once
// Logging category of the client library (flotilla.client).

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcClient)
