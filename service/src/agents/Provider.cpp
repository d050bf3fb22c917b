#include "agents/Provider.h"

#include <algorithm>

namespace flotilla {

void ProviderRegistry::add(std::unique_ptr<Provider> provider) {
    Q_ASSERT(provider);
    // One provider per name: a later one replaces the earlier (a test's scripted CLI). The
    // runtime looks providers up per message and per spawn and keeps no pointer to them.
    const QString name = provider->name();
    m_providers.erase(std::remove_if(m_providers.begin(), m_providers.end(),
                                     [&name](const auto &p) { return p->name() == name; }),
                      m_providers.end());
    m_providers.push_back(std::move(provider));
}

const Provider *ProviderRegistry::find(const QString &name) const {
    const auto it = std::find_if(m_providers.cbegin(), m_providers.cend(),
                                 [&name](const auto &p) { return p->name() == name; });
    return it == m_providers.cend() ? nullptr : it->get();
}

} // namespace flotilla
