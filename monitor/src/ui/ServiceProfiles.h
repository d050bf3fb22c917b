#pragma once
// The services the user connected to, in QSettings ("services" array + "lastService"). Tokens
// are not here: they live in a CredentialStore under the profile's URL.

#include <QList>
#include <QString>
#include <QUrl>

namespace flotilla::monitor::ui {

struct ServiceProfile {
    QString name; // shown in the combo box; defaults to host:port
    QUrl url;
    bool rememberToken = true;
    QString key() const { return url.toString(QUrl::StripTrailingSlash); }
};

class ServiceProfiles final {
public:
    ServiceProfiles();

    QList<ServiceProfile> all() const { return m_profiles; }
    int indexOf(const QUrl &url) const;
    // Adds or replaces (same URL) and makes it the last used one; saved at once.
    void upsert(const ServiceProfile &profile);
    void remove(const QUrl &url);
    QUrl lastUsed() const { return m_last; }

private:
    void save() const;

    QList<ServiceProfile> m_profiles;
    QUrl m_last;
};

} // namespace flotilla::monitor::ui
