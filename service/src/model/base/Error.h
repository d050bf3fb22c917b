#pragma once
// Typed domain errors. The core never speaks HTTP: the HTTP adapter maps ErrorKind to a status
// in exactly one function (http/ApiTypes.cpp: statusFor).

#include <QLatin1String>
#include <QString>

#include <optional>
#include <utility>

namespace flotilla {

enum class ErrorKind {
    BadRequest,       // malformed JSON, missing required field, wrong JSON type
    Unauthorized,     // missing or wrong token
    Forbidden,        // e.g. a WebSocket from a foreign Origin
    NotFound,         // unknown agent, route, ...
    MethodNotAllowed, // path exists, method does not
    Conflict,         // duplicate name, ...
    TooLarge,         // body over the limit
    Invalid,          // well-formed but invalid value
    Unavailable,      // a dependency is missing (the Claude Code CLI)
    Internal,         // our fault; never for bad input
};

struct Error {
    ErrorKind kind = ErrorKind::Internal;
    QLatin1String code;
    QString message;

    static Error badRequest(QLatin1String code, QString msg) {
        return {ErrorKind::BadRequest, code, std::move(msg)};
    }
    static Error invalid(QLatin1String code, QString msg) {
        return {ErrorKind::Invalid, code, std::move(msg)};
    }
    static Error notFound(QLatin1String code, QString msg) {
        return {ErrorKind::NotFound, code, std::move(msg)};
    }
    static Error conflict(QLatin1String code, QString msg) {
        return {ErrorKind::Conflict, code, std::move(msg)};
    }
    static Error forbidden(QLatin1String code, QString msg) {
        return {ErrorKind::Forbidden, code, std::move(msg)};
    }
    static Error internal(QLatin1String code, QString msg) {
        return {ErrorKind::Internal, code, std::move(msg)};
    }
};

// A value or an Error. Small on purpose: C++17 has no std::expected.
template <typename T> class Result {
public:
    Result(T value)
        : m_value(std::move(value)) {} // NOLINT(google-explicit-constructor)
    Result(Error error)
        : m_error(std::move(error)) {} // NOLINT(google-explicit-constructor)

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    const T &value() const & { return *m_value; }
    T &value() & { return *m_value; }
    T &&value() && { return std::move(*m_value); }
    const T *operator->() const { return &*m_value; }
    const T &operator*() const { return *m_value; }
    const Error &error() const { return m_error; }

private:
    std::optional<T> m_value;
    Error m_error;
};

// For operations without a value: an empty optional means success.
using Status = std::optional<Error>;

} // namespace flotilla
