#pragma once
// What start-up had to repair (a corrupt file set aside, ...). Reported in the log at
// critical level and in GET /api/health so that nothing is replaced silently.

#include <QStringList>

namespace flotilla {

class StartupReport final {
public:
    void addWarning(const QString &warning) { m_warnings.append(warning); }
    const QStringList &warnings() const { return m_warnings; }

private:
    QStringList m_warnings;
};

} // namespace flotilla
