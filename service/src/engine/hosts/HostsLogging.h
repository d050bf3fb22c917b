#pragma once
// The hosts module's logging category: the machines agents run on and flotillad's ssh connection
// to each. Enable with QT_LOGGING_RULES="flotilla.hosts.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHosts)
