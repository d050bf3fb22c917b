#include "ui/ServiceProfiles.h"

#include "core/SshTarget.h"

#include <QSettings>

namespace flotilla::monitor::ui {

namespace {
const QString kArray = QStringLiteral("services");
const QString kLast = QStringLiteral("lastService");
} // namespace

ServiceProfiles::ServiceProfiles() {
    QSettings s;
    const int n = s.beginReadArray(kArray);
    for (int i = 0; i < n; ++i) {
        s.setArrayIndex(i);
        ServiceProfile p;
        p.name = s.value(QStringLiteral("name")).toString();
        p.url = s.value(QStringLiteral("url")).toUrl();
        p.rememberToken = s.value(QStringLiteral("rememberToken"), true).toBool();
        if (p.url.isValid())
            m_profiles << p;
    }
    s.endArray();
    m_last = s.value(kLast).toUrl();
}

int ServiceProfiles::indexOf(const QUrl &url) const {
    const QString key = url.toString(QUrl::StripTrailingSlash);
    for (int i = 0; i < m_profiles.size(); ++i)
        if (m_profiles[i].key() == key)
            return i;
    return -1;
}

void ServiceProfiles::upsert(const ServiceProfile &profile) {
    ServiceProfile p = profile;
    if (p.name.trimmed().isEmpty()) {
        const std::optional<SshTarget> ssh = parseSshTarget(p.url, nullptr);
        p.name = ssh ? ssh->destination()
                     : p.url.host() + QLatin1Char(':') + QString::number(p.url.port(80));
    }
    const int i = indexOf(p.url);
    if (i >= 0)
        m_profiles[i] = p;
    else
        m_profiles << p;
    m_last = p.url;
    save();
}

void ServiceProfiles::remove(const QUrl &url) {
    const int i = indexOf(url);
    if (i >= 0)
        m_profiles.removeAt(i);
    if (m_last.toString(QUrl::StripTrailingSlash) == url.toString(QUrl::StripTrailingSlash))
        m_last.clear();
    save();
}

void ServiceProfiles::save() const {
    QSettings s;
    s.remove(kArray);
    s.beginWriteArray(kArray, int(m_profiles.size()));
    for (int i = 0; i < m_profiles.size(); ++i) {
        s.setArrayIndex(i);
        s.setValue(QStringLiteral("name"), m_profiles[i].name);
        s.setValue(QStringLiteral("url"), m_profiles[i].url);
        s.setValue(QStringLiteral("rememberToken"), m_profiles[i].rememberToken);
    }
    s.endArray();
    s.setValue(kLast, m_last);
}

} // namespace flotilla::monitor::ui
