#include "support/ScriptedModel.h"

#include "support/MockAnthropic.h"
#include "support/MockOpenAI.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace flotilla::test {

namespace {

QString compact(const QJsonValue &v) {
    return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
}

// The Anthropic error type that goes with an HTTP status, as the real API pairs them.
QString anthropicErrorType(int status) {
    switch (status) {
    case 400:
        return QStringLiteral("invalid_request_error");
    case 401:
        return QStringLiteral("authentication_error");
    case 403:
        return QStringLiteral("permission_error");
    case 404:
        return QStringLiteral("not_found_error");
    case 413:
        return QStringLiteral("request_too_large");
    case 429:
        return QStringLiteral("rate_limit_error");
    case 529:
        return QStringLiteral("overloaded_error");
    default:
        return QStringLiteral("api_error");
    }
}

// What both mocks spell the same way.
template <class Mock> class MockModel : public ScriptedModel {
public:
    MockModel(Mock &mock, Names names)
        : ScriptedModel(std::move(names))
        , m_mock(mock) {}
    void queueText(const QString &text, int deltas, int delayMs) override {
        m_mock.queueText(text, deltas, delayMs);
    }
    void queueHang() override { m_mock.queueHang(); }
    void clearQueue() override { m_mock.clearQueue(); }
    int requestCount() const override { return m_mock.requestCount(); }
    QString lastUserTextOf(int i) const override { return m_mock.lastUserTextOf(i); }
    QString modelOf(int i) const override {
        return m_mock.request(i).value(QLatin1String("model")).toString();
    }

protected:
    Mock &m_mock;
};

class AnthropicModel final : public MockModel<MockAnthropic> {
public:
    explicit AnthropicModel(MockAnthropic &mock)
        : MockModel(mock, {QStringLiteral("claude"), QStringLiteral("Claude Code"),
                           QStringLiteral("Bash"), QStringLiteral("claude-haiku-4-5")}) {}
    QString queueCommand(const QString &command) override {
        return m_mock.queueToolUse(QStringLiteral("Bash"),
                                   {{QStringLiteral("command"), command},
                                    {QStringLiteral("description"), QStringLiteral("scripted")}});
    }
    void queueError(int httpStatus, const QString &message, int times) override {
        m_mock.queueError(httpStatus, anthropicErrorType(httpStatus), message, times);
    }
    void queueFailingTurn(const QString &message) override {
        queueError(400, message, 20); // more than the CLI's feature-dropping retries
    }
    QString conversationOf(int i) const override {
        return compact(m_mock.request(i).value(QLatin1String("messages")));
    }
    QString systemPromptOf(int i) const override { return m_mock.systemPromptOf(i); }
    bool hasCommandResult(int i, const QString &id) const override {
        return m_mock.hasToolResult(i, id);
    }
};

class OpenAIModel final : public MockModel<MockOpenAI> {
public:
    explicit OpenAIModel(MockOpenAI &mock)
        : MockModel(mock, {QStringLiteral("codex"), QStringLiteral("Codex"),
                           QStringLiteral("commandExecution"), QStringLiteral("gpt-mock-2")}) {}
    QString queueCommand(const QString &command) override {
        return m_mock.queueFunctionCall(QStringLiteral("exec_command"),
                                        {{QStringLiteral("cmd"), command}});
    }
    void queueError(int httpStatus, const QString &message, int times) override {
        m_mock.queueError(httpStatus, message, times);
    }
    void queueFailingTurn(const QString &message) override {
        queueError(400, message, 1); // never retried
    }
    QString conversationOf(int i) const override {
        return compact(m_mock.request(i).value(QLatin1String("input")));
    }
    QString systemPromptOf(int i) const override { return m_mock.instructionsOf(i); }
    bool hasCommandResult(int i, const QString &id) const override {
        return m_mock.hasFunctionCallOutput(i, id);
    }
};

} // namespace

std::unique_ptr<ScriptedModel> scriptedModel(MockAnthropic &mock) {
    return std::make_unique<AnthropicModel>(mock);
}

std::unique_ptr<ScriptedModel> scriptedModel(MockOpenAI &mock) {
    return std::make_unique<OpenAIModel>(mock);
}

} // namespace flotilla::test
