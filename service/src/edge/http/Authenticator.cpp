#include "http/Authenticator.h"

#include "security/AgentTokens.h"
#include "security/ConstantTime.h"

namespace flotilla {

Authenticator::Authenticator(QByteArray token, const AgentTokens *agentTokens)
    : m_token(std::move(token))
    , m_agentTokens(agentTokens) {
}

bool Authenticator::accepts(const QByteArray &candidate) const {
    if (!required())
        return true;
    if (candidate.isEmpty())
        return false;
    return constantTimeEquals(m_token, candidate);
}

Caller Authenticator::identify(const QByteArray &candidate) const {
    if (accepts(candidate))
        return Caller{Caller::Kind::Service, {}};
    if (m_agentTokens && AgentTokens::looksLikeAgentToken(candidate)) {
        if (auto id = m_agentTokens->agentFor(candidate))
            return Caller{Caller::Kind::Agent, *id};
    }
    return {};
}

QString Authenticator::agentOf(const QByteArray &candidate) const {
    if (m_agentTokens && AgentTokens::looksLikeAgentToken(candidate)) {
        if (auto id = m_agentTokens->agentFor(candidate))
            return *id;
    }
    return {};
}

QByteArray Authenticator::fromHeaders(const QByteArray &xAuthToken,
                                      const QByteArray &authorization) {
    if (!xAuthToken.isEmpty())
        return xAuthToken.trimmed();
    const QByteArray auth = authorization.trimmed();
    if (auth.size() > 7 && auth.left(7).compare("Bearer ", Qt::CaseInsensitive) == 0)
        return auth.mid(7).trimmed();
    return {};
}

} // namespace flotilla
