#pragma once
// The scripted model behind an agent, whatever its provider: what a provider-neutral test queues
// and asserts, over MockAnthropic (the `claude` CLI) or MockOpenAI (the `codex` CLI). Each call
// says what the model does, the adapter says it the way that provider's API would. Anything
// provider-specific (usage accounting, tool_use ids, function_call items) stays on the mock.

#include <QString>

#include <memory>

namespace flotilla::test {

class MockAnthropic;
class MockOpenAI;

class ScriptedModel {
public:
    // What the service and the CLI call things for this provider.
    struct Names {
        QString provider;    // the agent provider served: "claude" or "codex"
        QString cliName;     // the CLI as messages and lastError name it ("Claude Code", "Codex")
        QString commandTool; // the toolName reported for a shell command ("Bash", ...)
        QString otherModel;  // a model for its agents other than the one they start with
    };

    explicit ScriptedModel(Names names)
        : m_names(std::move(names)) {}
    virtual ~ScriptedModel() = default;
    Q_DISABLE_COPY_MOVE(ScriptedModel)

    QString provider() const { return m_names.provider; }
    QString cliName() const { return m_names.cliName; }
    QString commandTool() const { return m_names.commandTool; }
    QString otherModel() const { return m_names.otherModel; }

    // --- Script: one answer per model request, in queue order ---
    // An answer whose text streams as `deltas` pieces, `delayMs` apart.
    virtual void queueText(const QString &text, int deltas = 3, int delayMs = 0) = 0;
    // The model asks to run `command` in a shell (Claude: a Bash tool_use; Codex: an
    // exec_command function call, which the CLI runs as a command execution). Returns the id
    // the answer's result will carry (tool_use id, call id).
    virtual QString queueCommand(const QString &command) = 0;
    // Accepts the request and never answers.
    virtual void queueHang() = 0;
    // An HTTP error for the next `times` requests (what each CLI does with which status: see
    // MockAnthropic::queueError and the top of MockOpenAI.h).
    virtual void queueError(int httpStatus, const QString &message, int times = 1) = 0;
    // An API error the CLI gives up on at once, so the turn fails (a 400: Claude makes up to 6
    // requests as it drops betas, all of them get it; Codex makes one). Leaves errors queued for
    // Claude: clearQueue() before scripting what follows.
    virtual void queueFailingTurn(const QString &message) = 0;
    virtual void clearQueue() = 0;

    // --- Recorded model requests ---
    virtual int requestCount() const = 0;
    // The newest user message's text (match on the end: Claude puts reminders before it).
    virtual QString lastUserTextOf(int i) const = 0;
    // The whole conversation sent (Claude's `messages`, Codex's `input`) as compact JSON.
    virtual QString conversationOf(int i) const = 0;
    // The system prompt (Claude's system blocks; Codex's developer messages).
    virtual QString systemPromptOf(int i) const = 0;
    virtual QString modelOf(int i) const = 0;
    // Whether request i carries the result of the command queued with that id.
    virtual bool hasCommandResult(int i, const QString &id) const = 0;

private:
    Names m_names;
};

// The adapters: Claude's model over MockAnthropic, Codex's over MockOpenAI.
std::unique_ptr<ScriptedModel> scriptedModel(MockAnthropic &mock);
std::unique_ptr<ScriptedModel> scriptedModel(MockOpenAI &mock);

} // namespace flotilla::test
