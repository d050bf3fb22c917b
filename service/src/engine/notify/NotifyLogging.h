#pragma once
// The notification channels' logging category: outgoing webhooks, the outbox,
// retries. Enable with QT_LOGGING_RULES="flotilla.notify.debug=true". Never logs a channel's
// secret or its URL's path and query (a Slack webhook URL is itself a credential): channel ids and
// hosts only.

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcNotify)
