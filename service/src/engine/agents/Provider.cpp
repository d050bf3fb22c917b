#include "agents/Provider.h"

#include <QUrl>

#include <algorithm>

namespace flotilla {

QString endpointOf(const QString &url) {
    const QUrl u(url);
    if (!u.isValid() || u.host().isEmpty())
        return {};
    const int port = u.port(u.scheme() == QLatin1String("https") ? 443 : 80);
    return QStringLiteral("%1:%2").arg(u.host()).arg(port);
}

void ProviderRegistry::add(std::unique_ptr<Provider> provider) {
    Q_ASSERT(provider);
    // One provider per name: a later one replaces the earlier (a test's scripted CLI). The
    // runtime looks providers up per message and per spawn and keeps no pointer to them.
    const QString name = provider->name();
    const auto it = std::find_if(m_providers.begin(), m_providers.end(),
                                 [&name](const auto &p) { return p->name() == name; });
    if (it != m_providers.end())
        *it = std::move(provider);
    else
        m_providers.push_back(std::move(provider));
    m_toolKinds.clear();
    for (const auto &p : m_providers) {
        const QHash<QString, rules::ToolKind> kinds = p->toolKinds();
        for (auto k = kinds.cbegin(); k != kinds.cend(); ++k) {
            if (!m_toolKinds.contains(k.key()))
                m_toolKinds.insert(k.key(), k.value());
        }
    }
}

const Provider *ProviderRegistry::find(const QString &name) const {
    const auto it = std::find_if(m_providers.cbegin(), m_providers.cend(),
                                 [&name](const auto &p) { return p->name() == name; });
    return it == m_providers.cend() ? nullptr : it->get();
}

QStringList ProviderRegistry::providerNames() const {
    QStringList names;
    for (const auto &p : m_providers)
        names.append(p->name());
    return names;
}

QString ProviderRegistry::defaultProvider() const {
    return m_providers.empty() ? QString() : m_providers.front()->name();
}

QString ProviderRegistry::defaultModel(const QString &provider) const {
    const Provider *p = find(provider);
    return p ? p->defaultModel() : QString();
}

rules::ToolKind ProviderRegistry::kindOf(const QString &tool) const {
    return m_toolKinds.value(tool, rules::ToolKind::Other);
}

} // namespace flotilla
